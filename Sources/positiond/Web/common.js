// Shared by beaconfix's pages: the API key and the requests made with it.
//
// When the daemon has API keys, the page asks for one and keeps it in sessionStorage: for this browser tab
// only, never in a URL (the live feed uses single-use tickets instead). Without keys, nothing is asked.
'use strict';

const beaconfix = {
  key() {
    return sessionStorage.getItem('beaconfix.key');
  },

  forgetKey() {
    sessionStorage.removeItem('beaconfix.key');
  },

  // Shows the key form and resolves once a key is entered.
  askKey(reason) {
    const dialog = document.getElementById('key-dialog');
    const form = dialog.querySelector('form');
    const input = dialog.querySelector('input');
    dialog.querySelector('.reason').textContent = reason;
    dialog.hidden = false;
    input.value = '';
    input.focus();
    return new Promise((resolve) => {
      form.onsubmit = (event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        sessionStorage.setItem('beaconfix.key', key);
        dialog.hidden = true;
        resolve(key);
      };
    });
  },

  // A JSON request to the API with the key, asking for one on 401; rejects with the API's message.
  async api(path, options = {}) {
    for (;;) {
      const headers = Object.assign({ Accept: 'application/json' }, options.headers || {});
      const key = this.key();
      if (key) headers.Authorization = 'Bearer ' + key;
      const response = await fetch(path, Object.assign({}, options, { headers }));
      if (response.status === 401) {
        const hadKey = Boolean(key);
        this.forgetKey();
        await this.askKey(hadKey ? 'That key was refused (unknown or revoked). Enter another.' : 'This daemon needs an API key.');
        continue;
      }
      if (!response.ok) {
        let message = response.status + ' ' + response.statusText;
        try {
          message = (await response.json()).error.message;
        } catch (ignored) {
          // Not the API's error body: keep the status line.
        }
        const error = new Error(message);
        error.status = response.status;
        throw error;
      }
      return response.json();
    }
  },

  // The same request for a binary body (a floor plan), as an object URL; null on 404.
  async blobURL(path) {
    const headers = {};
    const key = this.key();
    if (key) headers.Authorization = 'Bearer ' + key;
    const response = await fetch(path, { headers });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(path + ': ' + response.status);
    return URL.createObjectURL(await response.blob());
  },

  // Names from the venue and device ids from phones, made safe to put in a tooltip's HTML.
  escape(text) {
    return String(text).replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]);
  },

  text(tag, text, className) {
    const element = document.createElement(tag);
    element.textContent = text;
    if (className) element.className = className;
    return element;
  },
};
