// The venue list of `/`: each venue with its revision and survey size, linking to its live map.
'use strict';

(async () => {
  const status = document.getElementById('status');
  try {
    const { venues } = await beaconfix.api('/v1/venues');
    const list = document.getElementById('venues');
    for (const venue of venues) {
      const item = document.createElement('li');
      const link = beaconfix.text('a', venue.name);
      link.href = '/venues/' + encodeURIComponent(venue.id) + '/map';
      item.append(link, beaconfix.text('span',
        ` ${venue.id} · revision ${venue.revision} · ${venue.floors} floor(s), ${venue.spots} spots, ` +
        `${venue.active_beacons} beacons, ${venue.fingerprints} fingerprints`, 'meta'));
      list.append(item);
    }
    status.textContent = venues.length === 0 ? 'No venue yet: import one with survey venue import.' : '';
  } catch (error) {
    status.textContent = 'Could not list the venues: ' + error.message;
  }
})();
