// The live map of /venues/{venue}/map: Leaflet in venue metres (CRS.Simple; a point is [y, x]), one floor
// at a time. It draws the floor plan (when the venue has one) under a metric grid, the zones, the spots
// coloured by survey coverage or, once the venue is tuned, by cross-validation error, the beacons by state, and the live devices from the venue's WebSocket feed
// (dot, accuracy circle, short trail, zone events). A revision message redraws the venue without a reload.
//
// window.beaconfixMap exposes the page's state (devices, floor, ready, errors) for tests and curious people.
'use strict';

const TRAIL_LENGTH = 20;
// Error colouring: a spot whose fingerprints, located with the spot left out, land within ERROR_GOOD_M on
// average is green, ERROR_BAD_M or more red, in between a blend (the legend shows these numbers). With its
// own fingerprints gone a spot can only be placed from its neighbours, so these errors are of the order of
// the spacing of spots (3 to 5 m in usual surveys; demo-hall's 4.75 m gives 2.7 to 12 m): 3 m is between
// neighbours done well, 9 m is a phone placed beyond them.
const ERROR_GOOD_M = 3;
const ERROR_BAD_M = 9;
const venueID = decodeURIComponent(location.pathname.split('/')[2] || '');
const state = {
  venue: null,
  coverage: null,
  floor: null,
  // What the spots' colours say: 'coverage' or 'error' (cross-validation, once the venue is tuned).
  colourBy: 'coverage',
  // device id → {floor, position, marker, circle, trail, zone}
  devices: new Map(),
  ready: false,
  socket: null,
  errors: [],
  // The object URL of the plan shown.
  planURL: null,
};
window.beaconfixMap = state;

const map = L.map('map', { crs: L.CRS.Simple, minZoom: -3, maxZoom: 6, zoomSnap: 0.25, attributionControl: false });
const layers = {
  plan: L.layerGroup().addTo(map),
  grid: L.layerGroup().addTo(map),
  zones: L.layerGroup().addTo(map),
  spots: L.layerGroup().addTo(map),
  beacons: L.layerGroup().addTo(map),
  devices: L.layerGroup().addTo(map),
};
L.control.layers(null, {
  'Floor plan': layers.plan, 'Grid (metres)': layers.grid, Zones: layers.zones, Spots: layers.spots,
  Beacons: layers.beacons, Devices: layers.devices,
}, { collapsed: true }).addTo(map);

function setStatus(text) {
  document.getElementById('status').textContent = text;
}

function point(x, y) {
  return L.latLng(y, x);
}

// --- The venue: floors, plan, grid, zones, spots, beacons --------------------------------------------

async function loadVenue() {
  const [venue, coverage] = await Promise.all([
    beaconfix.api('/v1/venues/' + encodeURIComponent(venueID)),
    beaconfix.api('/v1/venues/' + encodeURIComponent(venueID) + '/coverage'),
  ]);
  state.venue = venue;
  state.coverage = coverage;
  document.getElementById('venue-name').textContent = venue.name + ' · revision ' + venue.revision;
  document.title = 'beaconfix: ' + venue.name;
  const levels = venue.floors.map((floor) => floor.level);
  if (state.floor === null || !levels.includes(state.floor)) state.floor = levels.length ? levels[0] : 0;
  drawFloorButtons();
  updateColourControl();
  await drawFloor(true);
}

function drawFloorButtons() {
  const nav = document.getElementById('floors');
  nav.replaceChildren();
  for (const floor of state.venue.floors) {
    const button = beaconfix.text('button', floor.name, floor.level === state.floor ? 'active' : '');
    button.type = 'button';
    button.dataset.level = floor.level;
    button.onclick = () => {
      state.floor = floor.level;
      drawFloorButtons();
      drawFloor(false).catch(fail);
    };
    nav.append(button);
  }
}

