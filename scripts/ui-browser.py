#!/usr/bin/env python3
"""Drives `health ui` in real headless Chromium (Debian's /usr/bin/chromium through Playwright;
never Playwright's own browser download), for Tests/healthTests/UICommandTests.swift.

Usage: ui-browser.py START_URL SCREENSHOT_DIR EXPECTED_STEPS TYPE_PATH [VALID_CARD FORGED_CARD [FHIR_FILE]]
  START_URL       the URL `health ui` printed (with its one-time secret)
  SCREENSHOT_DIR  where the desktop and phone screenshots go
  EXPECTED_STEPS  the week's daily step sums from the statistics API, comma-separated
  TYPE_PATH       a type page to open and delete a sample on (/browse/HK...)
  VALID_CARD      a card file that verifies, added through the Health cards page's form
  FORGED_CARD     a forged card file, which the form must refuse
  FHIR_FILE       a FHIR Bundle imported through the Health records page's form (a background job)

Prints one JSON report on standard output; the Swift test judges it.
"""
import json
import sys
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

import page_checks


def watch(page, origin, problems):
    """Collects the console errors, page errors, failed requests and requests to anywhere but
    `origin` of `page` into `problems` (page_checks.watch, with HTTP errors)."""
    page_checks.watch(page, origin, problems, http_errors=True)


def sharing_settings_and_a11y(browser, origin, cookies, shots, report):
    """Settings, Sharing (app revocation; the wallet's grant and revoke when UI_WALLET_GRANTEE
    names a grantee), accessibility checks on every main page, and the screenshots of Settings,
    Sharing and Cards. Results go under report["extra"]."""
    import os
    extra = {"pages": {}, "screenshots": [], "chartsWithoutTable": {}, "unlabelled": {}}
    # Without the session: the new pages and forms answer 401.
    anonymous = browser.new_context()
    extra["withoutSession"] = {path: anonymous.request.get(origin + path).status for path in ["/settings", "/sharing"]}
    extra["withoutSession"]["POST /settings"] = anonymous.request.post(origin + "/settings", form={"weight": "lb"}).status
    extra["withoutSession"]["POST /sharing/wallet/revoke"] = anonymous.request.post(origin + "/sharing/wallet/revoke", form={"grantee": "x"}).status
    anonymous.close()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(cookies)
    page = context.new_page()
    problems = []
    watch(page, origin, problems)

    def load(path):
        problems.clear()
        response = page.goto(origin + path)
        page.wait_for_load_state("networkidle")
        extra["pages"][path] = {"status": response.status if response else 0, "problems": list(problems)}

    for path in ["/", "/summary?period=month", "/summary?period=year", "/browse", "/records", "/cards", "/sharing", "/settings"]:
        load(path)
        # Each chart (an SVG figure) has its numbers in a table in the same section.
        extra["chartsWithoutTable"][path] = page.evaluate(
            "[...document.querySelectorAll('figure svg.chart')].filter(svg => !svg.closest('section').querySelector('table')).length")
        extra["unlabelled"][path] = page.evaluate(
            "[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]"
            ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).length")

    # Settings: a form without its CSRF token is refused; then pounds for weight, and the summary shows weight in lb.
    extra["settingsWithoutCsrf"] = context.request.post(origin + "/settings", form={"weight": "lb"}, max_redirects=0).status
    load("/settings")
    page.select_option("#unit-weight", "lb")
    page.click("form.fields button[type=submit]")
    page.wait_for_load_state("networkidle")
    extra["settingsNotice"] = page.text_content(".notice") or ""
    load("/summary")
    extra["weightInPounds"] = page.locator("text=Weight (lb)").count() > 0

    # Sharing: revoke every access of the app the test authorized.
    app = os.environ.get("UI_REVOKE_APP", "")
    if app:
        load("/sharing")
        page.click("form[action='/sharing/revoke']:has(input[value='%s']) button" % app)
        page.wait_for_load_state("networkidle")
        extra["revokeNotice"] = page.text_content(".notice") or ""

    # The wallet: grant to a grantee through the form, then revoke it with its button.
    grantee = os.environ.get("UI_WALLET_GRANTEE", "")
    if grantee:
        load("/sharing")
        extra["walletVerified"] = page.locator(".verified").count()
        page.fill("#grant-grantee", grantee)
        page.fill("#grant-resource", "Patient")
        page.click("form[action='/sharing/wallet/grant'] button[type=submit]")
        page.wait_for_load_state("networkidle")
        extra["grantNotice"] = page.text_content(".notice") or ""
        extra["grantListed"] = page.locator("form[action='/sharing/wallet/revoke'] input[value='%s']" % grantee).count()
        page.click("form[action='/sharing/wallet/revoke']:has(input[value='%s']) button" % grantee)
        page.wait_for_load_state("networkidle")
        extra["revokeGrantNotice"] = page.text_content(".notice") or ""
        extra["walletProblems"] = page.locator(".problem").count()

    for width, height, label in [(1280, 900, "desktop"), (390, 844, "phone")]:
        page.set_viewport_size({"width": width, "height": height})
        for name, path in [("settings", "/settings"), ("sharing", "/sharing"), ("cards", "/cards")]:
            load(path)
            file = "%s/%s-%s.png" % (shots, name, label)
            page.screenshot(path=file, full_page=True)
            extra["screenshots"].append(file)
        extra["overflow-" + label] = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
    context.close()
    report["extra"] = extra

