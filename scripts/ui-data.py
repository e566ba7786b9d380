#!/usr/bin/env python3
"""A person's data tasks in `health ui`, in real headless Chromium (Debian's /usr/bin/chromium
through Playwright), for Tests/healthTests/UIDataTests.swift: add a weight in lb and read it in kg
after switching units in Settings; find a type with Browse's search box; delete a sample through
its confirmation page and restore it from Recently deleted; import an Apple Health export.zip
from the page and watch its job finish; edit the Medical ID and read it after a reload. Then the
look of the pages these tasks use at 1280 and 390 px, light and dark (no console error, no foreign
request, no sideways scroll at 390 px, no text under 11 CSS px or under 4.5:1 contrast, no script).

Usage: ui-data.py START_URL SCREENSHOT_DIR EXPORT_ZIP
       ui-data.py START_URL SCREENSHOT_DIR --today EXPECTED_JSON
The second form is a person's look through time instead (Today, then Summary and a type page
stepped back and forth with their previous/next links): EXPECTED_JSON names Today's cards
(`today`: the kinds whose numbers to read) and the walks (`walks`: each a start page, the chart
whose bars to read, and the links to follow); the Swift test computes what each should show
from the statistics API. Prints one JSON report.
"""
import json
import sys

from playwright.sync_api import Error as PlaywrightError

from page_checks import chromium_page, look, origin_of

WEIGHT = "/browse/HKQuantityTypeIdentifierBodyMass"

start_url, shots, export_zip = sys.argv[1:4]
origin = origin_of(start_url)
report = {"look": {}, "screenshots": []}


def today_and_time(expected_path):
    """Today's numbers as its cards carry them (`data-value`, and `data-day`: the day a total
    counts), then each walk: the start page, then each link followed (by its text), with the
    period shown, the chosen chart's bars and the page checks at every step."""
    with open(expected_path) as file:
        expected = json.load(file)
    result = {"today": {}, "walks": [], "screenshots": []}
    with chromium_page(start_url) as (page, _, problems):
        result["start"] = page.url
        for kind in expected["today"]:
            element = page.query_selector("[data-kind='%s'] .tile-value" % kind)
            result["today"][kind] = {"value": element.get_attribute("data-value") if element else None,
                                     "day": element.get_attribute("data-day") if element else None,
                                     "text": element.text_content().strip() if element else None}
        result["todayDashes"] = page.locator(".tile-value.muted").count()
        result["todayWorkouts"] = page.locator("li[data-kind=workout]").count()
        result["todayLook"] = look(page, problems)
        for width, label in ((1280, "desktop"), (390, "phone")):
            page.set_viewport_size({"width": width, "height": 900})
            page.reload()
            page.wait_for_load_state("networkidle")
            result["todayLook-%d" % width] = look(page, problems)
            file = "%s/today-year-%s.png" % (shots, label)
            page.screenshot(path=file, full_page=True)
            result["screenshots"].append(file)
        page.set_viewport_size({"width": 1280, "height": 900})

        def state(response):
            page.wait_for_load_state("networkidle")
            return {"url": page.url[len(origin):], "status": response.status if response else 0, "range": text(page, "nav.steps .range"),
                    "bars": page.eval_on_selector_all("svg[aria-labelledby='%s'] rect.bar" % walk["chart"],
                                                      "els => els.map(e => Number(e.getAttribute('data-value')))"),
                    **look(page, problems)}

        for walk in expected["walks"]:
            steps = []
            problems.clear()
            steps.append(state(page.goto(origin + walk["start"])))
            for link in walk["follow"]:
                problems.clear()
                with page.expect_navigation() as navigation:
                    page.click("nav.steps a:has-text('%s')" % link)
                steps.append(state(navigation.value))
            result["walks"].append(steps)
    print(json.dumps(result))


def text(page, selector):
    element = page.query_selector(selector)
    return element.text_content().strip() if element else ""


def look_settled(page, problems):
    """`look` of a page that may be reloading itself (a job's progress page refreshes each second):
    measured again once the new page has loaded if a reload came in between."""
    for _ in range(10):
        try:
            return look(page, problems)
        except PlaywrightError:
            page.wait_for_load_state("load")
    return look(page, problems)


def set_weight_unit(page, unit):
    page.goto(origin + "/settings")
    page.select_option("select[name=weight]", unit)
    page.click("form[action='/settings'] button[type=submit]")
    page.wait_for_load_state("networkidle")


if export_zip == "--today":
    today_and_time(sys.argv[4])
    sys.exit(0)

