// The viewer's page, script and stylesheet, served by `ViewerController` (kept as Swift strings so
// the `health` binary carries them without resource bundles).

enum ViewerAssets {
    /// The page: a form for the reader's name and the passcode, and where the records are shown.
    static let page = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shared health records</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="viewer/viewer.css">
<script src="viewer/viewer.js" defer></script>
</head>
<body>
<main>
<header>
<p class="kicker">SMART Health Link</p>
<h1 id="label">Shared health records</h1>
<p class="quiet">Opened in this browser: the records are decrypted here, and neither the link's key nor the records are sent anywhere.</p>
</header>
<noscript><p class="problem">This viewer needs JavaScript to decrypt the shared records.</p></noscript>
<p id="problem" class="problem" role="alert" tabindex="-1" hidden></p>
<form id="ask" hidden>
<p class="field"><label for="recipient">Your name</label>
<input id="recipient" name="recipient" autocomplete="name" maxlength="200" required>
<span class="hint">The person who shared this link sees who opened it.</span></p>
<p class="field" id="passcode-field" hidden><label for="passcode">Passcode</label>
<input id="passcode" name="passcode" type="password" autocomplete="off"></p>
<p><button id="open" type="submit">Open the records</button> <span id="status" role="status"></span></p>
</form>
<p id="updates" class="quiet" role="status" hidden></p>
<div id="content" hidden></div>
</main>
</body>
</html>
"""#

    /// The script: reads the link from the fragment, fetches, decrypts and shows the files in words.
    static let script = #"""
// The SMART Health Links viewer of `health serve` (GET /viewer). It reads the link from the
// address's fragment (never sent to a server), asks the passcode and the reader's name, fetches the
// manifest and the encrypted files, decrypts them here (WebCrypto AES-GCM, DecompressionStream for
// zip: DEF) and shows them in words. The key and the decrypted content never leave the browser.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const MAX_FILE = 16 * 1024 * 1024;

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function base64urlBytes(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
    const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const ascii = new TextEncoder();

  async function inflateRaw(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    const reader = stream.getReader();
    const chunks = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_FILE) {
        await reader.cancel();
        throw new Error("the file inflates to more than 16 MB");
      }
      chunks.push(value);
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  // Whether the viewer may contact `url`: HTTPS, or plain HTTP on this machine's loopback
  // (127.0.0.1, localhost: a server the reader runs), or this page's own server. The content
  // security policy's connect-src allows the same and nothing else.
  function reachable(url) {
    if (url.username || url.password) return false;
    if (url.protocol === "https:") return true;
    if (url.origin === location.origin) return true;
    return url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost");
  }

  // The link in the fragment: shlink:/ then base64url JSON {url, key, exp?, flag?, label?, v?}.
  // Every malformed link is a clear message (an Error whose message is shown), never a script error.
  function readLink(hash) {
    let fragment;
    try {
      fragment = decodeURIComponent(String(hash).replace(/^#/, ""));
    } catch (e) {
      throw new Error("The link is damaged: its address holds broken %-escapes.");
    }
    const start = fragment.indexOf("shlink:/");
    if (start < 0) throw new Error("This address holds no SMART Health Link (it should end in #shlink:/…).");
    const encoded = fragment.slice(start + "shlink:/".length).trim();
    if (!encoded) throw new Error("The link is damaged: it ends after shlink:/.");
    if (encoded.length > 65536) throw new Error("The link is damaged: it is too long to be a link.");
    let payload;
    try {
      payload = JSON.parse(utf8.decode(base64urlBytes(encoded)));
    } catch (e) {
      throw new Error("The link is damaged: its payload is not readable.");
    }
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      throw new Error("The link is damaged: its payload is not a set of fields.");
    }
    if (typeof payload.url !== "string" || typeof payload.key !== "string") {
      throw new Error("The link is damaged: it has no address or no key.");
    }
    let url;
    try {
      url = new URL(payload.url);
    } catch (e) {
      throw new Error("The link is damaged: its address is not a URL.");
    }
    if (!reachable(url)) {
      throw new Error("The link's address is not HTTPS (nor a server on this machine): it is not opened.");
    }
    if (payload.url.length > 128) throw new Error("The link's address is longer than 128 characters: it is not opened.");
    let key;
    try {
      key = base64urlBytes(payload.key);
    } catch (e) {
      throw new Error("The link is damaged: its key is not base64url.");
    }
    if (key.length !== 32) throw new Error("The link is damaged: its key is not 32 bytes.");
    const flags = typeof payload.flag === "string" ? payload.flag : "";
    if (flags.includes("U") && flags.includes("P")) {
      throw new Error("The link is damaged: a direct link (U) cannot ask a passcode (P).");
    }
    // exp is a hint in epoch seconds; anything but a finite number is ignored.
    const exp = typeof payload.exp === "number" && Number.isFinite(payload.exp) ? payload.exp : null;
    return {
      url: payload.url,
      key: key,
      exp: exp,
      flags: flags,
      label: typeof payload.label === "string" ? payload.label.slice(0, 80) : null,
    };
  }

  // The day an epoch-seconds instant falls on (YYYY-MM-DD), or null when it is out of range.
  function dayOf(seconds) {
    const date = new Date(seconds * 1000);
    return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10);
  }

  async function decrypt(jwe, keyBytes) {
    const parts = String(jwe).trim().split(".");
    if (parts.length !== 5) throw new Error("a file is not an encrypted file (JWE)");
    let header;
    try {
      header = JSON.parse(utf8.decode(base64urlBytes(parts[0])));
    } catch (e) {
      throw new Error("a file's header is not readable");
    }
    if (header.alg !== "dir" || header.enc !== "A256GCM") throw new Error("a file is encrypted in a way this viewer does not read");
    if (parts[1] !== "") throw new Error("a file is not encrypted with the link's key");
    const iv = base64urlBytes(parts[2]);
    const ciphertext = base64urlBytes(parts[3]);
    const tag = base64urlBytes(parts[4]);
    const sealed = new Uint8Array(ciphertext.length + tag.length);
    sealed.set(ciphertext, 0);
    sealed.set(tag, ciphertext.length);
    const key = await crypto.subtle.importKey("raw", keyBytes, { name: "AES-GCM" }, false, ["decrypt"]);
    let plain;
    try {
      plain = new Uint8Array(await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: iv, additionalData: ascii.encode(parts[0]), tagLength: 128 }, key, sealed));
    } catch (e) {
      throw new Error("a file does not decrypt with the link's key (it was altered, or the link is not its own)");
    }
    if (header.zip === "DEF") plain = await inflateRaw(plain);
    else if (header.zip !== undefined) throw new Error("a file is compressed in a way this viewer does not read");
    return { contentType: header.cty || null, text: utf8.decode(plain) };
  }

  // ---- FHIR in words ----

  function codeText(concept) {
    if (!concept) return null;
    if (concept.text) return concept.text;
    for (const coding of concept.coding || []) {
      if (coding.display) return coding.display;
    }
    const first = (concept.coding || [])[0];
    return first ? [first.system, first.code].filter(Boolean).join(" ") : null;
  }

  // A status concept (clinicalStatus): its words, else its bare code (the code system's address says nothing to a reader).
  function statusText(concept) {
    if (!concept) return null;
    if (concept.text) return concept.text;
    for (const coding of concept.coding || []) {
      if (coding.display) return coding.display;
    }
    const first = (concept.coding || [])[0];
    return first && first.code ? String(first.code) : null;
  }

  function dateText(value) {
    if (!value || typeof value !== "string") return null;
    // FHIR dates are partial (YYYY, YYYY-MM, YYYY-MM-DD) or instants: shown as written, day first.
    const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(value);
    if (!match) return value;
    if (!match[2]) return match[1];
    const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    const month = months[Number(match[2]) - 1] || match[2];
    return (match[3] ? Number(match[3]) + " " : "") + month + " " + match[1];
  }

  function periodText(resource, names) {
    for (const name of names) {
      const value = resource[name];
      if (typeof value === "string") return dateText(value);
      if (value && typeof value === "object") {
        if (value.start) return "from " + dateText(value.start) + (value.end ? " to " + dateText(value.end) : "");
        if (value.end) return "until " + dateText(value.end);
      }
    }
    return null;
  }

  function quantityText(q) {
    if (!q || q.value === undefined) return null;
    return String(q.value) + (q.unit || q.code ? " " + (q.unit || q.code) : "");
  }

  function valueText(item) {
    if (item.valueQuantity) return quantityText(item.valueQuantity);
    if (item.valueCodeableConcept) return codeText(item.valueCodeableConcept);
    if (typeof item.valueString === "string") return item.valueString;
    if (typeof item.valueBoolean === "boolean") return item.valueBoolean ? "yes" : "no";
    if (typeof item.valueInteger === "number") return String(item.valueInteger);
    if (item.valueRange) {
      const low = quantityText(item.valueRange.low), high = quantityText(item.valueRange.high);
      return [low, high].filter(Boolean).join(" to ");
    }
    if (typeof item.valueDateTime === "string") return dateText(item.valueDateTime);
    return null;
  }

  function humanName(names) {
    const name = (names || [])[0];
    if (!name) return null;
    if (name.text) return name.text;
    return [(name.prefix || []).join(" "), (name.given || []).join(" "), name.family, (name.suffix || []).join(" ")]
      .filter(Boolean).join(" ");
  }

  function medicationName(resource, byReference) {
    if (resource.medicationCodeableConcept) return codeText(resource.medicationCodeableConcept);
    const reference = resource.medicationReference && resource.medicationReference.reference;
    const medication = reference ? byReference(reference) : null;
    if (medication) return codeText(medication.code);
    return resource.medicationReference && resource.medicationReference.display || null;
  }

  const sections = [
    { title: "Allergies and intolerances", types: ["AllergyIntolerance"], empty: "No allergies listed." },
    { title: "Medications", types: ["MedicationStatement", "MedicationRequest"], empty: "No medications listed." },
    { title: "Problems", types: ["Condition"], empty: "No problems listed." },
    { title: "Immunizations", types: ["Immunization"], empty: "No immunizations listed." },
    { title: "Results", types: ["Observation", "DiagnosticReport"], empty: "No results listed." },
  ];

  function describe(resource, byReference) {
    const details = [];
    let title = null;
    switch (resource.resourceType) {
      case "AllergyIntolerance": {
        title = codeText(resource.code) || "An allergy";
        const reactions = (resource.reaction || []).flatMap((r) => (r.manifestation || []).map(codeText)).filter(Boolean);
        if (reactions.length) details.push("reaction: " + reactions.join(", "));
        if (resource.criticality) details.push("criticality: " + resource.criticality);
        const status = statusText(resource.clinicalStatus);
        if (status) details.push(status);
        const when = periodText(resource, ["onsetDateTime", "onsetPeriod", "recordedDate"]);
        if (when) details.push("since " + when);
        break;
      }
      case "MedicationStatement":
      case "MedicationRequest": {
        title = medicationName(resource, byReference) || "A medication";
        const dosage = (resource.dosage || resource.dosageInstruction || []).map((d) => d.text).filter(Boolean);
        if (dosage.length) details.push(dosage.join("; "));
        if (resource.status) details.push(resource.status);
        const when = periodText(resource, ["effectiveDateTime", "effectivePeriod", "authoredOn", "dateAsserted"]);
        if (when) details.push(when);
        break;
      }
      case "Condition": {
        title = codeText(resource.code) || "A problem";
        const status = statusText(resource.clinicalStatus);
        if (status) details.push(status);
        const when = periodText(resource, ["onsetDateTime", "onsetPeriod", "recordedDate"]);
        if (when) details.push("since " + when);
        break;
      }
      case "Immunization": {
        title = codeText(resource.vaccineCode) || "A vaccine";
        const when = periodText(resource, ["occurrenceDateTime"]) || resource.occurrenceString;
        if (when) details.push("given " + when);
        if (resource.lotNumber) details.push("lot " + resource.lotNumber);
        const performer = (resource.performer || []).map((p) => p.actor && p.actor.display).filter(Boolean);
        if (performer.length) details.push("by " + performer.join(", "));
        if (resource.status && resource.status !== "completed") details.push(resource.status);
        break;
      }
      case "Observation": {
        title = codeText(resource.code) || "A result";
        const value = valueText(resource);
        if (value) details.push(value);
        for (const component of resource.component || []) {
          const componentValue = valueText(component);
          if (componentValue) details.push((codeText(component.code) || "value") + ": " + componentValue);
        }
        const interpretation = (resource.interpretation || []).map(codeText).filter(Boolean);
        if (interpretation.length) details.push(interpretation.join(", "));
        const when = periodText(resource, ["effectiveDateTime", "effectivePeriod", "issued"]);
        if (when) details.push("on " + when);
        break;
      }
      case "DiagnosticReport": {
        title = codeText(resource.code) || "A report";
        if (resource.conclusion) details.push(resource.conclusion);
        const when = periodText(resource, ["effectiveDateTime", "effectivePeriod", "issued"]);
        if (when) details.push("on " + when);
        break;
      }
    }
    return { title: title, details: details };
  }

  function patientText(patient) {
    const parts = [];
    const born = dateText(patient.birthDate);
    if (born) parts.push("born " + born);
    if (patient.gender) parts.push(patient.gender);
    return { name: humanName(patient.name) || "A person", details: parts };
  }

  // Renders the resources of a Bundle (document or collection) or a single resource.
  function renderFHIR(container, resource) {
    const resources = [];
    if (resource.resourceType === "Bundle") {
      for (const entry of resource.entry || []) {
        if (entry && entry.resource && typeof entry.resource.resourceType === "string") {
          resources.push({ fullUrl: entry.fullUrl, resource: entry.resource });
        }
      }
    } else if (typeof resource.resourceType === "string") {
      resources.push({ fullUrl: null, resource: resource });
    }
    const byReference = (reference) => {
      for (const item of resources) {
        const r = item.resource;
        if (item.fullUrl === reference || (r.id && reference === r.resourceType + "/" + r.id)) return r;
      }
      return null;
    };
    const composition = resources.find((item) => item.resource.resourceType === "Composition");
    if (composition && composition.resource.title) container.append(el("p", composition.resource.title, "doc-title"));
    for (const item of resources.filter((item) => item.resource.resourceType === "Patient")) {
      const patient = patientText(item.resource);
      const block = el("section", null, "patient");
      block.append(el("h3", patient.name));
      if (patient.details.length) block.append(el("p", patient.details.join(", ")));
      container.append(block);
    }
    let shown = 0;
    for (const section of sections) {
      const items = resources.filter((item) => section.types.includes(item.resource.resourceType));
      if (!items.length && !composition) continue;
      const block = el("section", null, "group");
      block.append(el("h3", section.title));
      if (!items.length) block.append(el("p", section.empty, "quiet"));
      const list = el("ul", null, "items");
      for (const item of items) {
        const words = describe(item.resource, byReference);
        const row = el("li");
        row.append(el("strong", words.title));
        if (words.details.length) row.append(el("span", words.details.join(" · "), "details"));
        list.append(row);
        shown += 1;
      }
      if (items.length) block.append(list);
      container.append(block);
    }
    const known = new Set(["Patient", "Composition"].concat(...sections.map((s) => s.types)));
    const others = {};
    for (const item of resources) {
      const type = item.resource.resourceType;
      if (!known.has(type)) others[type] = (others[type] || 0) + 1;
    }
    const otherText = Object.keys(others).sort().map((t) => others[t] + " " + t).join(", ");
    if (otherText) container.append(el("p", "Also in this file: " + otherText + ".", "quiet"));
    if (!shown && !otherText && !resources.some((item) => item.resource.resourceType === "Patient")) {
      container.append(el("p", "This file holds no records.", "quiet"));
    }
  }

  // ---- Health cards ----

  const keySets = new Map();

  async function issuerKeys(iss) {
    if (!keySets.has(iss)) {
      keySets.set(iss, (async () => {
        let url;
        try {
          url = new URL(iss.replace(/\/+$/, "") + "/.well-known/jwks.json");
        } catch (e) {
          return null;
        }
        if (!reachable(url)) return null;
        try {
          const response = await fetch(url.href, { credentials: "omit", referrerPolicy: "no-referrer" });
          if (!response.ok) return null;
          const set = await response.json();
          return Array.isArray(set.keys) ? set.keys : null;
        } catch (e) {
          return null;
        }
      })());
    }
    return keySets.get(iss);
  }

  async function readCard(jws) {
    const parts = String(jws).trim().split(".");
    if (parts.length !== 3) throw new Error("not a signed card (JWS)");
    const header = JSON.parse(utf8.decode(base64urlBytes(parts[0])));
    let payloadBytes = base64urlBytes(parts[1]);
    if (header.zip === "DEF") payloadBytes = await inflateRaw(payloadBytes);
    const payload = JSON.parse(utf8.decode(payloadBytes));
    let verdict;
    const keys = typeof payload.iss === "string" ? await issuerKeys(payload.iss) : null;
    if (!keys) {
      verdict = { state: "unknown", text: "Not checked: the issuer's keys could not be fetched." };
    } else {
      const jwk = keys.find((k) => k && k.kid === header.kid);
      if (!jwk || header.alg !== "ES256" || jwk.kty !== "EC" || jwk.crv !== "P-256") {
        verdict = { state: "invalid", text: "Not verified: the issuer publishes no key that signed this card." };
      } else {
        try {
          const key = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, ext: true },
            { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
          const good = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, base64urlBytes(parts[2]),
            ascii.encode(parts[0] + "." + parts[1]));
          verdict = good
            ? { state: "verified", text: "Signature verified: issued by " + payload.iss + "." }
            : { state: "invalid", text: "Not verified: the signature does not match the issuer's key." };
        } catch (e) {
          verdict = { state: "invalid", text: "Not verified: the issuer's key is not readable." };
        }
      }
    }
    return { payload: payload, verdict: verdict };
  }

  async function renderCards(container, text) {
    const holder = JSON.parse(text);
    const cards = Array.isArray(holder.verifiableCredential) ? holder.verifiableCredential : [];
    if (!cards.length) throw new Error("a card file holds no card");
    for (const [index, jws] of cards.entries()) {
      const block = el("section", null, "card");
      block.append(el("h3", cards.length > 1 ? "Health card " + (index + 1) : "Health card"));
      try {
        const card = await readCard(jws);
        const status = el("p", card.verdict.text, "verdict " + card.verdict.state);
        status.setAttribute("data-verdict", card.verdict.state);
        block.append(status);
        const issued = card.payload.nbf ? dateText(new Date(card.payload.nbf * 1000).toISOString()) : null;
        if (issued) block.append(el("p", "Issued " + issued + (card.payload.iss ? " by " + card.payload.iss : "") + ".", "quiet"));
        const subject = card.payload.vc && card.payload.vc.credentialSubject;
        if (subject && subject.fhirBundle) renderFHIR(block, subject.fhirBundle);
      } catch (e) {
        const status = el("p", "This card is not readable (" + e.message + ").", "verdict invalid");
        status.setAttribute("data-verdict", "invalid");
        block.append(status);
      }
      container.append(block);
    }
  }

  // ---- The exchange with the link's server ----

  function showError(text) {
    const box = $("problem");
    box.textContent = text;
    box.hidden = false;
    box.focus();
  }

  async function fetchText(url, options) {
    let response;
    try {
      response = await fetch(url, Object.assign({ credentials: "omit", referrerPolicy: "no-referrer", cache: "no-store" }, options));
    } catch (e) {
      throw new Error("The link's server could not be reached.");
    }
    return response;
  }

  // Seconds a Retry-After header asks for (delta seconds or an HTTP date), kept between 1 s and an hour.
  function retryAfter(response, fallback) {
    const value = response.headers.get("Retry-After");
    let seconds = NaN;
    if (value && /^\s*\d+\s*$/.test(value)) seconds = Number(value);
    else if (value) seconds = (Date.parse(value) - Date.now()) / 1000;
    if (!Number.isFinite(seconds)) seconds = fallback;
    return Math.min(3600, Math.max(1, Math.ceil(seconds)));
  }

  // The server asks to wait (429): the caller waits `seconds` and asks again.
  function busy(seconds) {
    const error = new Error("The link's server asks to wait " + seconds + (seconds === 1 ? " second" : " seconds") + " before asking again.");
    error.wait = seconds;
    return error;
  }

  // Fetches the link's files: { files, poll } where poll is the seconds to wait before asking a
  // long-term (L) link again, or null when the link's files no longer change.
  async function open(link, passcode, recipient) {
    const files = [];
    if (link.flags.includes("U")) {
      const address = link.url + (link.url.includes("?") ? "&" : "?") + "recipient=" + encodeURIComponent(recipient);
      const response = await fetchText(address, { method: "GET" });
      if (response.status === 404) throw new Error("This link is no longer active: it expired or was revoked.");
      if (response.status === 429) throw busy(retryAfter(response, 60));
      if (!response.ok) throw new Error("The link's server answered " + response.status + ".");
      files.push({ contentType: null, jwe: await response.text() });
      return { files: files, poll: null };
    }
    const body = { recipient: recipient };
    if (link.flags.includes("P")) body.passcode = passcode;
    const response = await fetchText(link.url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (response.status === 401) {
      let left = null;
      try {
        left = (await response.json()).remainingAttempts;
      } catch (e) { /* no count */ }
      const error = new Error(!Number.isInteger(left) || left < 0 ? "Wrong passcode."
        : left === 0 ? "Wrong passcode: no attempts remain; the link is now locked."
        : "Wrong passcode: " + left + (left === 1 ? " attempt remains" : " attempts remain") + " before the link locks.");
      error.retry = true;
      throw error;
    }
    if (response.status === 404) throw new Error("This link is no longer active: it expired, was revoked, or was locked after too many wrong passcodes.");
    if (response.status === 429) throw busy(retryAfter(response, 60));
    if (!response.ok) throw new Error("The link's server answered " + response.status + ".");
    let manifest;
    try {
      manifest = await response.json();
    } catch (e) {
      throw new Error("The link's server did not answer with a list of files.");
    }
    if (!manifest || typeof manifest !== "object") throw new Error("The link's server did not answer with a list of files.");
    const listed = Array.isArray(manifest.files) ? manifest.files.filter((file) => file && typeof file === "object") : [];
    for (const file of listed) {
      if (typeof file.embedded === "string") {
        files.push({ contentType: file.contentType, jwe: file.embedded });
      } else if (typeof file.location === "string") {
        let address;
        try {
          address = new URL(file.location);
        } catch (e) {
          throw new Error("The link's server listed a file at an address that is not a URL.");
        }
        if (!reachable(address)) {
          throw new Error("The link's server listed a file at an address that is not HTTPS.");
        }
        const answer = await fetchText(address.href, { method: "GET" });
        if (!answer.ok) throw new Error("A file of the link could not be fetched (the server answered " + answer.status + ").");
        files.push({ contentType: file.contentType, jwe: await answer.text() });
      }
    }
    // A long-term link is asked again while a file can change, after the Retry-After the server sent.
    const changing = link.flags.includes("L") &&
      (manifest.status === "can-change" || listed.some((file) => file.status === "can-change" || file.status === undefined));
    return { files: files, poll: changing ? retryAfter(response, 60) : null };
  }

  async function show(link, files) {
    const content = $("content");
    content.replaceChildren();
    content.append(el("h2", files.length === 1 ? "1 file" : files.length + " files"));
    for (const [index, file] of files.entries()) {
      const block = el("article", null, "file");
      try {
        const decrypted = await decrypt(file.jwe, link.key);
        // The media type alone: the specification's example says application/fhir+json;fhirVersion=4.0.1.
        const type = (file.contentType || decrypted.contentType || "").split(";")[0].trim().toLowerCase();
        if (type === "application/smart-health-card") {
          await renderCards(block, decrypted.text);
        } else if (type === "application/fhir+json") {
          renderFHIR(block, JSON.parse(decrypted.text));
        } else {
          block.append(el("p", "File " + (index + 1) + ": " + (type || "unknown content") + " (not shown).", "quiet"));
        }
      } catch (e) {
        block.append(el("p", "File " + (index + 1) + " could not be shown: " + e.message + ".", "problem"));
      }
      content.append(block);
    }
    content.hidden = false;
  }

  // How the page says when it looks for updates of a long-term link.
  function waitText(seconds) {
    return seconds < 90 ? seconds + " seconds" : Math.round(seconds / 60) + " minutes";
  }

  function start() {
    let link;
    try {
      link = readLink(location.hash);
    } catch (e) {
      showError(e.message);
      return;
    }
    $("label").textContent = link.label ? "“" + link.label + "”" : "Shared health records";
    // The link's exp is checked before anything is fetched: an expired link is never asked for.
    if (link.exp !== null && link.exp * 1000 < Date.now()) {
      const day = dayOf(link.exp);
      showError("This link expired" + (day ? " on " + day : "") + ": it is not opened.");
      document.body.setAttribute("data-state", "expired");
      return;
    }
    const form = $("ask");
    $("passcode-field").hidden = !link.flags.includes("P");
    $("passcode").required = link.flags.includes("P");
    form.hidden = false;
    let shownFiles = null;
    let timer = null;
    let versions = 0;

    // Asks the server (again), shows the files when they changed, and schedules the next look for
    // a long-term link; a 429 waits its Retry-After; a link no longer active stops the polling.
    async function fetchAndShow(passcode, recipient, first) {
      const updates = $("updates");
      try {
        const result = await open(link, passcode, recipient);
        const key = JSON.stringify(result.files.map((file) => file.jwe));
        if (key !== shownFiles) {
          shownFiles = key;
          versions += 1;
          await show(link, result.files);
          document.body.setAttribute("data-version", String(versions));
          form.hidden = true;
          $("status").textContent = "";
        }
        const checked = new Date().toLocaleTimeString();
        if (result.poll !== null) {
          updates.textContent = (versions > 1 ? "Updated: the link's content changed. " : "") +
            "This link can change: checked at " + checked + "; looking again in " + waitText(result.poll) + ".";
          updates.hidden = false;
          timer = setTimeout(() => later(passcode, recipient, false), result.poll * 1000);
        } else if (!first) {
          updates.textContent = "Checked at " + checked + ": this link's content no longer changes.";
        }
        return true;
      } catch (e) {
        if (e.wait) {
          const text = e.message + " Looking again in " + waitText(e.wait) + ".";
          if (first && shownFiles === null) $("status").textContent = text;
          else {
            updates.textContent = text;
            updates.hidden = false;
          }
          document.body.setAttribute("data-waited", String(e.wait));
          timer = setTimeout(() => later(passcode, recipient, first && shownFiles === null), e.wait * 1000);
          return false;
        }
        if (first && shownFiles === null) throw e;
        updates.textContent = e.message;
        updates.hidden = false;
        return false;
      }
    }

    // A scheduled look: its refusal is shown as the form's would be.
    function later(passcode, recipient, first) {
      fetchAndShow(passcode, recipient, first).catch((e) => {
        $("status").textContent = "";
        showError(e.message);
        if (!e.retry) form.hidden = true;
      });
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (timer !== null) clearTimeout(timer);
      const button = $("open");
      button.disabled = true;
      $("problem").hidden = true;
      $("status").textContent = "Opening…";
      const passcode = $("passcode").value;
      const recipient = $("recipient").value.trim() || "Someone";
      try {
        await fetchAndShow(passcode, recipient, true);
      } catch (e) {
        $("status").textContent = "";
        showError(e.message);
        if (!e.retry) form.hidden = true;
      } finally {
        button.disabled = false;
      }
    });
  }

  window.addEventListener("hashchange", () => window.location.reload());
  start();
})();
"""#

    /// The stylesheet: one column that reads well from a phone's 320 px to a desktop.
    static let stylesheet = #"""
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f; background: #f5f5f7; }
main { max-width: 46rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; }
header h1 { margin: 0.1rem 0 0.5rem; font-size: 1.6rem; line-height: 1.25; }
.kicker { margin: 0; color: #b0005a; font-weight: 600; text-transform: uppercase; font-size: 0.8rem; letter-spacing: 0.04em; }
.quiet, .hint { color: #5f5f66; }
.hint { display: block; font-size: 0.875rem; }
form, .file { background: #fff; border-radius: 12px; padding: 1rem; margin: 1rem 0; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.08); }
.field label { display: block; font-weight: 600; }
input { width: 100%; max-width: 24rem; font: inherit; padding: 0.6rem; border: 1px solid #8e8e93; border-radius: 8px; }
input:focus, button:focus { outline: 3px solid #0a84ff; outline-offset: 1px; }
button { font: inherit; font-weight: 600; padding: 0.6rem 1.2rem; border: 0; border-radius: 8px; background: #0a60c9; color: #fff; \#
cursor: pointer; min-height: 44px; }
button:disabled { opacity: 0.6; }
.problem { background: #fff0f0; color: #8a1010; border-left: 4px solid #c62828; padding: 0.75rem 1rem; border-radius: 8px; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1.1rem; margin: 1rem 0 0.25rem; }
.doc-title { font-weight: 600; margin-top: 0; }
.patient h3 { font-size: 1.3rem; margin-top: 0; }
.items { list-style: none; margin: 0; padding: 0; }
.items li { padding: 0.5rem 0; border-top: 1px solid #e5e5ea; }
.items li:first-child { border-top: 0; }
.items strong { display: block; }
.details { display: block; color: #3a3a3c; }
.card { border-top: 1px solid #e5e5ea; }
.card:first-child { border-top: 0; }
.verdict { font-weight: 600; padding: 0.4rem 0.75rem; border-radius: 8px; display: inline-block; }
.verdict.verified { background: #e6f4ea; color: #14532d; }
.verdict.invalid { background: #fff0f0; color: #8a1010; }
.verdict.unknown { background: #fff8e1; color: #6b4e00; }
[hidden] { display: none !important; }
@media (prefers-color-scheme: dark) {
  body { background: #000; color: #f5f5f7; }
  form, .file { background: #1c1c1e; box-shadow: none; }
  .quiet, .hint, .details { color: #aeaeb2; }
  .items li, .card { border-color: #38383a; }
  input { background: #2c2c2e; color: #f5f5f7; }
}
"""#
}