start_url, shots, expected_steps, type_path = sys.argv[1:5]
card_files = sys.argv[5:7]
fhir_file = sys.argv[7] if len(sys.argv) > 7 else None
origin = "{0.scheme}://{0.netloc}".format(urlsplit(start_url))
pages = ["/", "/summary?period=month", "/summary?period=year", "/browse", type_path, "/records", "/cards", "/sharing"]
report = {"pages": {}, "foreignRequests": [], "screenshots": []}


def cards_page(page, problems):
    """The Health cards page: how many cards verify, then a valid card added by file (shown) and a
    forged one refused (its reason shown, the number of cards unchanged)."""
    result = {}
    problems.clear()
    response = page.goto(origin + "/cards")
    page.wait_for_load_state("networkidle")
    result["status"] = response.status if response else 0
    result["problems"] = list(problems)
    result["verifying"] = page.locator("p.verdict[data-verifies=yes]").count()
    result["cards"] = page.locator("p.verdict").count()
    if len(card_files) == 2:
        valid, forged = card_files
        # The spec example cards are John B. Anyperson's, not the demo store's owner's: imported
        # as another person's, as a person ticks "import anyway".
        page.set_input_files("#card-file", valid)
        page.check("#card-other-person")
        page.click("form[action='/cards/add'] button[type=submit]")
        page.wait_for_load_state("networkidle")
        result["afterValid"] = {"url": page.url, "notice": page.text_content(".notice") or "",
                                "cards": page.locator("p.verdict").count(),
                                "verifying": page.locator("p.verdict[data-verifies=yes]").count()}
        page.set_input_files("#card-file", forged)
        page.check("#card-other-person")
        page.click("form[action='/cards/add'] button[type=submit]")
        page.wait_for_load_state("networkidle")
        result["afterForged"] = {"heading": page.text_content("#report-heading") or "",
                                 "reasons": page.eval_on_selector_all("ul.reasons li", "els => els.map(e => e.firstChild.textContent.trim())")}
        page.goto(origin + "/cards")
        page.wait_for_load_state("networkidle")
        result["afterForged"]["cards"] = page.locator("p.verdict").count()
    return result


