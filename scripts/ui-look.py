#!/usr/bin/env python3
"""The look of `health ui` in real headless Chromium (Debian's /usr/bin/chromium through
Playwright), for Tests/healthTests/UILookTests.swift: every page at 1280 and 390 px, in the light
and the dark theme (`prefers-color-scheme`), in one browser context.

Usage: ui-look.py START_URL SCREENSHOT_DIR EXPECTED_TODAY TYPE_PATH
  START_URL       the URL `health ui` printed (with its one-time secret)
  SCREENSHOT_DIR  where the screenshots go: Today, TYPE_PATH (its week and its year), Records, sleep,
                  workouts, the year's Summary and a lab result (the first one Records lists)
  EXPECTED_TODAY  JSON: Today card kind -> the number the statistics API gives (in the unit shown)
  TYPE_PATH       a type page (/browse/HK...)

For each page, width and theme it reports console errors, failed or foreign requests, whether the
page scrolls sideways (at 390 px), the text smaller than 11 CSS px (SVG text by its size on
screen), the text whose contrast with its background is under 4.5:1, and the cells of Today's
trends that are not on screen (past the window's edge, or hidden in a scrolled box), the charts'
text that overlaps other text or leaves its chart (`chartText`), and the table cells that are
hidden, clipped or cut off (`tableCells`: a table fits or scrolls in its own box). Prints one JSON
report.
"""
import json
import sys

from page_checks import chart_text, chromium_page, look, origin_of, table_cells

start_url, shots, expected_today, type_path = sys.argv[1:5]
expected = json.loads(expected_today)
origin = origin_of(start_url)
sleep_path = "/browse/HKCategoryTypeIdentifierSleepAnalysis"
workout_path = "/browse/HKWorkoutTypeIdentifier"
ecg_path = "/browse/HKDataTypeIdentifierElectrocardiogram"
mind_path = "/browse/HKDataTypeStateOfMind"
type_year = type_path + "?period=year"
pages = ["/", "/summary", "/summary?period=month", "/summary?period=year", "/browse", type_path, type_year, "/records", "/cards",
         "/sharing", "/profile", "/settings", "/recently-deleted", sleep_path, workout_path,
         ecg_path, mind_path]
shot_names = {"/": "today", type_path: "type", "/records": "records", sleep_path: "sleep", workout_path: "workouts", ecg_path: "ecg", mind_path: "mind",
              "/summary?period=year": "summary-year", type_year: "type-year"}
# Every cell of the trends table must be inside the window, whole, and not clipped by a scrolled box.
OFF_SCREEN = """() => {
  const found = [];
  for (const cell of document.querySelectorAll('#trends-heading ~ * table td, #trends-heading ~ * table th')) {
    // A phone's stacked table hides its header row on purpose (each value carries its label).
    if (cell.closest('thead') && getComputedStyle(cell.closest('thead')).display === 'none') continue;
    const box = cell.getBoundingClientRect();
    let clipped = box.width === 0 || box.left < -1 || box.right > window.innerWidth + 1;
    for (let e = cell.parentElement; e && !clipped; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.overflowX === 'visible') continue;
      const outer = e.getBoundingClientRect();
      clipped = box.left < outer.left - 1 || box.right > outer.right + 1;
    }
    if (clipped) found.push(cell.textContent.trim().slice(0, 40));
  }
  return found;
}"""
report = {"pages": {}, "screenshots": [], "today": {}, "expectedToday": expected}

with chromium_page(start_url, http_errors=True) as (page, _, problems):
    # Today's numbers, as the page shows them, and the day each counts.
    for kind in expected:
        element = page.query_selector("[data-kind='%s'] .tile-value" % kind)
        report["today"][kind] = element.get_attribute("data-value") if element else None
        report["today"][kind + " day"] = element.get_attribute("data-day") if element else None
    report["trendRows"] = page.locator("#trends-heading ~ * table tbody tr").count()
    # The first lab result Records lists.
    page.goto(origin + "/records")
    lab = page.query_selector("section[aria-labelledby='cat-HKClinicalTypeIdentifierLabResultRecord'] a[href^='/records/']")
    if lab:
        lab_path = lab.get_attribute("href")
        pages.append(lab_path)
        shot_names[lab_path] = "lab"
    report["labPath"] = lab_path if lab else None
    for width in (1280, 390):
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)
            for path in pages:
                problems.clear()
                response = page.goto(origin + path)
                page.wait_for_load_state("networkidle")
                # Open every <details> so that the tables inside are measured too.
                page.eval_on_selector_all("details", "els => els.forEach(e => e.open = true)")
                key = "%s %d %s" % (path, width, scheme)
                report["pages"][key] = {"status": response.status if response else 0, **look(page, problems),
                                        "chartText": chart_text(page), "tableCells": table_cells(page)}
                if path == "/":
                    report["pages"][key]["offScreen"] = page.evaluate(OFF_SCREEN)
                name = shot_names.get(path)
                if name:
                    page.eval_on_selector_all("details", "els => els.forEach(e => e.open = false)")
                    file = "%s/%s-%d-%s.png" % (shots, name, width, scheme)
                    page.screenshot(path=file, full_page=True)
                    report["screenshots"].append(file)

print(json.dumps(report))
