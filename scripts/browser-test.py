"""The live map in headless Chromium (run by scripts/browser-test.sh, which starts positiond).

Environment: BASE (positiond's URL), KEY (an admin API key), WALK (the demo walk, JSON Lines), SHOT (where
the screenshot goes), SURVEY, DB and PLAN (the survey binary, positiond's database and a plan image, to place
a plan at an angle while the page is open, and to create a key of scope locate). Prints one line per check
and exits 1 when any fails.
"""
import json
import math
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

BASE, KEY, WALK, SHOT = (os.environ[name] for name in ("BASE", "KEY", "WALK", "SHOT"))
failures = []


def check(name, passed, detail=""):
    print(("PASS" if passed else "FAIL") + f": {name}" + (f" ({detail})" if detail else ""))
    if not passed:
        failures.append(name)


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return condition()


def post_samples(device, lines, times=None):
    """Tracked samples of `device`, one request per walk line, as a phone posts them: at the walk's times,
    or at `times` (one a line)."""
    for index, line in enumerate(lines):
        sample = {key: line[key] for key in ("t", "beacons")}
        if times is not None:
            sample["t"] = times[index]
        body = json.dumps({"samples": [sample]}).encode()
        request = urllib.request.Request(
            f"{BASE}/v1/venues/demo-hall/devices/{device}/samples", data=body, method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200, response.status


def api(path, key=KEY):
    """GET an API route with `key`: (status, JSON body or None)."""
    request = urllib.request.Request(f"{BASE}{path}", headers={"Authorization": f"Bearer {key}", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def api_send(method, path, body=None, key=KEY):
    """A JSON request to an API route with `key`; the answer's JSON (a refusal raises)."""
    request = urllib.request.Request(
        f"{BASE}{path}", data=None if body is None else json.dumps(body).encode(), method=method,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def zone_labels():
    """The zones' presence labels on the map ("Bar · 3"), as {zone: devices}."""
    labels = driver.execute_script(
        "return [...document.querySelectorAll('.leaflet-tooltip.zone-count')].map(tip => tip.textContent)")
    counts = {}
    for label in labels:
        zone, _, devices = label.rpartition(" · ")
        counts[zone] = int(devices) if devices.isdigit() else devices
    return counts


options = Options()
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860",
                 "--disable-gpu", "--no-first-run", "--disable-extensions"):
    options.add_argument(argument)
options.binary_location = "/usr/bin/chromium"
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
try:
    # The venue list asks for the key, then lists demo-hall.
    driver.get(f"{BASE}/")
    dialog = wait_for(lambda: driver.find_element(By.ID, "key-dialog").is_displayed(), 5)
    check("the venue list asks for an API key", bool(dialog))
    driver.find_element(By.CSS_SELECTOR, "#key-dialog input").send_keys(KEY)
    driver.find_element(By.CSS_SELECTOR, "#key-dialog button").click()
    link = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#venues a"), 5)
    check("the venue list shows demo-hall", bool(link) and link[0].get_attribute("href").endswith("/venues/demo-hall/map"))

    # The map: the key is kept for the tab, so the page does not ask again.
    driver.get(f"{BASE}/venues/demo-hall/map")
    ready = wait_for(lambda: driver.execute_script("return document.body.dataset.ready === 'true'"), 10)
    check("the map page loads the venue with the kept key", bool(ready),
          driver.find_element(By.ID, "status").text)
    spots = len(driver.find_elements(By.CSS_SELECTOR, "path.spot"))
    beacons = len(driver.find_elements(By.CSS_SELECTOR, ".beacon-icon"))
    zones = len(driver.find_elements(By.CSS_SELECTOR, "path.zone"))
    # demo-hall's ground floor has three rooms drawn as zone polygons: Entrance, Main hall, Bar.
    check("spots, beacons and zones are drawn", spots > 0 and beacons > 0 and zones == 3,
          f"{spots} spots, {beacons} beacons, {zones} zone outlines")
    wait_for(lambda: driver.find_element(By.ID, "status").text == "", 5)

    # Three phones walk: their markers appear within 5 s of their samples.
    with open(WALK) as walk:
        lines = [json.loads(line) for line in walk if line.strip()]
    started = time.monotonic()
    for index, device in enumerate(("phone-a", "phone-b", "phone-c")):
        post_samples(device, lines[index * 5:index * 5 + 5])
    markers = wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, ".device-icon")) >= 3, 5)
    elapsed = time.monotonic() - started
    count = len(driver.find_elements(By.CSS_SELECTOR, ".device-icon"))
    check("three live markers appear within 5 s", bool(markers) and count == 3, f"{count} markers after {elapsed:.2f} s")
    # Each phone's dot has its 68% ellipse, drawn from the answer's covariance: a closed outline around the
    # marker, as wide as the answer's accuracy_m says (its area is that of the ellipse, pi·k²·sqrt(det)).
    outlines = driver.execute_script("""
        return [...window.beaconfixMap.devices.values()].map(device => {
            const c = device.position.covariance_m2, points = device.outline.getLatLngs()[0];
            return {covariance: !!c, points: points.length, drawn: !!device.outline._path && device.outline._path.isConnected,
                    accuracy: device.position.accuracy_m,
                    spanX: Math.max(...points.map(p => p.lng)) - Math.min(...points.map(p => p.lng)),
                    spanY: Math.max(...points.map(p => p.lat)) - Math.min(...points.map(p => p.lat))};
        })""")
    sane = len(outlines) == 3 and all(
        o["covariance"] and o["points"] == 48 and o["drawn"] and 0.5 * o["accuracy"] < max(o["spanX"], o["spanY"]) < 6 * o["accuracy"]
        for o in outlines)
    check("each phone's dot has its covariance ellipse", sane,
          ", ".join(f"{o['spanX']:.1f} x {o['spanY']:.1f} m for accuracy {o['accuracy']:.1f} m" for o in outlines))
    events = driver.find_elements(By.CSS_SELECTOR, "#events li")
    check("zone entries are listed as they happen", len(events) >= 3, f"{len(events)} events")

    # Beacon health: a phone walks the ground floor with beacon G7 (1:7) dead (the walk's first 63 samples, so
    # that it stays on the floor the next checks leave devices on). positiond names G7 silent from the walk's
    # samples; the live feed's beacon message makes the page redraw it in the silent colour, the beacons it
    # heard in the healthy one.
    ground = [line for line in lines[:63] if line["floor"] == 0]
    post_samples("walker-g7", [dict(line, beacons=[b for b in line["beacons"] if (b["major"], b["minor"]) != (1, 7)]) for line in ground])
    silent = wait_for(lambda: driver.execute_script(
        "return [...document.querySelectorAll('.beacon-icon.health-silent')].map(icon => icon.title)"), 20)
    healthy = len(driver.find_elements(By.CSS_SELECTOR, ".beacon-icon.health-healthy"))
    state_of_g7 = driver.execute_script(
        "const g7 = [...window.beaconfixMap.health.values()].find(beacon => beacon.label === 'G7'); return g7 && g7.state")
    check("a dead beacon is drawn silent once positiond names it, the others healthy",
          silent == ["G7"] and healthy > 0 and state_of_g7 == "silent", f"silent {silent}, {healthy} healthy, G7 {state_of_g7}")
    driver.save_screenshot(SHOT)
    print(f"screenshot: {SHOT}")

    # Presence: the walk's times are days old, so those three phones are not present now. Three visitors
    # post samples timed now (two bursts 20 s apart, so that their trace also credits heatmap seconds): one
    # at the entrance, two in the bar. Once the history writer has stored them (about a second) the next
    # poll (every 5 s) labels each zone of the floor with the visitors the live feed put in it.
    now = int(time.time())
    times = [now - 25 + index for index in range(5)] + [now - 5 + index for index in range(5)]
    visitors = {"visitor-1": lines[0:5], "visitor-2": lines[55:60], "visitor-3": lines[60:65]}
    for device, burst in visitors.items():
        post_samples(device, burst + burst, times)
    wait_for(lambda: driver.execute_script(
        "return arguments[0].every(id => window.beaconfixMap.devices.has(id))", list(visitors)), 5)
    live_zones = driver.execute_script(
        "return arguments[0].map(id => (window.beaconfixMap.devices.get(id) || {}).zone || null)", list(visitors))
    floor_zones = driver.execute_script(
        "return window.beaconfixMap.coverage.zones.filter(zone => zone.floor === window.beaconfixMap.floor).map(zone => zone.name)")
    in_zones = Counter(zone for zone in live_zones if zone)
    expected = {zone: in_zones.get(zone, 0) for zone in floor_zones}
    labelled = wait_for(lambda: zone_labels() == expected, 12)
    status, presence = api("/v1/venues/demo-hall/analytics/presence")
    total = driver.find_element(By.ID, "presence-total").text
    check("the zones are labelled with the devices present in them",
          bool(labelled) and sum(expected.values()) == len(visitors) and total == str(len(visitors)),
          f"labels {zone_labels()}, live zones of the visitors {dict(zip(visitors, live_zones))}, panel total {total}; "
          f"presence answered {status}: {presence}")

    # The heatmap of the last hour: the visitors' trace gives the floor's cells some seconds; each is drawn.
    Select(driver.find_element(By.ID, "heatmap-period")).select_by_value("3600")
    driver.find_element(By.ID, "heatmap-on").click()
    drawn = wait_for(lambda: driver.execute_script(
        "return document.body.dataset.heatmap === 'shown' && document.querySelectorAll('path.heat-cell').length"), 5)
    report = driver.execute_script("return window.beaconfixMap.heatmap.report")
    summary = driver.find_element(By.ID, "heatmap-summary").text
    check("turning the heatmap on draws its cells and the total device time",
          bool(drawn) and report is not None and drawn == len(report["cells"]) and report["total_s"] > 0
          and "of device time" in summary,
          f"{drawn or 0} cell rectangles; total {report and report['total_s']} s, max {report and report['max_s']} s; {summary!r}")

    # The floor switcher swaps the floor: its spots (and its plan, when the venue has plans).
    before = driver.execute_script("return [document.body.dataset.plan || '', document.querySelectorAll('path.spot').length]")
    buttons = driver.find_elements(By.CSS_SELECTOR, "#floors button")
    first_level, second_level = (button.get_attribute("data-level") for button in buttons[:2])
    buttons[1].click()
    switched = wait_for(lambda: driver.execute_script("return document.body.dataset.floor") == second_level, 5)
    after = driver.execute_script("return [document.body.dataset.plan || '', document.querySelectorAll('path.spot').length]")
    spots_after = driver.find_elements(By.CSS_SELECTOR, "path.spot")
    expected = driver.execute_script(
        f"return window.beaconfixMap.coverage.spots.filter(spot => spot.floor === {second_level}).length")
    moved = len(spots_after) == expected > 0 and all(
        f"floor-{second_level}" in spot.get_attribute("class").split() for spot in spots_after)
    plan_swapped = bool(before[0]) and bool(after[0]) and before[0] != after[0]
    plans = len(driver.find_elements(By.CSS_SELECTOR, "img.floor-plan"))
    check("switching floors swaps the floor's spots and plan", bool(switched) and moved and plan_swapped,
          f"{before[1]} spots on the first floor, {after[1]} on the second; plan {before[0]} then {after[0]}, {plans} shown")
    hidden = len(driver.find_elements(By.CSS_SELECTOR, ".device-icon"))
    check("devices on another floor are hidden", hidden == 0, f"{hidden} markers shown on the second floor")
    followed = wait_for(lambda: driver.execute_script(
        "const report = window.beaconfixMap.heatmap.report; return document.body.dataset.heatmap === 'shown' && report"
        f" && report.floor === {second_level} && document.querySelectorAll('path.heat-cell').length === report.cells.length"), 5)
    floor_zones = driver.execute_script(f"return window.beaconfixMap.coverage.zones.filter(zone => zone.floor === {second_level}).map(zone => zone.name)")
    # Leaflet fades a removed label out for 200 ms before taking it off the page: the first floor's labels
    # may still be there just after the switch, so the check waits for them to go.
    wait_for(lambda: sorted(zone_labels()) == sorted(floor_zones), 5)
    labels = zone_labels()
    check("the heatmap and the zone labels follow the floor", bool(followed) and sorted(labels) == sorted(floor_zones),
          f"heatmap {driver.execute_script('return document.body.dataset.heatmap')}, labels {labels}")
    driver.find_element(By.CSS_SELECTOR, f"#floors button[data-level='{first_level}']").click()
    wait_for(lambda: driver.execute_script("return document.body.dataset.floor") == first_level, 5)
    driver.find_element(By.ID, "heatmap-on").click()
    cleared = wait_for(lambda: driver.execute_script(
        "return document.body.dataset.heatmap === 'off' && document.querySelectorAll('path.heat-cell').length === 0"), 5)
    check("turning the heatmap off removes it", bool(cleared))

    # Colour by error: `survey record` tuned the demo venue, which kept each spot's cross-validation error,
    # so the control recolours the spots and their tooltips give the error; untuned, it must be disabled.
    control = driver.find_element(By.ID, "colour-by")
    tuned = driver.execute_script("return window.beaconfixMap.coverage.spots.some(spot => spot.cross_validation)")
    fills = "return [...document.querySelectorAll('path.spot')].map(spot => spot.getAttribute('fill'))"
    if tuned:
        by_coverage = driver.execute_script(fills)
        Select(control).select_by_value("error")
        switched = wait_for(lambda: driver.execute_script("return document.body.dataset.colourBy") == "error", 5)
        by_error = driver.execute_script(fills)
        legend = driver.find_element(By.ID, "legend-error").is_displayed()
        check("colouring by error recolours the spots and shows the error legend",
              bool(switched) and len(by_error) == len(by_coverage) > 0 and by_error != by_coverage and legend,
              f"{len(set(by_error))} colours by error, {len(set(by_coverage))} by coverage; legend {'shown' if legend else 'hidden'}")
        ActionChains(driver).move_to_element(driver.find_elements(By.CSS_SELECTOR, "path.spot")[0]).perform()
        tooltip = wait_for(lambda: " ".join(element.text for element in driver.find_elements(By.CSS_SELECTOR, ".leaflet-tooltip")
                                            if "located" in element.text), 3)
        check("a spot's tooltip gives its error and its located and unknown counts",
              bool(tooltip) and "unknown" in tooltip and ("m mean error" in tooltip or "no fingerprint located" in tooltip),
              (tooltip or "no tooltip").replace("\n", " / "))
        Select(control).select_by_value("coverage")
        back = wait_for(lambda: driver.execute_script(fills) == by_coverage, 5)
        check("colouring by coverage again restores the colours", bool(back))
    else:
        check("colouring by error is disabled, saying why, until the venue is tuned",
              not control.is_enabled() and "survey tune" in (control.get_attribute("title") or ""), control.get_attribute("title"))

    # A plan drawn at an angle: placed by two reference points while the page is open, the page follows
    # the revision and draws it rotated. ground.svg is 10 px a metre from (-1, 25); the pixels of venue
    # (0, 0) and (40, 0) are put at (0, 0) and 40 m along a line 10 degrees anticlockwise from +x.
    angle = math.radians(10)
    subprocess.run(
        [os.environ["SURVEY"], "venue", "plan", "--db", os.environ["DB"], "--venue", "demo-hall", "--floor", first_level,
         "--image", os.environ["PLAN"], "--reference-point", "10,250=0,0",
         "--reference-point", f"410,250={40 * math.cos(angle):.4f},{40 * math.sin(angle):.4f}"],
        check=True, stdout=subprocess.DEVNULL)
    rotated = wait_for(lambda: driver.execute_script(
        "const image = document.querySelector('svg.floor-plan image'); return image && image.getAttribute('transform')"), 10)
    matrix = [float(value) for value in (rotated or "").removeprefix("matrix(").removesuffix(")").split()]
    # The image's top edge (a, b) runs 42 m long at 10 degrees (SVG y is venue -y, so b is negative).
    turned = len(matrix) == 6 and abs(math.degrees(math.atan2(-matrix[1], matrix[0])) - 10) < 0.01 \
        and abs(math.hypot(matrix[0], matrix[1]) - 42) < 0.01
    check("a plan placed by reference points is drawn rotated, without a reload", turned, f"transform {rotated}")

    # A device id is the phone's to choose (any 1 to 128 characters without spaces): one that looks like
    # HTML is shown as text in its marker's label, never parsed into the page.
    hostile = "<b>phone-x"
    post_samples(urllib.parse.quote(hostile, safe=""), lines[:3])
    labelled = wait_for(lambda: driver.execute_script(
        "return [...document.querySelectorAll('.leaflet-tooltip')].some(tip => tip.textContent.includes(arguments[0]))", hostile), 5)
    parsed = driver.execute_script("return document.querySelectorAll('.leaflet-tooltip b').length")
    check("a device id that looks like HTML is shown as text", bool(labelled) and parsed == 0,
          f"label shown: {bool(labelled)}, <b> elements in labels: {parsed}" + ("" if labelled else "; labels: " + str(driver.execute_script(
              "return [...document.querySelectorAll('.leaflet-tooltip')].map(tip => tip.textContent)"))))

    # A phone's screen: the map and the panel both show.
    driver.set_window_size(390, 844)
    time.sleep(0.3)
    size = driver.find_element(By.ID, "map").size
    panel = driver.find_element(By.ID, "panel")
    check("the page fits a phone's screen", size["width"] <= 390 and size["height"] > 300 and panel.is_displayed(),
          f"map {size['width']}x{size['height']}")

    log = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    errors = [entry for entry in log if entry.get("source") != "network"]
    check("no JavaScript error was logged", not errors, "; ".join(entry["message"] for entry in errors)[:400])
    # The one failed request allowed: the venue list's first try, without a key, which makes it ask.
    failed = [entry for entry in log if entry.get("source") == "network"]
    unexpected = [entry for entry in failed if "/v1/venues - " not in entry["message"] or "401" not in entry["message"]]
    check("no request failed but the keyless first try", len(failed) <= 1 and not unexpected,
          "; ".join(entry["message"] for entry in failed)[:400])
    state_errors = driver.execute_script("return window.beaconfixMap.errors")
    check("the page reported no error", not state_errors, str(state_errors))

    # A survey session watched live: the page opened on ?session=ID shows the session's spots and path, and
    # each batch the surveyor's app posts changes them as it is stored (a spot thin at one sample, covered
    # at four; a second spot; the path growing), without a reload.
    survey_lines = [json.loads(line) for line in open(os.path.join(os.path.dirname(WALK), "survey.jsonl")) if line.strip()]
    by_spot = {}
    for line in survey_lines:
        if len(line["beacons"]) >= 3:
            by_spot.setdefault(line["spot"], []).append(line)
    # Two spots of one floor, each with four samples that hear three beacons or more.
    floor_of = {line["spot"]: line.get("floor", 0) for line in survey_lines}
    candidates = [spot for spot, lines in by_spot.items() if len(lines) >= 4]
    first_spot = candidates[0]
    second_spot = next(spot for spot in candidates[1:] if floor_of[spot] == floor_of[first_spot])
    session = api_send("POST", "/v1/venues/demo-hall/survey/sessions", {"operator": "browser-test"})["id"]
    driver.get(f"{BASE}/venues/demo-hall/map?session={session}")
    ready = wait_for(lambda: driver.execute_script("return document.body.dataset.ready === 'true'"), 10)
    subscribed = wait_for(lambda: driver.execute_script(
        "return window.beaconfixMap.socket && window.beaconfixMap.socket.readyState === 1 && !window.beaconfixMap.survey.loading"), 10)
    survey_state = "return [document.body.dataset.surveySamples, document.body.dataset.surveySpots, document.body.dataset.surveyThin, " \
        "document.body.dataset.surveyPath, document.querySelectorAll('path.survey-spot').length, " \
        "document.querySelectorAll('path.survey-spot.thin').length]"
    empty = driver.execute_script(survey_state)
    check("a survey session opened on the map shows it empty", bool(ready) and bool(subscribed) and empty == ["0", "0", "0", "0", 0, 0],
          f"ready {bool(ready)}, feed open {bool(subscribed)}, state {empty}")
    if floor_of[first_spot] != int(driver.execute_script("return document.body.dataset.floor")):
        driver.find_element(By.CSS_SELECTOR, f"#floors button[data-level='{floor_of[first_spot]}']").click()
    steps = [
        ("one sample at a spot: the spot appears, thin", by_spot[first_spot][:1], ["1", "1", "1", "1"]),
        ("three more at it: the same spot, no longer thin", by_spot[first_spot][1:4], ["4", "1", "0", "4"]),
        ("two at another spot: a second spot, thin, and the path grows", by_spot[second_spot][:2], ["6", "2", "1", "6"]),
    ]
    for number, (name, lines, expected) in enumerate(steps):
        api_send("POST", f"/v1/venues/demo-hall/survey/sessions/{session}/batches", {"batch_id": f"browser-{number}", "samples": lines})
        seen = wait_for(lambda: driver.execute_script(survey_state)[:4] == expected and driver.execute_script(survey_state), 5)
        shown = driver.execute_script(survey_state)
        # Both spots are on the floor shown: one ring per spot, a thin ring per thin spot.
        check(f"live survey coverage: {name}", bool(seen) and shown[4] == int(expected[1]) and shown[5] == int(expected[2]),
              f"samples/spots/thin/path {shown[:4]} (expected {expected}), rings {shown[4]}, thin rings {shown[5]}")
    summary = driver.find_element(By.ID, "survey-summary").text
    check("the survey panel counts the session", session in summary and "6 samples in 3 batches at 2 spots, 1 thin" in summary, summary)
    api_send("DELETE", f"/v1/venues/demo-hall/survey/sessions/{session}")
    state_errors = driver.execute_script("return window.beaconfixMap.errors")
    check("the survey session's page reported no error", not state_errors, str(state_errors))

    # A walking session: samples without coordinates show nothing until a checkpoint places them; the
    # batch that brings the checkpoints makes the page read the walk's coverage again, earlier samples placed.
    walk_session = api_send("POST", "/v1/venues/demo-hall/survey/sessions", {"operator": "browser-test", "walk": {}})["id"]
    driver.get(f"{BASE}/venues/demo-hall/map?session={walk_session}")
    walk_ready = wait_for(lambda: driver.execute_script(
        "return document.body.dataset.ready === 'true' && window.beaconfixMap.socket && window.beaconfixMap.socket.readyState === 1 "
        "&& !window.beaconfixMap.survey.loading && document.body.dataset.surveySamples === '0'"), 10)
    if floor_of[first_spot] != int(driver.execute_script("return document.body.dataset.floor")):
        driver.find_element(By.CSS_SELECTOR, f"#floors button[data-level='{floor_of[first_spot]}']").click()
    unlabelled = sorted(({key: value for key, value in line.items() if key not in ("spot", "x", "y", "floor")}
                         for line in by_spot[first_spot][:4]), key=lambda line: line["t"])
    api_send("POST", f"/v1/venues/demo-hall/survey/sessions/{walk_session}/batches", {"batch_id": "walk-1", "samples": unlabelled})
    unplaced = wait_for(lambda: driver.execute_script(survey_state)[:4] == ["4", "0", "0", "0"], 5)
    check("a walk's samples without a checkpoint are counted, not placed", bool(walk_ready) and bool(unplaced), str(driver.execute_script(survey_state)))
    checkpoints = [{"t": unlabelled[0]["t"] - 1, "spot": first_spot}, {"t": unlabelled[-1]["t"] + 1, "spot": second_spot}]
    api_send("POST", f"/v1/venues/demo-hall/survey/sessions/{walk_session}/batches", {"batch_id": "walk-2", "checkpoints": checkpoints})
    placed = wait_for(lambda: (lambda shown: shown[0] == "4" and shown[3] == "4" and int(shown[1]) >= 1 and shown[4] == int(shown[1]))(
        driver.execute_script(survey_state)), 5)
    walk_summary = driver.find_element(By.ID, "survey-summary").text
    check("a checkpoint places the walk's earlier samples on the live map", bool(placed) and "a walk with 2 checkpoints" in walk_summary,
          f"samples/spots/thin/path/rings {driver.execute_script(survey_state)[:5]}; panel: {walk_summary}")
    api_send("DELETE", f"/v1/venues/demo-hall/survey/sessions/{walk_session}")
    state_errors = driver.execute_script("return window.beaconfixMap.errors")
    check("the walking session's page reported no error", not state_errors, str(state_errors))

    # A key of scope locate may not read analytics: the page says presence needs an admin key, stops
    # asking for it, and shows the venue all the same. (Last: its refused requests are expected.)
    driver.set_window_size(1280, 860)
    created = subprocess.run(
        [os.environ["SURVEY"], "key", "create", "--db", os.environ["DB"], "--name", "browser-test-locate", "--scope", "locate", "--json"],
        check=True, capture_output=True, text=True)
    locate = json.loads(created.stdout)["token"]
    # positiond reads new keys with the revisions (within a poll).
    wait_for(lambda: api("/v1/venues/demo-hall", locate)[0] == 200, 10)
    driver.execute_script("sessionStorage.setItem('beaconfix.key', arguments[0])", locate)
    driver.get(f"{BASE}/venues/demo-hall/map")
    ready = wait_for(lambda: driver.execute_script("return document.body.dataset.ready === 'true'"), 10)
    denied = wait_for(lambda: driver.execute_script("return document.body.dataset.presence === 'denied'"), 5)
    note = driver.find_element(By.ID, "presence-note")
    asked = "return performance.getEntriesByType('resource').filter(entry => entry.name.includes('/analytics/presence')).length"
    before = driver.execute_script(asked)
    time.sleep(5.5)
    after = driver.execute_script(asked)
    spots = len(driver.find_elements(By.CSS_SELECTOR, "path.spot"))
    check("with a locate key the page says presence needs an admin key, stops asking, and still draws the venue",
          bool(ready) and bool(denied) and note.is_displayed() and "admin key" in note.text and before == after == 1
          and spots > 0 and not driver.find_elements(By.CSS_SELECTOR, ".leaflet-tooltip.zone-count"),
          f"ready {bool(ready)}, note {note.text!r}, presence asked {before} then {after} times, {spots} spots")
    driver.find_element(By.ID, "heatmap-on").click()
    refused = wait_for(lambda: driver.execute_script("return document.body.dataset.heatmap === 'denied'"), 5)
    summary = driver.find_element(By.ID, "heatmap-summary").text
    check("with a locate key the heatmap control says it needs an admin key",
          bool(refused) and "admin key" in summary and not driver.find_element(By.ID, "heatmap-on").is_enabled(), summary)
    state_errors = driver.execute_script("return window.beaconfixMap.errors")
    check("with a locate key the page reported no error", not state_errors, str(state_errors))

    # A hostile SVG plan: what it would run is taken out when survey imports it, and the map still draws it.
    # Its script, if it ran, would mark the document and ask positiond for a page that does not exist.
    hostile = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 420 260" onload="document.documentElement.setAttribute('data-ran', 'onload')">
  <script>document.documentElement.setAttribute('data-ran', 'script'); fetch('/ran-script');</script>
  <rect x="5" y="5" width="410" height="250" fill="#f4efe4" stroke="#333" stroke-width="3"/>
  <a xlink:href="javascript:document.documentElement.setAttribute('data-ran', 'link')"><text x="20" y="40">Gallery</text></a>
