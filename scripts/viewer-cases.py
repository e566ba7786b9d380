#!/usr/bin/env python3
"""The links viewer of `health serve` (GET /viewer) in real headless Chromium (Debian's
/usr/bin/chromium through Playwright) with links that are malformed, expired, revoked, hosted on
another loopback server, or long-term, for Tests/healthTests/ViewerBrowserTests.swift.

Usage: viewer-cases.py CONFIG.json
  CONFIG.json  {"viewer": "http://127.0.0.1:A/viewer", "shots": DIR, "valid": "shlink:/…" (a link
               without flags on server B), "manifest": its manifest URL, "key": its key (base64url),
               "expired": "shlink:/…", "revoked": "shlink:/…", "longTerm": "shlink:/…" (flag L),
               "marker": a file this script creates once the long-term link's first content shows,
               "updated": a text the long-term link's updated content shows}

1. A table of malformed links (fragments) and a seeded fuzz of mutated links: each loads the
   viewer and must end with a message in words (#problem) or the form (#ask), with no script
   error, no console error and no request but the page's own three.
2. An expired link: "expired" is said and nothing is fetched. A revoked link: the 404 said.
3. A link on another loopback origin (server B, plain HTTP) opens; requests go to A and B only.
4. A long-term link: the first content shows; a second page opening it at once (same reader) is
   answered 429 and says it waits; the first page, polling after the server's Retry-After, shows
   the updated content (the Swift test updates the link once the marker file exists).
Prints one JSON report on standard output; the Swift test judges it.
"""
import base64
import json
import random
import sys
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright


