// The live map of /venues/{venue}/map: Leaflet in venue metres (CRS.Simple; a point is [y, x]), one floor
// at a time. It draws the floor plan (when the venue has one) under a metric grid, the zones, the spots
// coloured by survey coverage or, once the venue is tuned, by cross-validation error, the beacons by their health from live traffic (healthy, silent, shifted), and the live devices from the venue's WebSocket feed
// (dot, 68% uncertainty ellipse, short trail, zone events). A revision message redraws the venue without a reload.
// With an admin key it also labels each zone with the devices present in it now (the presence analytics,
// polled) and can lay a heatmap of the floor over a past period under the spots (the heatmap analytics).
//
// With ?session=ID (an open survey session of the venue) it also draws what the session holds: each spot a
// sample stands at, coloured by the thin-spot rule on the session's samples, and the path the samples trace,
// updated from the live feed as each batch is stored.
//
// window.beaconfixMap exposes the page's state (devices, floor, presence, heatmap, health, ready, errors) for tests
// and curious people.
'use strict';

const TRAIL_LENGTH = 20;
// Error colouring: a spot whose fingerprints, located with the spot left out, land within ERROR_GOOD_M on
// average is green, ERROR_BAD_M or more red, in between a blend (the legend shows these numbers). With its
// own fingerprints gone a spot can only be placed from its neighbours, so these errors are of the order of
// the spacing of spots (3 to 5 m in usual surveys; demo-hall's 4.75 m gives 2.7 to 12 m): 3 m is between
// neighbours done well, 9 m is a phone placed beyond them.
const ERROR_GOOD_M = 3;
const ERROR_BAD_M = 9;
// Presence: the devices seen within PRESENCE_WINDOW_S seconds, by zone, asked for every PRESENCE_POLL_MS (an
// aggregate of the venue, so cheap to poll; the feed's positions alone cannot say who left quietly).
const PRESENCE_WINDOW_S = 300;
const PRESENCE_POLL_MS = 5000;
// The heatmap is asked for again this often while it is shown (its last hour fills up as people move).
const HEATMAP_REFRESH_MS = 60000;
const venueID = decodeURIComponent(location.pathname.split('/')[2] || '');
const surveySessionID = new URLSearchParams(location.search).get('session');
const state = {
  venue: null,
  coverage: null,
  // Beacon id → its health from live traffic (GET .../beacons), empty when the key may not read it.
  health: new Map(),
  floor: null,
  // What the spots' colours say: 'coverage' or 'error' (cross-validation, once the venue is tuned).
  colourBy: 'coverage',
  // device id → {floor, position, marker, outline, trail, zone}
  devices: new Map(),
  ready: false,
  socket: null,
  errors: [],
  // The object URL of the plan shown.
  planURL: null,
  // zone name → its outline on the floor shown (the polygon its presence label goes on).
  zoneOutlines: new Map(),
  // The newest presence answer ({at, total, outside, zones: zone name → devices}); null until one came.
  // denied: the key may not read analytics (403), so the page stopped asking.
  presence: null,
  presenceDenied: false,
  presenceBusy: false,
  presenceTimer: null,
  // on and period (seconds back from now) as the controls say; report: the answer drawn; request counts
  // the requests made, so that a late answer (for a floor or period no longer shown) is dropped.
  heatmap: { on: false, period: 86400, report: null, request: 0, timer: null, denied: false },
  // The survey session shown (?session=ID): its state, spot name → coverage, and its samples' places.
  survey: surveySessionID ? { session: null, spots: new Map(), path: [], loading: false, waiting: [] } : null,
};
window.beaconfixMap = state;

