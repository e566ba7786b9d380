#!/usr/bin/env python3
"""Verifies the SMART Health Cards benchmark card with Python jwcrypto, in a loop, and prints cards/s.

The card is the official example 00 (vectors/shc/spec-examples/example-00-d-jws.txt) and its
issuer's JWKS (issuer/.well-known/jwks.json), found in $OPENHEALTHKIT_SHARED or in ../shared
beside the repository: the card CardBenchmarks verifies. Each verification, timed, is
    jws.JWS().deserialize(token)        base64url decode of the three segments, header JSON
    key lookup by kid, verify(ES256)    jwcrypto JWS verification (cryptography / OpenSSL)
    zlib raw inflate (wbits -15)        the DEFLATE payload
    json.loads                          the payload JSON
with the JWK set parsed once beforehand (as the Swift verifier's StaticKeyResolver holds it).
For context it also times the raw ES256 verification alone with `cryptography` (the Python
counterpart of the Swift benchmarks' raw P-256 ceiling).

Usage: bench-jwcrypto.py [--seconds S] [--rounds R]
Requires: pip install jwcrypto   (e.g. python3 -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install jwcrypto)
"""
import argparse
import base64
import json
import os
import platform
import statistics
import sys
import time
import zlib
from pathlib import Path

from importlib.metadata import version

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from jwcrypto import jwk, jws


def shared_root() -> Path:
    env = os.environ.get("OPENHEALTHKIT_SHARED")
    root = Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"
    if not (root / "vectors/shc/spec-examples/example-00-d-jws.txt").is_file():
        sys.exit(f"shared vectors not found at {root}: set OPENHEALTHKIT_SHARED")
    return root


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_card(token: str, key_set: jwk.JWKSet) -> dict:
    """One card, end to end: parse, verify ES256, inflate, parse the payload JSON."""
    signed = jws.JWS()
    signed.deserialize(token)
    header = signed.jose_header
    if header.get("alg") != "ES256" or header.get("zip") != "DEF":
        raise ValueError("unexpected header")
    key = key_set.get_key(header["kid"])
    signed.verify(key, alg="ES256")  # raises when the signature is invalid
    payload = zlib.decompress(signed.objects["payload"], -15)
    return json.loads(payload)


def rate(function, seconds: float) -> float:
    """Calls `function` repeatedly for about `seconds`; returns calls per second."""
    count = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(50):
            function()
        count += 50
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one round (default 3)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the median is reported (default 5)")
    args = parser.parse_args()

    examples = shared_root() / "vectors/shc/spec-examples"
    token = (examples / "example-00-d-jws.txt").read_text(encoding="ascii").strip()
    key_set = jwk.JWKSet.from_json((examples / "issuer/.well-known/jwks.json").read_bytes())

    # Checked once: the card verifies and is the one expected.
    claims = verify_card(token, key_set)
    assert claims["iss"] == "https://spec.smarthealth.cards/examples/issuer", claims["iss"]

    # The raw ceiling: the same signature over the same signing input, key and signature prepared.
    header_b64, payload_b64, signature_b64 = token.split(".")
    kid = json.loads(b64url(header_b64))["kid"]
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), b"\x04" + b64url(key_set.get_key(kid)["x"]) + b64url(key_set.get_key(kid)["y"]))
    raw = b64url(signature_b64)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    signing_input = f"{header_b64}.{payload_b64}".encode("ascii")
    algorithm = ec.ECDSA(hashes.SHA256())
    public_key.verify(der, signing_input, algorithm)

    card_rounds = [rate(lambda: verify_card(token, key_set), args.seconds) for _ in range(args.rounds)]
    raw_rounds = [rate(lambda: public_key.verify(der, signing_input, algorithm), args.seconds) for _ in range(args.rounds)]

    print(f"Python {platform.python_version()}, jwcrypto {version('jwcrypto')}, cryptography {version('cryptography')}, "
          f"one thread, load average {os.getloadavg()[0]:.2f}")
    print(f"card: {examples / 'example-00-d-jws.txt'} ({len(token)} characters)")
    card = statistics.median(card_rounds)
    ceiling = statistics.median(raw_rounds)
    print(f"jwcrypto end to end (deserialize, verify ES256, inflate, json.loads): {card:,.0f} cards/s "
          f"({1e6 / card:,.1f} us/card; rounds: {', '.join(f'{r:,.0f}' for r in card_rounds)})")
    print(f"raw ES256 verify (cryptography):                                       {ceiling:,.0f} verifications/s "
          f"({1e6 / ceiling:,.1f} us each; rounds: {', '.join(f'{r:,.0f}' for r in raw_rounds)})")
    print(f"jwcrypto end to end / raw: {card / ceiling:.2f}x the throughput")
    return 0


if __name__ == "__main__":
    sys.exit(main())
