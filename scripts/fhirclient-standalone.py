#!/usr/bin/env python3
"""SMART standalone launch with PKCE by Python `fhirclient` (SMART's own library) against the
FhirBlocks server, the patient approving with their wallet. The script is the app: it registers
itself (RFC 7591; fhirclient has no dynamic registration), lets fhirclient build the authorize
URL (discovered from /metadata, with PKCE S256, state and aud), asks the authorization page for
its user code (Accept: application/json) and prints it on one line. The caller plays the person:
it approves or declines with the wallet, then writes a line to stdin. The script loads the page
again, hands the redirect to fhirclient (code exchange with the verifier), reads the patient and
their Observations, refreshes the token, and prints one JSON object. Exit 3 when fhirclient
refuses the callback (a declined approval), another non-zero status on any other failure.

    fhirclient-standalone.py FHIR_BASE SCOPE
"""
import json
import sys
from urllib.parse import parse_qs, urlsplit

import requests
from fhirclient import client
import fhirclient.models.observation as observation

REDIRECT = "http://127.0.0.1:1/callback"


def main():
    base, scope = sys.argv[1:3]
    server_base = base.rsplit("/fhir", 1)[0]
    registration = requests.post(f"{server_base}/oauth/register", json={
        "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", "client_name": "fhirclient standalone"})
    registration.raise_for_status()
    client_id = registration.json()["client_id"]

    smart = client.FHIRClient(settings={"app_id": client_id, "api_base": base, "redirect_uri": REDIRECT, "scope": scope})
    url = smart.authorize_url
    waiting = requests.get(url, headers={"Accept": "application/json"}, allow_redirects=False)
    waiting.raise_for_status()
    print(waiting.json()["user_code"], flush=True)

    sys.stdin.readline()   # the person decided with their wallet
    decided = requests.get(url, allow_redirects=False)
    if decided.status_code != 302:
        raise SystemExit(f"expected a redirect, got {decided.status_code}")
    location = decided.headers["Location"]
    try:
        smart.handle_callback(location)
    except Exception as error:  # fhirclient raises a plain Exception for an OAuth error
        sent = parse_qs(urlsplit(location).query)
        print(json.dumps({"error": str(error), "oauth_error": sent.get("error", [None])[0], "state_echoed": "state" in sent}))
        sys.exit(3)

    first_token = smart.server.auth.access_token
    patient = smart.patient
    observations = observation.Observation.where({"patient": smart.patient_id}).perform_resources(smart.server)
    refreshed = smart.reauthorize()
    after_refresh = observation.Observation.where({"patient": smart.patient_id}).perform_resources(smart.server)
    print(json.dumps({
        "ready": smart.ready,
        "patient_id": smart.patient_id,
        "patient": patient.as_json() if patient else None,
        "observations": [o.as_json() for o in observations],
        "refreshed": refreshed,
        "new_access_token": smart.server.auth.access_token != first_token,
        "observations_after_refresh": len(after_refresh),
    }))


if __name__ == "__main__":
    main()
