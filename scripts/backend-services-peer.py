#!/usr/bin/env python3
"""A SMART Backend Services client against the FhirBlocks server, written on `jwcrypto` (not
on anything of this project): it registers itself with an RSA key (RFC 7591, inline `jwks`),
then authenticates with an RS384 client assertion (SMART App Launch 2.x backend services,
discovered from .well-known/smart-configuration), kicks off a Bulk Data `Patient/$export`,
polls the status URL and downloads every NDJSON file. Prints one JSON object; exits non-zero
on any failure.

    backend-services-peer.py register BASE KEY_FILE
        -> {"client_id": ...}; the private key is written to KEY_FILE (0600)
    backend-services-peer.py export BASE CLIENT_ID KEY_FILE NOW SCOPE
        -> {"scope": ..., "resources": ["Type/id", ...], "request": ...}

NOW is the server's clock in seconds since 1970 (the tests' server runs on a scripted clock).
"""
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from jwcrypto import jwk, jwt


def request(method, url, headers=None, body=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=300) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def register(base, key_file):
    key = jwk.JWK.generate(kty="RSA", size=2048, kid=str(uuid.uuid4()), alg="RS384", use="sig")
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key.export_private())
    body = json.dumps({
        "client_name": "jwcrypto backend peer",
        "grant_types": ["client_credentials"],
        "token_endpoint_auth_method": "private_key_jwt",
        "jwks": {"keys": [json.loads(key.export_public())]},
    }).encode()
    status, _, answer = request("POST", base + "/oauth/register", {"Content-Type": "application/json"}, body)
    if status != 201:
        raise SystemExit(f"registration: {status} {answer!r}")
    print(json.dumps({"client_id": json.loads(answer)["client_id"]}))


def export(base, client_id, key_file, now, scope):
    with open(key_file) as handle:
        key = jwk.JWK.from_json(handle.read())
    status, _, answer = request("GET", base + "/.well-known/smart-configuration")
    if status != 200:
        raise SystemExit(f"discovery: {status}")
    configuration = json.loads(answer)
    if "RS384" not in configuration["token_endpoint_auth_signing_alg_values_supported"]:
        raise SystemExit("the server does not list RS384")
    if "client-confidential-asymmetric" not in configuration["capabilities"]:
        raise SystemExit("the server does not list client-confidential-asymmetric")
    token_endpoint = configuration["token_endpoint"]
    assertion = jwt.JWT(
        header={"alg": "RS384", "typ": "JWT", "kid": key.key_id},
        claims={"iss": client_id, "sub": client_id, "aud": token_endpoint, "exp": now + 240, "iat": now, "jti": str(uuid.uuid4())},
    )
    assertion.make_signed_token(key)
    form = urllib.parse.urlencode({
        "grant_type": "client_credentials",
        "scope": scope,
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": assertion.serialize(),
    }).encode()
    status, _, answer = request("POST", token_endpoint, {"Content-Type": "application/x-www-form-urlencoded"}, form)
    if status != 200:
        raise SystemExit(f"token: {status} {answer!r}")
    token = json.loads(answer)
    bearer = {"Authorization": "Bearer " + token["access_token"]}

    status, headers, answer = request("GET", base + "/fhir/Patient/$export",
                                      dict(bearer, **{"Accept": "application/fhir+json", "Prefer": "respond-async"}))
    if status != 202:
        raise SystemExit(f"kick-off: {status} {answer!r}")
    location = headers["Content-Location"]
    for _ in range(3000):
        status, headers, answer = request("GET", location, bearer)
        if status == 202:
            time.sleep(0.1)
            continue
        break
    if status != 200:
        raise SystemExit(f"status: {status} {answer!r}")
    manifest = json.loads(answer)
    resources = []
    for output in manifest["output"]:
        status, headers, answer = request("GET", output["url"], dict(bearer, Accept="application/fhir+ndjson"))
        if status != 200:
            raise SystemExit(f"download: {status}")
        for line in answer.decode().splitlines():
            if line:
                resource = json.loads(line)
                resources.append(resource["resourceType"] + "/" + resource["id"])
    print(json.dumps({"scope": token["scope"], "token_type": token["token_type"], "resources": sorted(resources),
                      "request": manifest["request"]}))


def main():
    if sys.argv[1] == "register":
        register(sys.argv[2], sys.argv[3])
    else:
        export(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])


if __name__ == "__main__":
    main()
