"""The live map in headless Chromium (run by scripts/browser-test.sh, which starts positiond).

Environment: BASE (positiond's URL), KEY (an admin API key), WALK (the demo walk, JSON Lines), SHOT (where
the screenshot goes), SURVEY, DB and PLAN (the survey binary, positiond's database and a plan image, to place
a plan at an angle while the page is open). Prints one line per check and exits 1 when any fails.
"""
import json
import math
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

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


def post_samples(device, lines):
    """Tracked samples of `device`, one request per walk line, as a phone posts them."""
    for line in lines:
        sample = {key: line[key] for key in ("t", "beacons")}
        body = json.dumps({"samples": [sample]}).encode()
        request = urllib.request.Request(
            f"{BASE}/v1/venues/demo-hall/devices/{device}/samples", data=body, method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200, response.status


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
    events = driver.find_elements(By.CSS_SELECTOR, "#events li")
    check("zone entries are listed as they happen", len(events) >= 3, f"{len(events)} events")
    driver.save_screenshot(SHOT)
    print(f"screenshot: {SHOT}")

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
    driver.find_element(By.CSS_SELECTOR, f"#floors button[data-level='{first_level}']").click()
    wait_for(lambda: driver.execute_script("return document.body.dataset.floor") == first_level, 5)

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
finally:
    driver.quit()

print(f"{len(failures)} failed" if failures else "all browser checks passed")
sys.exit(1 if failures else 0)