// The extent of the floor in metres: its plan when it has one, else its spots and beacons, padded.
function floorBounds() {
  const floor = state.venue.floors.find((candidate) => candidate.level === state.floor);
  if (floor && floor.plan) return planBounds(floor.plan);
  const points = state.coverage.spots.filter((spot) => spot.floor === state.floor).map((spot) => point(spot.x, spot.y))
    .concat(state.coverage.beacons.filter((beacon) => beacon.floor === state.floor && beacon.x !== undefined)
      .map((beacon) => point(beacon.x, beacon.y)));
  if (points.length === 0) return L.latLngBounds(point(0, 0), point(10, 10));
  return L.latLngBounds(points).pad(0.08);
}

async function drawFloor(fit) {
  for (const name of ['plan', 'grid', 'zones', 'spots', 'beacons']) layers[name].clearLayers();
  const bounds = floorBounds();
  await drawPlan(bounds);
  drawGrid(bounds);
  drawZones();
  drawSpots();
  drawBeacons();
  showDevicesOfFloor();
  if (fit) map.fitBounds(bounds);
  document.body.dataset.floor = String(state.floor);
}

// A plan's image lies on its four corners, in venue metres: axis-aligned when placed by its corners,
// rotated when placed by two reference points.
function planCorners(plan) {
  return [plan.top_left, plan.top_right, plan.bottom_right, plan.bottom_left];
}

function planBounds(plan) {
  return L.latLngBounds(planCorners(plan).map((corner) => point(corner.x, corner.y)));
}

// The image is fetched with the key (an <img> could not send it) and shown from an object URL.
async function drawPlan() {
  const floor = state.venue.floors.find((candidate) => candidate.level === state.floor);
  delete document.body.dataset.plan;
  if (!floor || !floor.plan) return;
  const url = await beaconfix.blobURL(floor.plan.url);
  if (!url) return;
  // The previous floor's image is no longer shown: free it.
  if (state.planURL) URL.revokeObjectURL(state.planURL);
  state.planURL = url;
  const plan = floor.plan;
  const axisAligned = plan.top_left.y === plan.top_right.y && plan.top_right.x === plan.bottom_right.x;
  if (axisAligned) {
    L.imageOverlay(url, planBounds(plan), { className: 'floor-plan', opacity: 0.9 }).addTo(layers.plan);
  } else {
    L.svgOverlay(rotatedPlan(url, plan), planBounds(plan), { className: 'floor-plan', opacity: 0.9 }).addTo(layers.plan);
  }
  document.body.dataset.plan = plan.url;
}

// Leaflet has no rotated image overlay: an SVG spanning the plan's bounds (SVG y = -venue y) holds the
// image as a unit square that matrix(a b c d e f) maps onto its corners.
function rotatedPlan(url, plan) {
  const bounds = planBounds(plan);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', [bounds.getWest(), -bounds.getNorth(), bounds.getEast() - bounds.getWest(), bounds.getNorth() - bounds.getSouth()].join(' '));
  svg.setAttribute('preserveAspectRatio', 'none');
  const image = document.createElementNS('http://www.w3.org/2000/svg', 'image');
  const [topLeft, topRight, , bottomLeft] = planCorners(plan).map((corner) => [corner.x, -corner.y]);
  const matrix = [topRight[0] - topLeft[0], topRight[1] - topLeft[1], bottomLeft[0] - topLeft[0], bottomLeft[1] - topLeft[1], topLeft[0], topLeft[1]];
  image.setAttribute('href', url);
  image.setAttribute('width', '1');
  image.setAttribute('height', '1');
  image.setAttribute('preserveAspectRatio', 'none');
  image.setAttribute('transform', 'matrix(' + matrix.join(' ') + ')');
  svg.appendChild(image);
  return svg;
}

