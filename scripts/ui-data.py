#!/usr/bin/env python3
"""A person's data tasks in `health ui`, in real headless Chromium (Debian's /usr/bin/chromium
through Playwright), for Tests/healthTests/UIDataTests.swift: add a weight in lb and read it in kg
after switching units in Settings; find a type with Browse's search box; delete a sample through
its confirmation page and restore it from Recently deleted; import an Apple Health export.zip
from the page and watch its job finish; edit the Medical ID and read it after a reload. Then the
look of the pages these tasks use at 1280 and 390 px, light and dark (no console error, no foreign
request, no sideways scroll at 390 px, no text under 11 CSS px or under 4.5:1 contrast, no script).

Usage: ui-data.py START_URL SCREENSHOT_DIR EXPORT_ZIP
Prints one JSON report.
"""
import json
import sys
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from page_checks import look, watch

WEIGHT = "/browse/HKQuantityTypeIdentifierBodyMass"

start_url, shots, export_zip = sys.argv[1:4]
origin = "{0.scheme}://{0.netloc}".format(urlsplit(start_url))
report = {"look": {}, "screenshots": []}


def text(page, selector):
    element = page.query_selector(selector)
    return element.text_content().strip() if element else ""


def set_weight_unit(page, unit):
    page.goto(origin + "/settings")
    page.select_option("select[name=weight]", unit)
    page.click("form[action='/settings'] button[type=submit]")
    page.wait_for_load_state("networkidle")


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = []
    watch(page, origin, problems)
    page.goto(start_url)
    page.wait_for_load_state("networkidle")

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

    # 4. The Apple Health import: upload, the progress page (it reloads itself), the summary; then the same export again.
    page.goto(origin + "/import/apple-health")
    page.set_input_files("#export-file", export_zip)
    page.click("form[action='/import/apple-health'] button[type=submit]")
    job_url = page.url
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
                  "import-summary": summary_url[len(origin):], "profile": "/profile", "recently-deleted": "/recently-deleted"}
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
    browser.close()

print(json.dumps(report))
