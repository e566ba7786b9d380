"""What the Chromium page checks measure, written once for scripts/ui-look.py, share-look.py and
ui-data.py (Tests/healthTests drive them through Playwright and judge their JSON reports).

- `chromium_page(start_url)`: Debian's headless Chromium with one page at 1280 x 900 px, watched
  into a list of problems, that has opened `health ui`'s start URL and settled (the browser
  session the scripts share, set up here once).
- `watch(page, origin, problems)`: every console error or warning, page error, failed request
  and request to another origin is appended to `problems` (with `http_errors`, answers ≥ 400 too).
- `look(page, problems)`: the page's problems so far, whether it scrolls sideways, text smaller
  than 11 CSS px (SVG text by its rendered size), text under 4.5:1 contrast against its
  background, and how many scripts it has.
"""

from collections import namedtuple
from contextlib import contextmanager
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

# Debian's Chromium: never Playwright's own browser (not installed, and not what a person runs).
CHROMIUM = "/usr/bin/chromium"

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


def request_failure(request):
    """What a failed request of a page says, or None when it is not the page's fault: a request a
    newer navigation cancelled (Chromium's net::ERR_ABORTED, such as the previous page's icon still
    loading when the next page is opened). A document that fails to load is always reported."""
    error = request.failure or ""
    if error == "net::ERR_ABORTED" and request.resource_type != "document":
        return None
    return "failed: " + request.url + (" (" + error + ")" if error else "")


def watch(page, origin, problems, http_errors=False):
    """Appends what goes wrong on `page` to `problems`."""
    page.on("request", lambda request: problems.append("foreign: " + request.url) if not request.url.startswith(origin) else None)
    page.on("console", lambda message: problems.append("console " + message.type + ": " + message.text)
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append("page error: " + str(error)))
    page.on("requestfailed", lambda request: problems.append(request_failure(request)) if request_failure(request) else None)
    if http_errors:
        page.on("response", lambda response: problems.append("HTTP %d: %s" % (response.status, response.url))
                if response.status >= 400 else None)


def origin_of(url):
    """`scheme://host:port` of `url`: what a request must start with not to be foreign."""
    return "{0.scheme}://{0.netloc}".format(urlsplit(url))


Session = namedtuple("Session", ["page", "origin", "problems"])


@contextmanager
def chromium_page(start_url, width=1280, height=900, http_errors=False):
    """Headless Chromium (`CHROMIUM`, `--no-sandbox`) through Playwright, with one browser context
    of a `width` x `height` viewport and its page, every problem of the page appended to a list
    (`watch`, requests outside `start_url`'s origin included, and with `http_errors` answers
    of 400 or more). The page has opened `start_url`
    (`health ui`'s URL with its one-time secret, which sets the session cookie) and waited for
    the network to be idle. Yields a `Session(page, origin, problems)`; the browser is closed
    after, also when the block raises."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_context(viewport={"width": width, "height": height}).new_page()
            problems = []
            origin = origin_of(start_url)
            watch(page, origin, problems, http_errors=http_errors)
            page.goto(start_url)
            page.wait_for_load_state("networkidle")
            yield Session(page, origin, problems)
        finally:
            browser.close()


def look(page, problems):
    """The measurements of the page as it is now."""
    return {
        "problems": list(problems),
        "overflow": page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"),
        "smallText": page.evaluate(SMALL_TEXT), "lowContrast": page.evaluate(LOW_CONTRAST),
        "scripts": page.locator("script").count(),
    }


CHART_TEXT = """() => {
  const found = [];
  let labels = 0;
  for (const svg of document.querySelectorAll('svg.chart')) {
    const frame = svg.getBoundingClientRect();
    if (frame.width === 0) continue;
    const boxes = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent.trim(), box: t.getBoundingClientRect()}));
    labels += boxes.length;
    const id = svg.getAttribute('aria-labelledby') || '?';
    for (const {text, box} of boxes) {
      if (box.left < frame.left - 1 || box.right > frame.right + 1 || box.top < frame.top - 1 || box.bottom > frame.bottom + 1)
        found.push(id + ': "' + text + '" outside the chart');
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].box, b = boxes[j].box;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left), y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) found.push(id + ': "' + boxes[i].text + '" overlaps "' + boxes[j].text + '"');
      }
    }
  }
  return {labels, problems: found};
}"""

TABLE_CELLS = """() => {
  const found = [];
  let cells = 0;
  for (const table of document.querySelectorAll('table')) {
    if (table.getBoundingClientRect().width === 0) continue;
    for (const cell of table.querySelectorAll('th, td')) {
      cells++;
      const style = getComputedStyle(cell), text = cell.textContent.trim().slice(0, 40);
      let hidden = style.display === 'none' || style.visibility === 'hidden';
      for (let e = cell.parentElement; e && e !== table && !hidden; e = e.parentElement) hidden = getComputedStyle(e).display === 'none';
      if (hidden) { found.push('hidden: ' + text); continue; }
      const cuts = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
      if (cuts && cell.scrollWidth > cell.clientWidth + 1) found.push('clipped: ' + text);
      // A box around the table that hides what overflows it (not one that scrolls) must hold the cell whole.
      const box = cell.getBoundingClientRect();
      for (let e = table.parentElement; e; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if (o !== 'hidden' && o !== 'clip') continue;
        const outer = e.getBoundingClientRect();
        if (box.left < outer.left - 1 || box.right > outer.right + 1) { found.push('cut off: ' + text); break; }
      }
    }
  }
  return {cells, problems: found};
}"""


def chart_text(page):
    """The charts' text: how many labels, and each label outside its chart or overlapping another
    (their `getBoundingClientRect` boxes)."""
    return page.evaluate(CHART_TEXT)


def table_cells(page):
    """The tables' cells: how many, and each one hidden (`display: none`, a column a phone would
    not show), clipped by its own overflow or an ellipsis, or cut off by a box that hides what
    overflows it (a table that scrolls in its own box is fine)."""
    return page.evaluate(TABLE_CELLS)