const map = L.map('map', { crs: L.CRS.Simple, minZoom: -3, maxZoom: 6, zoomSnap: 0.25, attributionControl: false });
// The heatmap lies over the plan but under the grid, zones, spots and devices (the overlay pane, 400): the
// plan goes in a pane of its own below it.
map.createPane('plan').style.zIndex = 300;
map.createPane('heat').style.zIndex = 350;
const layers = {
  plan: L.layerGroup().addTo(map),
  heat: L.layerGroup().addTo(map),
  grid: L.layerGroup().addTo(map),
  zones: L.layerGroup().addTo(map),
  spots: L.layerGroup().addTo(map),
  beacons: L.layerGroup().addTo(map),
  devices: L.layerGroup().addTo(map),
  survey: L.layerGroup().addTo(map),
};
L.control.layers(null, {
  'Floor plan': layers.plan, 'Grid (metres)': layers.grid, Zones: layers.zones, Spots: layers.spots,
  Beacons: layers.beacons, Devices: layers.devices, 'Survey session': layers.survey,
}, { collapsed: true }).addTo(map);

function setStatus(text) {
  document.getElementById('status').textContent = text;
}

function point(x, y) {
  return L.latLng(y, x);
}

// --- The venue: floors, plan, grid, zones, spots, beacons --------------------------------------------