def b64(data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def link(payload):
    return "shlink:/" + b64(json.dumps(payload, separators=(",", ":")))


def malformed_table(valid_url, key):
    """(name, fragment, words the message must hold)."""
    good = {"url": valid_url, "key": key}
    return [
        ("empty fragment", "", "holds no SMART Health Link"),
        ("no shlink prefix", "hello", "holds no SMART Health Link"),
        ("nothing after the prefix", "shlink:/", "ends after shlink:/"),
        ("not base64url", "shlink:/!!!$$$", "payload is not readable"),
        ("impossible base64 length", "shlink:/A", "payload is not readable"),
        ("not JSON", "shlink:/" + b64("not json"), "payload is not readable"),
        ("invalid UTF-8", "shlink:/" + b64(b"\xff\xfe{\"url\":1}"), "payload is not readable"),
        ("JSON null", "shlink:/" + b64("null"), "not a set of fields"),
        ("JSON array", "shlink:/" + b64("[1,2]"), "not a set of fields"),
        ("JSON string", "shlink:/" + b64("\"x\""), "not a set of fields"),
        ("JSON number", "shlink:/" + b64("42"), "not a set of fields"),
        ("no url", link({"key": key}), "no address or no key"),
        ("no key", link({"url": valid_url}), "no address or no key"),
        ("url a number", link({"url": 5, "key": key}), "no address or no key"),
        ("url not a URL", link({"url": "not a url", "key": key}), "address is not a URL"),
        ("url javascript:", link({"url": "javascript:alert(1)", "key": key}), "not HTTPS"),
        ("url file:", link({"url": "file:///etc/passwd", "key": key}), "not HTTPS"),
        ("url plain HTTP elsewhere", link({"url": "http://example.org/shl/x", "key": key}), "not HTTPS"),
        ("url with credentials", link({"url": "https://user:pw@example.org/shl/x", "key": key}), "not HTTPS"),
        ("url longer than 128", link({"url": "https://example.org/" + "a" * 120, "key": key}), "longer than 128"),
        ("key not base64url", link({"url": valid_url, "key": "!" * 43}), "key is not base64url"),
        ("key too short", link({"url": valid_url, "key": "AAAA"}), "not 32 bytes"),
        ("key too long", link({"url": valid_url, "key": b64(bytes(33))}), "not 32 bytes"),
        ("U with P", link(dict(good, flag="PU")), "cannot ask a passcode"),
        ("broken percent-escape", "shlink%3A%2F" + "%E0%A4%A", "broken %-escapes"),
        ("expired long ago (exp -1e308)", link(dict(good, exp=-1e308)), "expired"),
        ("expired at 0", link(dict(good, exp=0)), "expired on 1970-01-01"),
    ]


# Payloads whose fields are each drawn from valid and invalid values; the viewer must answer
# every one with a message or the form, never a script error.
def fuzz_payload(rng, valid_url, key):
    choices = {
        "url": [valid_url, valid_url, "", 1, None, [], {}, "javascript:alert(1)", "http://example.org/x",
                "https://" + "a" * 200, "data:text/html,x", "https://exa mple.org/", "//example.org/x"],
        "key": [key, key, "", "AAAA", "!" * 43, None, 5, [key], b64(bytes(31)), key + "="],
        "exp": [None, 0, -1, 1e308, -1e308, "tomorrow", 4102444800, 2 ** 53, [1], True, 8.64e15 + 1],
        "flag": [None, "", "L", "P", "U", "LP", "PU", "Z", "LLL", 5, ["L"]],
        "label": [None, "", 123, "x" * 500, "<img src=x onerror=alert(1)>", "“Díaz”", {"a": 1}],
        "v": [None, 1, 2, "1", -1],
    }
    payload = {}
    for name, values in choices.items():
        value = rng.choice(values)
        if value is not None or rng.random() < 0.2:
            payload[name] = value
    if rng.random() < 0.3:
        payload["_extension" + str(rng.randint(0, 9))] = rng.choice([1, "x", None, {"nested": [1, 2]}])
    return payload


def mutate(rng, text):
    encoded = text[len("shlink:/"):]
    kind = rng.randrange(4)
    if kind == 0:
        return "shlink:/" + encoded[:rng.randrange(len(encoded))]
    if kind == 1:
        chars = list(encoded)
        for _ in range(rng.randint(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice("ABCxyz019-_+/=%.~ ")
        return "shlink:/" + "".join(chars)
    if kind == 2:
        return "shlink:/" + encoded + rng.choice(["=", "==", "A", "%", ".", "#x"])
    return rng.choice(["https://viewer.example/x#", "", "  "]) + "shlink:/" + encoded


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    viewer = config["viewer"]
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(viewer))
    link_origin = "{0.scheme}://{0.netloc}".format(urlsplit(config["manifest"]))
    report = {"malformed": [], "fuzz": {"cases": 0, "failures": []}}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])

        def watched(context):
            page = context.new_page()
            page.problems = []
            page.requests = []
            page.on("request", lambda request: page.requests.append(request.method + " " + request.url))
            page.on("console", lambda message: page.problems.append("console " + message.type + ": " + message.text)
                    if message.type in ("error", "warning") else None)
            page.on("pageerror", lambda error: page.problems.append("page error: " + str(error)))
            return page

        def settle(page, fragment):
            """Loads the viewer with `fragment`; returns (state, message)."""
            page.goto("about:blank")
            page.requests.clear()
            page.goto(viewer + "#" + fragment)
            page.wait_for_function("() => !document.getElementById('problem').hidden || !document.getElementById('ask').hidden")
            if page.is_visible("#problem"):
                return "problem", page.text_content("#problem")
            return "ask", ""

        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = watched(context)
        for name, fragment, words in malformed_table(config["manifest"], config["key"]):
            page.problems.clear()
            state, message = settle(page, fragment)
            foreign = [r for r in page.requests if not r.split(" ", 1)[1].startswith(origin + "/")]
            report["malformed"].append({"name": name, "state": state, "message": message, "expected": words,
                                        "ok": state == "problem" and words in message and not page.problems and not foreign,
                                        "problems": list(page.problems), "foreign": foreign})

        rng = random.Random(37)
        failures = report["fuzz"]["failures"]
        for index in range(160):
            if index % 2 == 0:
                fragment = link(fuzz_payload(rng, config["manifest"], config["key"]))
            else:
                fragment = mutate(rng, config["valid"])
            page.problems.clear()
            state, message = settle(page, fragment)
            report["fuzz"]["cases"] += 1
            fetched = [r for r in page.requests if not r.split(" ", 1)[1].startswith(origin + "/viewer")]
            if page.problems or fetched or (state == "problem" and not message.strip()):
                failures.append({"fragment": fragment, "state": state, "message": message, "problems": list(page.problems),
                                 "fetched": fetched})
        context.close()

        # An expired link: said, and nothing fetched.
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = watched(context)
        state, message = settle(page, config["expired"])
        report["expired"] = {"state": state, "message": message, "problems": list(page.problems),
                             "fetched": [r for r in page.requests if "/shl" in r]}

        # A revoked link: the server's 404 said in words.
        page.problems.clear()
        state, _ = settle(page, config["revoked"])
        page.fill("#recipient", "Dr. Díaz")
        page.click("#open")
        page.wait_for_selector("#problem:not([hidden])")
        report["revoked"] = {"state": state, "message": page.text_content("#problem"),
                             "problems": [p for p in page.problems if "404" not in p]}

        # A link on server B (another loopback origin, plain HTTP) opens in A's viewer.
        page.problems.clear()
        settle(page, config["valid"])
        page.fill("#recipient", "Dr. Díaz")
        page.click("#open")
        page.wait_for_selector("#content:not([hidden])")
        page.wait_for_load_state("networkidle")
        report["loopback"] = {"text": page.inner_text("#content"), "problems": list(page.problems), "requests": list(page.requests),
                              "elsewhere": [r for r in page.requests
                                            if not r.split(" ", 1)[1].startswith((origin + "/", link_origin + "/"))],
                              "csp": page.evaluate("fetch(location.href).then(r => r.headers.get('content-security-policy'))")}
        page.screenshot(path=config["shots"] + "/viewer-loopback-desktop.png", full_page=True)
        context.close()

        # A long-term link: polled after Retry-After; a second page at once is told to wait (429).
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        first = watched(context)
        settle(first, config["longTerm"])
        first.fill("#recipient", "Dr. Díaz")
        first.click("#open")
        first.wait_for_selector("#content:not([hidden])")
        first.wait_for_selector("#updates:not([hidden])")
        long_term = {"firstText": first.inner_text("#content"), "firstUpdates": first.text_content("#updates")}
        second = watched(context)
        settle(second, config["longTerm"])
        second.fill("#recipient", "Dr. Díaz")
        second.click("#open")
        second.wait_for_function("() => document.body.hasAttribute('data-waited')")
        long_term["secondStatus"] = second.text_content("#status")
        long_term["secondShown"] = second.is_visible("#content")
        long_term["secondProblems"] = [p for p in second.problems if "429" not in p]
        second.close()
        with open(config["marker"], "w", encoding="utf-8") as marker:
            marker.write("shown\n")
        first.wait_for_function("() => document.body.dataset.version === '2'", timeout=300_000)
        long_term["updatedText"] = first.inner_text("#content")
        long_term["updatedUpdates"] = first.text_content("#updates")
        long_term["problems"] = [p for p in first.problems if "429" not in p]
        long_term["overflow"] = first.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        first.screenshot(path=config["shots"] + "/viewer-long-term-phone.png", full_page=True)
        report["longTerm"] = long_term
        context.close()
        browser.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
