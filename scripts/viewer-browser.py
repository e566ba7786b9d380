#!/usr/bin/env python3
"""Opens a SMART Health Link in the viewer of `health serve` (GET /viewer) in real headless
Chromium (Debian's /usr/bin/chromium through Playwright; never Playwright's own browser
download), for Tests/healthTests/ViewerBrowserTests.swift.

Usage: viewer-browser.py VIEWER_URL SCREENSHOT_DIR PASSCODE RECIPIENT
  VIEWER_URL      {public-url}/viewer#shlink:/… (a link with flag P)
  SCREENSHOT_DIR  where the desktop and phone screenshots go
  PASSCODE        the link's passcode (a wrong one is tried first, at desktop width)
  RECIPIENT       the reader's name typed into the form

At 1280 and 390 px: loads the page, types the name and the passcode, opens the link, and
reports what the page shows (its text, each card's verdict), whether it scrolls sideways, and
every console message, page error, failed request and request to anywhere but the server.
Prints one JSON report on standard output; the Swift test judges it.
"""
import json
import os
import sys
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

import page_checks


def main():
    viewer_url, shots, passcode, recipient = sys.argv[1:5]
    parts = urlsplit(viewer_url)
    origin = parts.scheme + "://" + parts.netloc
    report = {"origin": origin, "widths": {}}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for label, width, height in [("desktop", 1280, 900), ("phone", 390, 844)]:
            # VIEWER_BROWSER_TEST_TLS=1: the server runs with a certificate of an authority made
            # for this test run alone (LoopbackCertificates), which Chromium does not know.
            context = browser.new_context(viewport={"width": width, "height": height},
                                          is_mobile=(label == "phone"), has_touch=(label == "phone"),
                                          ignore_https_errors=os.environ.get("VIEWER_BROWSER_TEST_TLS") == "1")
            page = context.new_page()
            page.set_default_timeout(300_000)  # a loaded CI machine: generous, never a timing assertion
            problems = []
            requests = []
            page.on("request", lambda request: requests.append(request.method + " " + request.url))
            page.on("console", lambda message: problems.append("console " + message.type + ": " + message.text)
                    if message.type in ("error", "warning") else None)
            page.on("pageerror", lambda error: problems.append("page error: " + str(error)))
            page.on("requestfailed", lambda request: problems.append(page_checks.request_failure(request))
                    if page_checks.request_failure(request) else None)
            result = {}
            response = page.goto(viewer_url)
            result["status"] = response.status if response else 0
            result["csp"] = response.headers.get("content-security-policy", "") if response else ""
            page.wait_for_selector("#ask:not([hidden])")
            result["label"] = page.text_content("#label")
            result["passcodeAsked"] = page.is_visible("#passcode")
            page.fill("#recipient", recipient)
            if label == "desktop":
                # A wrong passcode first: the page says so in words, with the attempts left, and asks again.
                page.fill("#passcode", passcode + "-wrong")
                page.click("#open")
                page.wait_for_selector("#problem:not([hidden])")
                result["wrongPasscode"] = page.text_content("#problem")
                result["askedAgain"] = page.is_visible("#ask")
                # The server's 401 is logged by Chromium as a failed resource load; it is expected here.
                problems[:] = [p for p in problems if "401" not in p]
            page.fill("#passcode", passcode)
            page.click("#open")
            page.wait_for_selector("#content:not([hidden])")
            page.wait_for_load_state("networkidle")
            result["text"] = page.inner_text("#content")
            result["verdicts"] = page.eval_on_selector_all("[data-verdict]", "nodes => nodes.map(n => n.dataset.verdict)")
            result["verdictTexts"] = page.eval_on_selector_all("[data-verdict]", "nodes => nodes.map(n => n.textContent)")
            result["overflow"] = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
            result["inlineScripts"] = page.evaluate("[...document.scripts].filter(s => !s.src).length")
            file = shots + "/viewer-" + label + ".png"
            page.screenshot(path=file, full_page=True)
            result["screenshot"] = file
            result["problems"] = problems
            result["requests"] = requests
            result["foreign"] = [r for r in requests if not r.split(" ", 1)[1].startswith(origin + "/")]
            report["widths"][label] = result
            context.close()
        browser.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
