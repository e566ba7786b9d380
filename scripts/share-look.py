#!/usr/bin/env python3
"""The Share page of `health ui` (with a wallet) in real headless Chromium (Debian's
/usr/bin/chromium through Playwright), for Tests/healthTests/UIShareTests.swift: the page, a
created link (its QR code) and a preview of an opened link, at 1280 and 390 px in the light and
the dark theme, with the page's own forms (no script on the page).

Usage: share-look.py START_URL SCREENSHOT_DIR
  START_URL       the URL `health ui` printed (with its one-time secret)
  SCREENSHOT_DIR  where share-{page,created,preview}-{1280,390}-{light,dark}.png go

For each view it reports console errors, failed or foreign requests, whether the page scrolls
sideways, text smaller than 11 CSS px, text whose contrast is under 4.5:1, and the scripts on the
page. Prints one JSON report on standard output; the Swift test judges it.
"""
import json
import sys

from page_checks import chromium_page, look


def measure(page, problems):
    page.wait_for_load_state("networkidle")
    return {
        **look(page, problems),
        "wide": page.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > window.innerWidth + 1)
                                  .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ': '
                                       + (e.textContent || '').trim().slice(0, 40)).slice(0, 10)"""),
    }


def main():
    start_url, shots = sys.argv[1:3]
    report = {"views": {}, "screenshots": []}
    with chromium_page(start_url) as (page, origin, problems):
        link = None
        for width in (1280, 390):
            for scheme in ("light", "dark"):
                page.set_viewport_size({"width": width, "height": 900})
                page.emulate_media(color_scheme=scheme)
                suffix = "%d-%s" % (width, scheme)

                problems.clear()
                page.goto(origin + "/share")
                page.eval_on_selector_all("details.picks", "els => els.forEach(e => e.open = true)")
                report["views"]["page " + suffix] = measure(page, problems)
                file = "%s/share-page-%s.png" % (shots, suffix)
                page.screenshot(path=file, full_page=True)
                report["screenshots"].append(file)

                # Create a link with the page's own form: a single record, a passcode, long-term.
                problems.clear()
                page.uncheck("input[name=summary]")
                page.check("details.picks input[name^='record-']")
                page.fill("#share-passcode", "2468")
                page.fill("#share-attempts", "5")
                page.fill("#share-label", "For Dr. Lee (%s)" % suffix)
                page.check("input[name=kind][value='long-term']")
                page.click("form[action='/share/create'] button[type=submit]")
                page.wait_for_selector("#created-heading")
                report["views"]["created " + suffix] = measure(page, problems)
                link = page.input_value("#created-link")
                file = "%s/share-created-%s.png" % (shots, suffix)
                page.screenshot(path=file, full_page=True)
                report["screenshots"].append(file)

                # Open it with the page's open form: the preview.
                problems.clear()
                page.goto(origin + "/share")
                page.fill("#open-link", link)
                page.fill("#open-passcode", "2468")
                page.fill("#open-recipient", "Dr. Lee")
                page.click("form[action='/share/open'] button[type=submit]")
                page.wait_for_selector("#preview-heading")
                view = measure(page, problems)
                view["heading"] = page.text_content("#preview-heading")
                report["views"]["preview " + suffix] = view
                file = "%s/share-preview-%s.png" % (shots, suffix)
                page.screenshot(path=file, full_page=True)
                report["screenshots"].append(file)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