async function loadVenue() {
  const [venue, coverage, health] = await Promise.all([
    beaconfix.api('/v1/venues/' + encodeURIComponent(venueID)),
    beaconfix.api('/v1/venues/' + encodeURIComponent(venueID) + '/coverage'),
    beaconHealth(),
  ]);
  state.venue = venue;
  state.coverage = coverage;
  state.health = health;
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
  for (const name of ['plan', 'heat', 'grid', 'zones', 'spots', 'beacons']) layers[name].clearLayers();
  const bounds = floorBounds();
  await drawPlan(bounds);
  drawGrid(bounds);
  drawZones();
  drawSpots();
  drawBeacons();
  drawSurvey();
  showDevicesOfFloor();
  if (fit) map.fitBounds(bounds);
  document.body.dataset.floor = String(state.floor);
  refreshHeatmap();
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
    L.imageOverlay(url, planBounds(plan), { className: 'floor-plan', opacity: 0.9, pane: 'plan' }).addTo(layers.plan);
  } else {
    L.svgOverlay(rotatedPlan(url, plan), planBounds(plan), { className: 'floor-plan', opacity: 0.9, pane: 'plan' }).addTo(layers.plan);
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
// Each shows its name on hover until presence counts come, then a permanent label with its count.
function drawZones() {
  state.zoneOutlines.clear();
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
    const layer = L.polygon(polygon.map(([x, y]) => point(x, y)), { color: '#176b2c', weight: 1.5, dashArray: '6 4', fillOpacity: 0.04, className: 'zone' })
      .bindTooltip(beaconfix.escape(zone), { sticky: true })
      .addTo(layers.zones);
    state.zoneOutlines.set(zone, layer);
  }
  labelZones();
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

// The beacons' health from live traffic (GET .../beacons): id → its state, offset and evidence. A page
// whose key may not read it draws the beacons by their survey status alone.
async function beaconHealth() {
  try {
    const report = await beaconfix.api('/v1/venues/' + encodeURIComponent(venueID) + '/beacons');
    return new Map(report.beacons.map((beacon) => [beacon.id, beacon]));
  } catch (error) {
    if (error.status === 403) return new Map();
    throw error;
  }
}

// A beacon state changed (live feed): the health is read again and the beacons redrawn.
async function beaconChanged() {
  state.health = await beaconHealth();
  layers.beacons.clearLayers();
  drawBeacons();
}

function drawBeacons() {
  for (const beacon of state.coverage.beacons.filter((beacon) => beacon.floor === state.floor && beacon.x !== undefined)) {
    const health = beacon.status === 'active' ? state.health.get(beacon.id) : undefined;
    // An active beacon is drawn by its health (healthy, silent, shifted, insufficient_evidence); others by status.
    const className = health ? 'health-' + health.state : beacon.status;
    const icon = L.divIcon({ className: 'beacon-icon ' + className, iconSize: [12, 12] });
    let tooltip = `${beaconfix.escape(beacon.label || '')} ${beacon.id}<br>${beacon.status}` +
      (beacon.replaced_by ? ' by ' + beacon.replaced_by : '');
    if (health) {
      tooltip += `, ${health.state.replace('_', ' ')}` + (health.since ? ' since ' + new Date(health.since).toLocaleString() : '') +
        (health.offset_db !== undefined ? `<br>heard ${health.offset_db.toFixed(1)} dB against the survey` : '') +
        (health.held ? '<br>held by ops: matching leaves it as surveyed' : '') +
        `<br>heard in ${health.evidence.heard_where_expected} of ${health.evidence.expected_samples} samples where expected` +
        (health.evidence.last_heard ? ', last ' + new Date(health.evidence.last_heard).toLocaleString() : '');
    }
    L.marker(point(beacon.x, beacon.y), { icon, keyboard: false, title: beacon.label || beacon.id })
      .bindTooltip(tooltip)
      .addTo(layers.beacons);
  }
}

// --- Presence: devices in each zone now ---------------------------------------------------------------

// Puts each zone's count in a permanent label at its centre ("Bar · 3"); a zone nobody is in shows 0.
function labelZones() {
  if (!state.presence) return;
  for (const [zone, outline] of state.zoneOutlines) {
    const devices = state.presence.zones.get(zone) || 0;
    const label = `${beaconfix.escape(zone)} · ${devices}`;
    const tooltip = outline.getTooltip();
    if (tooltip && tooltip.options.permanent) {
      outline.setTooltipContent(label);
    } else {
      outline.unbindTooltip().bindTooltip(label, { permanent: true, direction: 'center', className: 'zone-count' });
    }
    const element = outline.getTooltip().getElement();
    if (element) {
      element.dataset.zone = zone;
      element.dataset.devices = String(devices);
    }
  }
}

function showPresence(report) {
  state.presence = {
    at: report.at, total: report.total, outside: report.outside,
    zones: new Map(report.zones.map((entry) => [entry.zone, entry.devices])),
  };
  document.getElementById('presence-total').textContent = String(report.total);
  const note = document.getElementById('presence-note');
  note.hidden = true;
  note.textContent = '';
  document.getElementById('presence-detail').textContent = `Devices seen in the last ${formatDuration(report.window)}: ` +
    `${report.total - report.outside} in a zone (counted on the map's zones), ${report.outside} outside every zone.`;
  labelZones();
  document.body.dataset.presenceAt = String(report.at);
}

function presenceNote(text) {
  const note = document.getElementById('presence-note');
  note.textContent = text;
  note.hidden = false;
}

// Asks for presence now and then every PRESENCE_POLL_MS while the tab is shown (a hidden tab stops, and
// asks again when shown); a 403 (a key of scope locate) stops it for good, saying so, and any other failure
// is shown and retried: the rest of the page goes on either way.
async function pollPresence() {
  clearTimeout(state.presenceTimer);
  // A request on its way schedules the next one itself.
  if (state.presenceDenied || state.presenceBusy || document.hidden) return;
  state.presenceBusy = true;
  try {
    showPresence(await beaconfix.api(`/v1/venues/${encodeURIComponent(venueID)}/analytics/presence?window=${PRESENCE_WINDOW_S}`));
  } catch (error) {
    if (error.status === 403) {
      state.presenceDenied = true;
      document.getElementById('presence-total').textContent = '';
      document.getElementById('presence-detail').hidden = true;
      presenceNote('Presence counts need an admin key: the key in use may only locate.');
      document.body.dataset.presence = 'denied';
    } else {
      presenceNote('Presence unavailable: ' + error.message + '; retrying.');
    }
  } finally {
    state.presenceBusy = false;
  }
  if (!state.presenceDenied) state.presenceTimer = setTimeout(pollPresence, PRESENCE_POLL_MS);
}

document.addEventListener('visibilitychange', () => {
  if (state.ready) pollPresence();
});

// --- Heatmap: where devices spent their time over a period -------------------------------------------

// Seconds as people read them: 45 s, 12 min 5 s, 3 h 20 min.
function formatDuration(seconds) {
  const total = Math.round(seconds);
  if (total < 60) return total + ' s';
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return minutes + ' min' + (total % 60 ? ` ${total % 60} s` : '');
  return Math.floor(minutes / 60) + ' h' + (minutes % 60 ? ` ${minutes % 60} min` : '');
}

// The heat scale: a cell's share of the busiest cell's seconds, from pale yellow (little) to deep red.
function heatStyle(share) {
  return { fillColor: `hsl(${Math.round(55 * (1 - share))}, 90%, 48%)`, fillOpacity: 0.2 + 0.55 * share };
}

// Squares of 1 m, coarser on floors wider than 100 m so that a floor is at most about 100 squares across.
function heatCellSize() {
  const bounds = floorBounds();
  const span = Math.max(bounds.getEast() - bounds.getWest(), bounds.getNorth() - bounds.getSouth());
  return Math.min(100, Math.max(1, Math.ceil(span / 100)));
}

function heatmapSummary(text) {
  document.getElementById('heatmap-summary').textContent = text;
}

// Asks for the heatmap of the floor shown over the chosen period (when it is on), and again every
// HEATMAP_REFRESH_MS; off, it is cleared. Only the newest request's answer is drawn.
async function refreshHeatmap() {
  const heat = state.heatmap;
  clearTimeout(heat.timer);
  const request = ++heat.request;
  if (!heat.on || heat.denied || !state.venue) {
    layers.heat.clearLayers();
    heat.report = null;
    document.getElementById('heatmap-scale').hidden = true;
    if (!heat.denied) heatmapSummary('Time devices spent in each square of the floor shown.');
    document.body.dataset.heatmap = heat.denied ? 'denied' : 'off';
    return;
  }
  const floor = state.floor;
  const to = Math.ceil(Date.now() / 1000);
  const query = new URLSearchParams({ floor: String(floor), cell: String(heatCellSize()), from: String(to - heat.period), to: String(to) });
  document.body.dataset.heatmap = 'loading';
  try {
    const report = await beaconfix.api(`/v1/venues/${encodeURIComponent(venueID)}/analytics/heatmap?${query}`);
    if (request !== heat.request) return;
    heat.report = report;
    drawHeatmap();
  } catch (error) {
    if (request !== heat.request) return;
    if (error.status === 403) {
      heat.denied = true;
      heat.on = false;
      const toggle = document.getElementById('heatmap-on');
      toggle.checked = false;
      toggle.disabled = true;
      document.getElementById('heatmap-period').disabled = true;
      heatmapSummary('The heatmap needs an admin key: the key in use may only locate.');
      refreshHeatmap();
      return;
    }
    heatmapSummary('Heatmap unavailable: ' + error.message + '; retrying.');
    document.body.dataset.heatmap = 'failed';
  }
  heat.timer = setTimeout(refreshHeatmap, HEATMAP_REFRESH_MS);
}

// Each cell a square in venue metres, coloured and opaque by its seconds against the busiest cell's.
function drawHeatmap() {
  layers.heat.clearLayers();
  const report = state.heatmap.report;
  if (!report || report.floor !== state.floor) return;
  for (const cell of report.cells) {
    const share = report.max_s > 0 ? cell.seconds / report.max_s : 0;
    L.rectangle(L.latLngBounds(point(cell.x, cell.y), point(cell.x + report.cell_m, cell.y + report.cell_m)),
      Object.assign({ pane: 'heat', stroke: false, interactive: false, className: 'heat-cell' }, heatStyle(share)))
      .addTo(layers.heat);
  }
  // The period asked for, widened by the daemon to whole hours: the answer says which.
  const floor = state.venue.floors.find((candidate) => candidate.level === report.floor);
  const from = new Date(report.from * 1000), to = new Date(report.to * 1000);
  const time = { hour: '2-digit', minute: '2-digit' }, day = { month: 'short', day: 'numeric' };
  const period = from.toDateString() === to.toDateString()
    ? `${from.toLocaleTimeString([], time)} to ${to.toLocaleTimeString([], time)}`
    : `${from.toLocaleDateString([], day)} ${from.toLocaleTimeString([], time)} to ${to.toLocaleDateString([], day)} ${to.toLocaleTimeString([], time)}`;
  heatmapSummary(`${formatDuration(report.total_s)} of device time on ${floor ? floor.name : 'floor ' + report.floor}, ${period}` +
    (report.cells.length ? ` (${report.cells.length} squares of ${report.cell_m} m).` : ': nobody was seen.'));
  document.getElementById('heatmap-max').textContent = formatDuration(report.max_s);
  document.getElementById('heatmap-scale').hidden = report.cells.length === 0;
  document.body.dataset.heatmap = 'shown';
  document.body.dataset.heatCells = String(report.cells.length);
}

{
  const toggle = document.getElementById('heatmap-on');
  const period = document.getElementById('heatmap-period');
  // A reload may restore the controls as they were: start from what they show.
  state.heatmap.on = toggle.checked;
  state.heatmap.period = Number(period.value);
  toggle.onchange = () => {
    state.heatmap.on = toggle.checked;
    refreshHeatmap();
  };
  period.onchange = () => {
    state.heatmap.period = Number(period.value);
    refreshHeatmap();
  };
}

// --- Live devices ----------------------------------------------------------------------------------

function showDevicesOfFloor() {
  for (const device of state.devices.values()) {
    const here = device.floor === state.floor;
    for (const layer of [device.marker, device.outline, device.trail]) {
      if (here && !layers.devices.hasLayer(layer)) layers.devices.addLayer(layer);
      if (!here && layers.devices.hasLayer(layer)) layers.devices.removeLayer(layer);
    }
  }
}

// sqrt(−2 ln 0.32): a 2-D Gaussian holds 68% of its mass inside this many of its standard ellipses.
const ELLIPSE_68 = Math.sqrt(-2 * Math.log(0.32));

// The position's 68% ellipse, as the polygon the map draws: its covariance (`covariance_m2`, scaled by the
// server so that the ellipse's round equivalent is accuracy_m) through its Cholesky factor; a circle of
// accuracy_m when the answer carries no covariance.
function uncertaintyOutline(position) {
  const round = (position.accuracy_m / 1.0675) ** 2 / 2;
  const covariance = position.covariance_m2 || { xx: round, xy: 0, yy: round };
  const a = Math.sqrt(Math.max(covariance.xx, 0));
  const b = a > 0 ? covariance.xy / a : 0;
  const d = Math.sqrt(Math.max(covariance.yy - b * b, 0));
  const outline = [];
  for (let step = 0; step < 48; step++) {
    const angle = (2 * Math.PI * step) / 48, u = Math.cos(angle), v = Math.sin(angle);
    outline.push(point(position.x + ELLIPSE_68 * a * u, position.y + ELLIPSE_68 * (b * u + d * v)));
  }
  return outline;
}

function updateDevice(message) {
  const position = message.position;
  const at = point(position.x, position.y);
  let device = state.devices.get(message.device);
  if (!device) {
    device = {
      marker: L.marker(at, { icon: L.divIcon({ className: 'device-icon', iconSize: [14, 14] }), zIndexOffset: 1000 })
        .bindTooltip(beaconfix.escape(message.device), { permanent: true, direction: 'right', offset: [8, 0] }),
      outline: L.polygon(uncertaintyOutline(position), {
        className: 'device-uncertainty', color: '#b0179c', weight: 1, fillOpacity: 0.08, interactive: false,
      }),
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
  device.outline.setLatLngs(uncertaintyOutline(position));
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

// --- A survey session: its spots and path, live ----------------------------------------------------

// Read when the page opens and again each time the feed (re)subscribes, so that nothing stored while it was
// closed is missing; batches the feed brings meanwhile wait, and those the answer already holds are skipped.
async function loadSurvey() {
  state.survey.loading = true;
  state.survey.waiting = [];
  try {
    const coverage = await beaconfix.api('/v1/venues/' + encodeURIComponent(venueID) + '/survey/sessions/' +
      encodeURIComponent(surveySessionID) + '/coverage').catch((error) => {
      throw error.status === 404 ? new Error(`there is no survey session '${surveySessionID}' of this venue`) : error;
    });
    state.survey.session = coverage.session;
    state.survey.spots = new Map(coverage.spots.map((spot) => [spot.spot, spot]));
    state.survey.path = coverage.path;
  } finally {
    state.survey.loading = false;
  }
  document.getElementById('survey').hidden = false;
  for (const message of state.survey.waiting) surveyBatch(message);
  state.survey.waiting = [];
  drawSurvey();
}

// A survey message of the feed: one stored batch of the session (its spots' coverage over the whole session).
function surveyBatch(message) {
  if (!state.survey || message.session.id !== surveySessionID) return;
  if (state.survey.loading) {
    state.survey.waiting.push(message);
    return;
  }
  // The batches count up one by one: a message the loaded coverage already holds is skipped.
  if (!state.survey.session || message.session.batches <= state.survey.session.batches) return;
  // A walk's new checkpoint can place samples of earlier batches, and a message relayed from another
  // replica may come without its spots and path: the coverage is then read again whole.
  if (message.session.walk || message.partial) {
    loadSurvey().catch(fail);
    return;
  }
  state.survey.session = message.session;
  for (const spot of message.spots) state.survey.spots.set(spot.spot, spot);
  state.survey.path.push(...message.path);
  drawSurvey();
}

function drawSurvey() {
  if (!state.survey || !state.survey.session) return;
  layers.survey.clearLayers();
  const onFloor = state.survey.path.filter((step) => step.floor === state.floor);
  L.polyline(onFloor.map((step) => point(step.x, step.y)), {
    className: 'survey-path', color: '#1f6fd1', weight: 2, opacity: 0.7, interactive: false,
  }).addTo(layers.survey);
  const spots = [...state.survey.spots.values()];
  for (const spot of spots.filter((candidate) => candidate.floor === state.floor)) {
    L.circleMarker(point(spot.x, spot.y), {
      radius: 8, color: spot.thin ? '#d6452f' : '#2e9d4c', weight: 3, fill: false,
      className: 'survey-spot' + (spot.thin ? ' thin' : ''),
    }).bindTooltip(`${beaconfix.escape(spot.spot)}: ${spot.samples} samples in this session, ${spot.median_beacons} beacons each` +
      (spot.thin ? '<br><b>thin: record again</b>' : '')).addTo(layers.survey);
  }
  const session = state.survey.session;
  const thin = spots.filter((spot) => spot.thin).length;
  document.getElementById('survey-summary').textContent =
    `${session.id} (${session.state}${session.operator ? ', ' + session.operator : ''}): ${session.samples} samples in ` +
    `${session.batches} batches at ${spots.length} spots, ${thin} thin` +
    (session.walk ? `; a walk with ${session.checkpoints} checkpoints (samples after the last one are placed when the next comes).` : '.');
  Object.assign(document.body.dataset, {
    surveySamples: String(session.samples), surveySpots: String(spots.length), surveyThin: String(thin),
    surveyPath: String(state.survey.path.length),
  });
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
        if (state.survey) loadSurvey().catch(fail);
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
      case 'survey':
        surveyBatch(message);
        break;
      case 'beacon':
        beaconChanged().catch(fail);
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
    if (state.survey) await loadSurvey();
    state.ready = true;
    document.body.dataset.ready = 'true';
    openFeed();
    pollPresence();
  } catch (error) {
    fail(error);
  }
})();
