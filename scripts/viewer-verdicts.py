#!/usr/bin/env python3
"""Opens a SMART Health Link in the viewer of the FhirBlocks server (GET /viewer) in real headless
Chromium (Debian's /usr/bin/chromium through Playwright; never Playwright's own browser download),
for Tests/FhirBlocksServerTests/HTTP/SharedLinkViewerBrowserTests.swift.

Usage: viewer-verdicts.py VIEWER_URL RECIPIENT
  VIEWER_URL  {public-url}/viewer#shlink:/… (a link without a passcode)
  RECIPIENT   the reader's name typed into the form

Loads the page at 1280 px, types the name, opens the link and reports what the page shows: the
content's text, each card's verdict state and words, the page errors (script errors), and every
request. Prints one JSON report on standard output; the Swift test judges it.
"""
import json
import sys

from playwright.sync_api import sync_playwright


def main():
    viewer_url, recipient = sys.argv[1:3]
    report = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        # Generous: a loaded 2-core CI machine can keep an answer waiting for minutes.
        page.set_default_timeout(300_000)
        errors = []
        requests = []
        page.on("request", lambda request: requests.append(request.method + " " + request.url))
        page.on("pageerror", lambda error: errors.append("page error: " + str(error)))
        response = page.goto(viewer_url)
        report["status"] = response.status if response else 0
        page.wait_for_selector("#ask:not([hidden])")
        page.fill("#recipient", recipient)
        page.click("#open")
        page.wait_for_selector("#content:not([hidden])")
        page.wait_for_load_state("networkidle")
        report["text"] = page.inner_text("#content")
        report["verdicts"] = page.eval_on_selector_all("[data-verdict]", "nodes => nodes.map(n => n.dataset.verdict)")
        report["verdictTexts"] = page.eval_on_selector_all("[data-verdict]", "nodes => nodes.map(n => n.textContent)")
        report["problem"] = page.text_content("#problem") if page.is_visible("#problem") else ""
        report["errors"] = errors
        report["requests"] = requests
        context.close()
        browser.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