def records_import(page, problems):
    """A FHIR file imported from the Health records page: the job's page (no script, it reloads
    itself) ends on the import's summary."""
    problems.clear()
    page.goto(origin + "/records")
    page.set_input_files("#fhir-files", fhir_file)
    page.check("#fhir-other-person")   # a Synthea patient, not the demo store's owner
    page.click("form[action='/records/import'] button[type=submit]")
    job_url = page.url
    page.wait_for_selector("#report-heading", timeout=120000)
    return {"jobURL": job_url, "url": page.url, "notice": page.text_content(".notice") or "",
            "problems": list(problems), "scripts": page.locator("script").count(), "look": page_checks.look(page, problems)}


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])

    # Without the session: every page answers 401.
    anonymous = browser.new_context()
    report["withoutSession"] = {path: anonymous.request.get(origin + path).status for path in pages + ["/assets/app.css"]}
    anonymous.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = []
    watch(page, origin, problems)
    page.on("request", lambda request: report["foreignRequests"].append(request.url)
            if not request.url.startswith(origin) else None)

    page.goto(start_url)
    page.wait_for_load_state("networkidle")
    report["afterStart"] = page.url
    for path in pages:
        problems.clear()
        response = page.goto(origin + path)
        page.wait_for_load_state("networkidle")
        report["pages"][path] = {"status": response.status if response else 0, "problems": list(problems),
                                 "title": page.title()}

    # Every health record's page (the demo imports a Synthea patient's records).
    page.goto(origin + "/records")
    record_paths = page.eval_on_selector_all("main table a", "els => els.map(e => e.getAttribute('href'))")
    report["recordPages"] = len(record_paths)
    for path in record_paths:
        problems.clear()
        response = page.goto(origin + path)
        page.wait_for_load_state("networkidle")
        report["pages"][path] = {"status": response.status if response else 0, "problems": list(problems), "title": page.title()}

    page.goto(origin + "/cards")
    report["cardQRs"] = page.locator("svg.qr").count()
    report["cardsPage"] = cards_page(page, problems)
    if fhir_file:
        report["recordsImport"] = records_import(page, problems)

    page.goto(origin + "/summary")
    report["stepBars"] = page.eval_on_selector_all("svg rect.bar", "els => els.map(e => Number(e.getAttribute('data-value')))")
    report["expectedSteps"] = [float(value) for value in expected_steps.split(",") if value]
    page.keyboard.press("Tab")
    report["firstTab"] = page.evaluate("document.activeElement.textContent")
    report["unlabelled"] = page.evaluate(
        "[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).length")

    # A form without its CSRF token is refused (the context has the session cookie).
    page.goto(origin + type_path)
    uuid = page.get_attribute("form input[name=uuid]", "value")
    report["withoutCsrf"] = context.request.post(origin + type_path + "/delete", form={"uuid": uuid}).status
    # The row's Delete asks first: a confirmation page lists the sample; its red Delete deletes it.
    rows_before = page.locator("form input[name=uuid]").count()
    problems.clear()
    page.click("form button[type=submit]")
    page.wait_for_load_state("networkidle")
    confirm_url = page.url
    report["confirm"] = {"url": confirm_url, "heading": page.text_content("h1") or "",
                         "question": page.text_content("#confirm-heading + p") or "",
                         "rows": page.locator("main tbody tr").count(), "cancel": page.get_attribute("a.cancel", "href"),
                         "button": page.text_content("button.danger") or "", "scripts": page.locator("script").count()}
    page.click("button.danger")
    page.wait_for_load_state("networkidle")
    report["afterDelete"] = {"url": page.url, "notice": page.text_content(".notice") or "",
                             "stillListed": page.locator("input[value='%s']" % uuid).count()}
    # Recently deleted lists it; Restore brings it back (a new sample: the type page has as many rows as before).
    page.goto(origin + "/recently-deleted")
    page.wait_for_load_state("networkidle")
    listed = page.locator("ul.deleted li").count()
    page.click("button.restore")
    page.wait_for_load_state("networkidle")
    report["afterRestore"] = {"listed": listed, "url": page.url, "notice": page.text_content(".notice") or "",
                              "left": page.locator("ul.deleted li").count()}
    page.goto(origin + type_path)
    report["afterRestore"]["rows"] = page.locator("form input[name=uuid]").count()
    report["afterRestore"]["rowsBefore"] = rows_before
    report["afterRestore"]["problems"] = list(problems)
    # For the screenshots: a second sample deleted (Recently deleted lists it), and a third one's question.
    page.locator("form button[type=submit]").nth(1).click()
    page.wait_for_load_state("networkidle")
    page.click("button.danger")
    page.wait_for_load_state("networkidle")
    page.locator("form button[type=submit]").first.click()
    page.wait_for_load_state("networkidle")
    confirm_url = page.url

    for width, height, label in [(1280, 900, "desktop"), (390, 844, "phone")]:
        page.set_viewport_size({"width": width, "height": height})
        for name, path in [("summary", "/summary"), ("browse", "/browse"), ("type", type_path), ("records", "/records")]:
            page.goto(origin + path)
            page.wait_for_load_state("networkidle")
            file = "%s/%s-%s.png" % (shots, name, label)
            page.screenshot(path=file, full_page=(name != "summary" or label == "desktop"))
            report["screenshots"].append(file)
        report["overflow-" + label] = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        # The delete confirmation and Recently deleted.
        for name, url in [("delete-confirm", confirm_url), ("recently-deleted", origin + "/recently-deleted")]:
            problems.clear()
            page.goto(url)
            page.wait_for_load_state("networkidle")
            report.setdefault("deleteLook", {})[name + "-" + label] = page_checks.look(page, problems)
            file = "%s/%s-%s.png" % (shots, name, label)
            page.screenshot(path=file, full_page=True)
            report.setdefault("deleteScreenshots", []).append(file)
            report.setdefault("deleteOverflow", {})[name + "-" + label] = page.evaluate(
                "document.documentElement.scrollWidth > window.innerWidth + 1")
    sharing_settings_and_a11y(browser, origin, context.cookies(), shots, report)
    browser.close()

print(json.dumps(report))