with chromium_page(start_url) as (page, _, problems):
    # 1. A weight in lb, read in kg after switching units.
    set_weight_unit(page, "lb")
    page.goto(origin + WEIGHT + "/add")
    page.fill("#add-value", "220.462")
    page.select_option("#add-unit", "lb")
    page.click("form.add button[type=submit]")
    page.wait_for_load_state("networkidle")
    report["added"] = {"url": page.url, "notice": text(page, ".notice"), "problem": text(page, ".problem")}
    set_weight_unit(page, "kg")
    page.goto(origin + WEIGHT)
    cells = page.eval_on_selector_all("td", "tds => tds.map(td => td.textContent.trim())")
    report["added"]["kgCells"] = [cell for cell in cells if cell == "100 kg"]
    report["added"]["lbCells"] = [cell for cell in cells if cell.endswith(" lb")]
    # A refused form says why and keeps what was typed.
    page.goto(origin + WEIGHT + "/add")
    page.fill("#add-value", "heavy")
    page.click("form.add button[type=submit]")
    page.wait_for_load_state("networkidle")
    report["refused"] = {"problem": text(page, ".problem"), "value": page.input_value("#add-value")}

    # 2. Browse's search box (a GET form).
    page.goto(origin + "/browse")
    page.fill("#browse-search", "weight")
    page.click("form.search button[type=submit]")
    page.wait_for_load_state("networkidle")
    report["search"] = {"url": page.url, "groups": page.locator("main section.card h2").all_text_contents(),
                        "weight": text(page, "a[href='%s'] + .latest-value" % WEIGHT)}

    # 3. Delete with its confirmation page, then restore.
    page.goto(origin + WEIGHT)
    rows_before = page.locator("button.delete[aria-label^='Delete the sample']").count()
    page.click("button.delete[aria-label^='Delete the sample'] >> nth=0")
    page.wait_for_load_state("networkidle")
    confirm = {"url": page.url, "heading": text(page, "h1"), "rows": page.locator("main table tbody tr").count()}
    page.click("form.actions button.danger")
    page.wait_for_load_state("networkidle")
    confirm["after"] = text(page, ".notice")
    confirm["rowsAfter"] = page.locator("button.delete[aria-label^='Delete the sample']").count()
    page.goto(origin + "/recently-deleted")
    page.click("button.restore >> nth=0")
    page.wait_for_load_state("networkidle")
    confirm["restored"] = text(page, ".notice")
    page.goto(origin + WEIGHT)
    confirm["rowsBefore"] = rows_before
    confirm["rowsRestored"] = page.locator("button.delete[aria-label^='Delete the sample']").count()
    report["delete"] = confirm
    # A sample's confirmation page (not confirmed), for the look checks below.
    page.click("button.delete[aria-label^='Delete the sample'] >> nth=0")
    page.wait_for_load_state("networkidle")
    confirm_path = page.url[len(origin):]

    # 4. The Apple Health import: upload, the progress page (it reloads itself), the summary; then the same export again.
    problems.clear()
    page.goto(origin + "/import/apple-health")
    page.set_input_files("#export-file", export_zip)
    page.click("form[action='/import/apple-health'] button[type=submit]")
    job_url = page.url
    # The job's page as it first comes (its progress, or its summary if the job was that quick).
    report["jobLook"] = {"url": job_url[len(origin):], **look_settled(page, problems)}
    page.wait_for_selector("#summary-heading", timeout=180_000)
    report["import"] = {"jobURL": job_url, "url": page.url, "notice": text(page, ".notice"), "heading": text(page, "#summary-heading"), "reason": text(page, "main .card p.problem"),
                        "headline": text(page, "p.import-headline"),
                        "rows": page.eval_on_selector_all("table.import-summary tbody tr",
                                                          "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")}
    summary_url = page.url
    # The same export again, from the summary's link: nothing new, all of it already in the store.
    page.click("a[href='/import/apple-health']")
    page.set_input_files("#export-file", export_zip)
    page.click("form[action='/import/apple-health'] button[type=submit]")
    again_job_url = page.url
    page.wait_for_selector("#summary-heading", timeout=180_000)
    report["importAgain"] = {"jobURL": again_job_url, "notice": text(page, ".notice"), "headline": text(page, "p.import-headline"),
                             "rows": page.eval_on_selector_all("table.import-summary tbody tr",
                                                               "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")}

    # 5. The Medical ID: edit, save, reload.
    page.goto(origin + "/profile")
    page.fill("#profile-conditions", "Asthma\nHay fever")
    page.fill("#profile-allergies", "Penicillin")
    page.select_option("#profile-donor", "yes")
    page.fill("#contact-name-0", "Orlando Quarrington")
    page.fill("#contact-relationship-0", "brother")
    page.fill("#contact-phone-0", "+1 555 0199")
    page.click("form.profile button[type=submit]")
    page.wait_for_load_state("networkidle")
    saved_notice = text(page, ".notice")
    page.reload()
    page.wait_for_load_state("networkidle")
    report["medicalID"] = {"notice": saved_notice, "url": page.url,
                           "fields": dict(zip(page.locator("dl.medical dt").all_text_contents(),
                                              [t.strip() for t in page.locator("dl.medical dd").all_text_contents()])),
                           "conditions": page.input_value("#profile-conditions")}

    # 6. The look of these pages.
    look_pages = {"browse": "/browse", "browse-search": "/browse?q=heart", "add-weight": WEIGHT + "/add",
                  "add-sleep": "/browse/HKCategoryTypeIdentifierSleepAnalysis/add",
                  "add-blood-pressure": "/browse/HKCorrelationTypeIdentifierBloodPressure/add",
                  "add-workout": "/browse/HKWorkoutTypeIdentifier/add", "import": "/import/apple-health",
                  "import-summary": summary_url[len(origin):], "profile": "/profile", "recently-deleted": "/recently-deleted",
                  "delete-confirm": confirm_path}
    for width in (1280, 390):
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)
            for name, path in look_pages.items():
                problems.clear()
                response = page.goto(origin + path)
                page.wait_for_load_state("networkidle")
                page.eval_on_selector_all("details", "els => els.forEach(e => e.open = true)")
                report["look"]["%s %d %s" % (name, width, scheme)] = {"status": response.status if response else 0, **look(page, problems)}
                if name in ("browse", "add-weight", "add-workout", "import-summary", "profile") and (scheme == "light" or name == "browse"):
                    page.eval_on_selector_all("details", "els => els.forEach(e => e.open = false)")
                    file = "%s/data-%s-%d-%s.png" % (shots, name, width, scheme)
                    page.screenshot(path=file, full_page=True)
                    report["screenshots"].append(file)

print(json.dumps(report))
