#!/usr/bin/env python3
"""The look of `health ui` in real headless Chromium (Debian's /usr/bin/chromium through
Playwright), for Tests/healthTests/UILookTests.swift: every page at 1280 and 390 px, in the light
and the dark theme (`prefers-color-scheme`), in one browser context.

Usage: ui-look.py START_URL SCREENSHOT_DIR EXPECTED_TODAY TYPE_PATH
  START_URL       the URL `health ui` printed (with its one-time secret)
  SCREENSHOT_DIR  where the screenshots of Today, TYPE_PATH and Records go
  EXPECTED_TODAY  JSON: Today card kind -> the number the statistics API gives (in the unit shown)
  TYPE_PATH       a type page (/browse/HK...)

For each page, width and theme it reports console errors, failed or foreign requests, whether the
page scrolls sideways (at 390 px), the text smaller than 11 CSS px (SVG text by its size on
screen) and the text whose contrast with its background is under 4.5:1. Prints one JSON report.
"""
import json
import sys
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

SMALL_TEXT = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, element = node.parentElement;
    if (!element || !node.textContent.trim() || element.closest('.skip')) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let size = parseFloat(getComputedStyle(element).fontSize);
    if (element instanceof SVGElement && element.getScreenCTM()) {
      const m = element.getScreenCTM();
      size *= Math.hypot(m.a, m.b);
    }
    if (size < 10.95) found.push(element.tagName + ' ' + size.toFixed(1) + 'px: ' + node.textContent.trim().slice(0, 30));
  }
  return found;
}"""

LOW_CONTRAST = """() => {
  const parse = text => { const v = text.match(/[\\d.]+/g); return v ? v.map(Number) : [0, 0, 0, 0]; };
  const lum = ([r, g, b]) => { const c = [r, g, b].map(x => { x /= 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
                                return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
  const background = element => {
    for (let e = element; e; e = e.parentElement) {
      const v = parse(getComputedStyle(e).backgroundColor);
      if (v.length < 4 || v[3] > 0.5) return v;
    }
    return [255, 255, 255];
  };
  const found = [], seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, element = node.parentElement;
    if (!element || !node.textContent.trim() || seen.has(element) || element.closest('.skip')) continue;
    seen.add(element);
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(element);
    const ink = parse(element instanceof SVGElement ? style.fill : style.color);
    const back = background(element instanceof SVGElement ? element.closest('svg') : element);
    const [a, b] = [lum(ink), lum(back)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) found.push(element.tagName + ' ' + ratio.toFixed(2) + ': ' + node.textContent.trim().slice(0, 30));
  }
  return found;
}"""

start_url, shots, expected_today, type_path = sys.argv[1:5]
expected = json.loads(expected_today)
origin = "{0.scheme}://{0.netloc}".format(urlsplit(start_url))
pages = ["/", "/summary", "/summary?period=month", "/summary?period=year", "/browse", type_path, "/records", "/cards",
         "/sharing", "/profile", "/settings", "/recently-deleted"]
report = {"pages": {}, "screenshots": [], "today": {}, "expectedToday": expected}

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = []
    page.on("request", lambda request: problems.append("foreign: " + request.url) if not request.url.startswith(origin) else None)
    page.on("console", lambda message: problems.append("console " + message.type + ": " + message.text)
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append("page error: " + str(error)))
    page.on("requestfailed", lambda request: problems.append("failed: " + request.url))
    page.on("response", lambda response: problems.append("HTTP %d: %s" % (response.status, response.url)) if response.status >= 400 else None)
    page.goto(start_url)
    page.wait_for_load_state("networkidle")
    # Today's numbers, as the page shows them.
    for kind in expected:
        element = page.query_selector("[data-kind='%s'] .tile-value" % kind)
        report["today"][kind] = element.get_attribute("data-value") if element else None
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
                report["pages"][key] = {
                    "status": response.status if response else 0, "problems": list(problems),
                    "overflow": page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"),
                    "smallText": page.evaluate(SMALL_TEXT), "lowContrast": page.evaluate(LOW_CONTRAST),
                    "scripts": page.locator("script").count(),
                }
                name = {"/": "today", type_path: "type", "/records": "records"}.get(path)
                if name:
                    page.eval_on_selector_all("details", "els => els.forEach(e => e.open = false)")
                    file = "%s/%s-%d-%s.png" % (shots, name, width, scheme)
                    page.screenshot(path=file, full_page=True)
                    report["screenshots"].append(file)
    browser.close()

print(json.dumps(report))