function drawGrid(bounds) {
  const minX = Math.floor(bounds.getWest()), maxX = Math.ceil(bounds.getEast());
  const minY = Math.floor(bounds.getSouth()), maxY = Math.ceil(bounds.getNorth());
  const step = Math.max(1, Math.round((maxX - minX) / 40));
  for (let x = minX; x <= maxX; x += step) {
    const major = x % 5 === 0;
    L.polyline([point(x, minY), point(x, maxY)], { color: major ? '#b8c0cc' : '#e1e5ea', weight: 1, interactive: false }).addTo(layers.grid);
    if (major) L.marker(point(x, minY), { icon: L.divIcon({ className: 'grid-label', html: x + ' m', iconSize: null }), interactive: false }).addTo(layers.grid);
  }
  for (let y = minY; y <= maxY; y += step) {
    const major = y % 5 === 0;
    L.polyline([point(minX, y), point(maxX, y)], { color: major ? '#b8c0cc' : '#e1e5ea', weight: 1, interactive: false }).addTo(layers.grid);
    if (major) L.marker(point(minX, y), { icon: L.divIcon({ className: 'grid-label', html: y + ' m', iconSize: null }), interactive: false }).addTo(layers.grid);
  }
}

// The zones of the floor: drawn polygons as they are, zones named only by spots as the hull of their spots.
function drawZones() {
  const areas = state.coverage.zones.filter((area) => area.floor === state.floor);
  const drawn = new Set(areas.map((area) => area.name));
  const outlines = areas.map((area) => [area.name, area.polygon]);
  const byZone = new Map();
  for (const spot of state.coverage.spots.filter((spot) => spot.floor === state.floor && spot.zone && !drawn.has(spot.zone))) {
    if (!byZone.has(spot.zone)) byZone.set(spot.zone, []);
    byZone.get(spot.zone).push([spot.x, spot.y]);
  }
  for (const [zone, points] of byZone) outlines.push([zone, outline(points)]);
  for (const [zone, polygon] of outlines) {
    L.polygon(polygon.map(([x, y]) => point(x, y)), { color: '#176b2c', weight: 1.5, dashArray: '6 4', fillOpacity: 0.04, className: 'zone' })
      .bindTooltip(beaconfix.escape(zone), { sticky: true })
      .addTo(layers.zones);
  }
}

// The hull of a zone's spots, or, for spots in a line or a single spot, a rectangle 1.5 m around them.
function outline(points) {
  const hull = convexHull(points);
  if (hull.length >= 3) return hull;
  const a = hull[0], b = hull[hull.length - 1];
  const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
  const [ux, uy] = length > 0 ? [(b[0] - a[0]) / length, (b[1] - a[1]) / length] : [1, 0];
  const pad = 1.5;
  return [
    [a[0] - pad * ux - pad * uy, a[1] - pad * uy + pad * ux], [b[0] + pad * ux - pad * uy, b[1] + pad * uy + pad * ux],
    [b[0] + pad * ux + pad * uy, b[1] + pad * uy - pad * ux], [a[0] - pad * ux + pad * uy, a[1] - pad * uy - pad * ux],
  ];
}