</svg>
"""
    plan_file = os.path.join(os.path.dirname(os.environ["DB"]), "hostile.svg")
    with open(plan_file, "w") as handle:
        handle.write(hostile)
    imported = subprocess.run(
        [os.environ["SURVEY"], "venue", "plan", "--db", os.environ["DB"], "--venue", "demo-hall", "--floor", "1", "--image", plan_file,
         "--top-left=-1,25", "--bottom-right=41,-1", "--json"], capture_output=True, text=True)
    removed = json.loads(imported.stdout)["removed"] if imported.returncode == 0 else []
    with urllib.request.urlopen(urllib.request.Request(f"{BASE}/v1/venues/demo-hall/floors/1/plan", headers={"Authorization": f"Bearer {KEY}"}),
                                timeout=5) as response:
        status, served = response.status, response.read().decode()
    check("survey venue plan takes a hostile SVG's script, event attribute and javascript: link out, and says so",
          imported.returncode == 0 and "1 <script> element" in removed and any("onload" in item for item in removed)
          and any("xlink:href" in item for item in removed) and status == 200
          and "<script" not in served and "onload" not in served and "javascript:" not in served and "<rect" in served,
          f"rc {imported.returncode}, removed {removed}, {imported.stderr.strip()[:200]}; served {status}: {served[:160]!r}")
    # The plan bumps the venue's revision: the page is opened once positiond serves it, so that no revision
    # message redraws the floor buttons under the click.
    revision = json.loads(imported.stdout)["revision"] if imported.returncode == 0 else None
    wait_for(lambda: (api("/v1/venues/demo-hall")[1] or {}).get("revision") == revision, 10)
    driver.execute_script("sessionStorage.setItem('beaconfix.key', arguments[0])", KEY)
    driver.get(f"{BASE}/venues/demo-hall/map")
    wait_for(lambda: driver.execute_script(
        f"return document.body.dataset.ready === 'true' && document.getElementById('venue-name').textContent.endsWith('revision {revision}')"), 10)
    driver.execute_script("document.querySelector(\"#floors button[data-level='1']\").click()")
    drawn = wait_for(lambda: driver.execute_script(
        "const image = document.querySelector('img.floor-plan'); return document.body.dataset.floor === '1' && image && image.complete"
        " && image.naturalWidth > 0 && [image.naturalWidth, image.naturalHeight]"), 10)
    check("the map draws the sanitised plan", bool(drawn), f"plan image {drawn}")

    # A plan stored before imports were sanitised, script and all, opened on its own in positiond's origin
    # (where the pages keep the key): its Content-Security-Policy lets nothing run.
    import sqlite3
    with sqlite3.connect(os.environ["DB"]) as database:
        database.execute("UPDATE floorPlan SET data = ? WHERE venueId = 'demo-hall' AND level = 1", (hostile.encode(),))
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": f"Bearer {KEY}"}})
    driver.get(f"{BASE}/v1/venues/demo-hall/floors/1/plan")
    time.sleep(1)
    opened = driver.execute_script("return [document.documentElement.tagName, document.documentElement.getAttribute('data-ran'),"
                                   " document.documentElement.innerHTML.includes('<script')]")
    blocked = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    check("a stored plan with a script, opened on its own, runs nothing: its policy blocks the script",
          opened[0].lower() == "svg" and opened[1] is None and opened[2] and bool(blocked),
          f"root {opened[0]}, data-ran {opened[1]}, script in the document {opened[2]}; {len(blocked)} CSP reports: {' | '.join(blocked)[:300]}")
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {}})
finally:
    driver.quit()

print(f"{len(failures)} failed" if failures else "all browser checks passed")
sys.exit(1 if failures else 0)