function convexHull(points) {
  const sorted = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (sorted.length < 3) return sorted;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  for (const p of sorted.slice().reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function spotColour(spot) {
  if (spot.thin) return '#d6452f';
  return spot.fingerprints >= 8 && spot.median_beacons >= 5 ? '#2e9d4c' : '#e0b422';
}

// The error scale: hue 130 (green) at ERROR_GOOD_M and below, down to 0 (red) at ERROR_BAD_M and above.
// A spot whose fingerprints were all answered unknown has no mean error: violet. One that was not
// cross-validated (no fingerprint when the venue was tuned): grey.
function errorColour(spot) {
  const validation = spot.cross_validation;
  if (!validation) return '#cfd3da';
  if (validation.mean_error_m === undefined) return '#7a4fb0';
  const share = Math.min(1, Math.max(0, (validation.mean_error_m - ERROR_GOOD_M) / (ERROR_BAD_M - ERROR_GOOD_M)));
  return `hsl(${Math.round(130 * (1 - share))}, 65%, 42%)`;
}

function spotTooltip(spot) {
  const validation = spot.cross_validation;
  let error = '';
  if (validation) {
    error = '<br>' + (validation.mean_error_m === undefined ? '<b>no fingerprint located</b> with the spot left out'
      : `${validation.mean_error_m.toFixed(1)} m mean error with the spot left out`) +
      `<br>${validation.located} located, ${validation.unknown} unknown`;
  }
  return `${beaconfix.escape(spot.name)}${spot.zone ? ' · ' + beaconfix.escape(spot.zone) : ''}<br>${spot.fingerprints} fingerprints, ` +
    `${spot.median_beacons} beacons each${spot.thin ? '<br><b>thin: record again</b>' : ''}${error}`;
}

function drawSpots() {
  const byError = state.colourBy === 'error';
  for (const spot of state.coverage.spots.filter((spot) => spot.floor === state.floor)) {
    const unknown = byError && spot.cross_validation && spot.cross_validation.mean_error_m === undefined;
    L.circleMarker(point(spot.x, spot.y), {
      radius: 5, color: '#1d2430', weight: spot.thin || unknown ? 2 : 1, dashArray: spot.thin ? '2 2' : null,
      fillColor: byError ? errorColour(spot) : spotColour(spot), fillOpacity: 0.85,
      className: `spot floor-${spot.floor}` + (spot.thin ? ' thin' : '') + (unknown ? ' unknown' : ''),
    }).bindTooltip(spotTooltip(spot)).addTo(layers.spots);
  }
  document.body.dataset.colourBy = state.colourBy;
}

// The colour control: error needs a tuning that measured the spots' errors; without one it is disabled,
// saying why, and the spots go back to coverage.
function updateColourControl() {
  const select = document.getElementById('colour-by');
  const tuned = state.coverage.spots.some((spot) => spot.cross_validation);
  select.disabled = !tuned;
  select.title = tuned ? `Cross-validation errors of the tuning made at revision ${state.coverage.tuned_revision}`
    : 'No cross-validation errors yet: tune the venue first (survey tune)';
  if (!tuned) state.colourBy = 'coverage';
  select.value = state.colourBy;
  document.getElementById('legend-coverage').hidden = state.colourBy !== 'coverage';
  document.getElementById('legend-error').hidden = state.colourBy !== 'error';
}

document.getElementById('error-good').textContent = `≤ ${ERROR_GOOD_M} m`;
document.getElementById('error-bad').textContent = `≥ ${ERROR_BAD_M} m`;
document.getElementById('colour-by').onchange = (event) => {
  state.colourBy = event.target.value;
  updateColourControl();
  layers.spots.clearLayers();
  drawSpots();
};

function drawBeacons() {
  for (const beacon of state.coverage.beacons.filter((beacon) => beacon.floor === state.floor && beacon.x !== undefined)) {
    const icon = L.divIcon({ className: 'beacon-icon ' + beacon.status, iconSize: [12, 12] });
    L.marker(point(beacon.x, beacon.y), { icon, keyboard: false })
      .bindTooltip(`${beaconfix.escape(beacon.label || '')} ${beacon.id}<br>${beacon.status}` +
        (beacon.replaced_by ? ' by ' + beacon.replaced_by : ''))
      .addTo(layers.beacons);
  }
}

// --- Live devices ----------------------------------------------------------------------------------

function showDevicesOfFloor() {
  for (const device of state.devices.values()) {
    const here = device.floor === state.floor;
    for (const layer of [device.marker, device.circle, device.trail]) {
      if (here && !layers.devices.hasLayer(layer)) layers.devices.addLayer(layer);
      if (!here && layers.devices.hasLayer(layer)) layers.devices.removeLayer(layer);
    }
  }
}

function updateDevice(message) {
  const position = message.position;
  const at = point(position.x, position.y);
  let device = state.devices.get(message.device);
  if (!device) {
    device = {
      marker: L.marker(at, { icon: L.divIcon({ className: 'device-icon', iconSize: [14, 14] }), zIndexOffset: 1000 })
        .bindTooltip(beaconfix.escape(message.device), { permanent: true, direction: 'right', offset: [8, 0] }),
      circle: L.circle(at, { radius: position.accuracy_m, color: '#b0179c', weight: 1, fillOpacity: 0.08, interactive: false }),
      trail: L.polyline([], { color: '#b0179c', weight: 2, opacity: 0.5, interactive: false }),
      points: [],
    };
    state.devices.set(message.device, device);
  }
  if (device.floor !== position.floor) device.points = [];
  device.floor = position.floor;
  device.position = position;
  device.zone = message.zone;
  device.points.push(at);
  if (device.points.length > TRAIL_LENGTH) device.points.shift();
  device.marker.setLatLng(at);
  device.circle.setLatLng(at).setRadius(position.accuracy_m);
  device.trail.setLatLngs(device.points);
  showDevicesOfFloor();
  listDevices();
}

function listDevices() {
  const list = document.getElementById('devices');
  list.replaceChildren();
  for (const [id, device] of [...state.devices.entries()].sort()) {
    const floor = state.venue.floors.find((candidate) => candidate.level === device.floor);
    list.append(beaconfix.text('li', `${id}: ${device.position.spot}${device.zone ? ' · ' + device.zone : ''}` +
      ` (${floor ? floor.name : 'floor ' + device.floor}, ±${device.position.accuracy_m.toFixed(1)} m)`));
  }
  document.getElementById('device-count').textContent = String(state.devices.size);
  document.body.dataset.devices = String(state.devices.size);
}

function zoneEvent(message) {
  const time = new Date(message.time * 1000).toLocaleTimeString();
  const verb = message.event === 'enter' ? 'entered' : 'left';
  const events = document.getElementById('events');
  events.prepend(beaconfix.text('li', `${time} ${message.device} ${verb} ${message.zone}`, message.event));
  while (events.children.length > 50) events.lastChild.remove();
  const device = state.devices.get(message.device);
  if (device && message.event === 'enter') {
    device.marker.unbindTooltip().bindTooltip(`${beaconfix.escape(message.device)} → ${beaconfix.escape(message.zone)}`, { permanent: true, direction: 'right', offset: [8, 0], className: 'zone-flash' });
    setTimeout(() => device.marker.unbindTooltip().bindTooltip(beaconfix.escape(message.device), { permanent: true, direction: 'right', offset: [8, 0] }), 3000);
  }
}

// The venue-wide feed, opened with a single-use ticket; reopened with a new one when it closes.
async function openFeed(delay = 1000) {
  let ticket;
  try {
    ticket = (await beaconfix.api('/v1/venues/' + encodeURIComponent(venueID) + '/live/tickets', { method: 'POST' })).ticket;
  } catch (error) {
    setStatus('Live feed unavailable: ' + error.message + '; retrying');
    setTimeout(() => openFeed(Math.min(delay * 2, 30000)), delay);
    return;
  }
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/v1/venues/${encodeURIComponent(venueID)}/live?ticket=${encodeURIComponent(ticket)}`);
  state.socket = socket;
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    switch (message.type) {
      case 'subscribed':
        setStatus('');
        delay = 1000;
        break;
      case 'position':
        updateDevice(message);
        break;
      case 'zone':
        zoneEvent(message);
        break;
      case 'revision':
        loadVenue().catch(fail);
        break;
    }
  };
  socket.onclose = (event) => {
    setStatus('Live feed closed' + (event.reason ? ': ' + event.reason : '') + '; reconnecting');
    setTimeout(() => openFeed(Math.min(delay * 2, 30000)), delay);
  };
}

function fail(error) {
  state.errors.push(String(error.message || error));
  setStatus(error.status === 404 ? `There is no venue '${venueID}'.` : 'Error: ' + (error.message || error));
}

(async () => {
  try {
    await loadVenue();
    state.ready = true;
    document.body.dataset.ready = 'true';
    openFeed();
  } catch (error) {
    fail(error);
  }
})();
