#!/usr/bin/env python3
"""Independent SMART Health Card check, used as a peer by the Swift tests.

Verifies a compact JWS (ES256, raw r||s) against a JWKS file with jwcrypto, checks the header
(alg ES256, zip DEF, kid present in the JWKS), inflates the payload as raw DEFLATE
(zlib windowBits -15) and prints the inflated payload bytes to standard output.

Usage: shc-verify.py --jwks JWKS.json (JWS-FILE | -)

Exit status: 0 verified, 1 verification failed (reason on standard error), 2 usage error.
Requires: pip install jwcrypto
"""
import argparse
import json
import sys
import zlib

from jwcrypto import jwk, jws


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jwks", required=True, help="JWK set file ({\"keys\":[...]})")
    parser.add_argument("jws", help="file holding the compact JWS, or - for standard input")
    args = parser.parse_args()

    with open(args.jwks, "rb") as handle:
        key_set = jwk.JWKSet.from_json(handle.read())
    if args.jws == "-":
        token = sys.stdin.read()
    else:
        with open(args.jws, "r", encoding="ascii") as handle:
            token = handle.read()
    if token != token.strip():
        print("JWS has surrounding whitespace", file=sys.stderr)
        return 1

    signed = jws.JWS()
    try:
        signed.deserialize(token)
    except Exception as error:  # noqa: BLE001 - report any parse failure
        print(f"not a compact JWS: {error}", file=sys.stderr)
        return 1
    header = signed.jose_header
    if header.get("alg") != "ES256" or header.get("zip") != "DEF" or "kid" not in header:
        print(f"header is not {{alg: ES256, zip: DEF, kid}}: {json.dumps(header)}", file=sys.stderr)
        return 1
    key = key_set.get_key(header["kid"])
    if key is None:
        print("kid not in the JWKS", file=sys.stderr)
        return 1
    try:
        signed.verify(key, alg="ES256")
    except Exception as error:  # noqa: BLE001
        print(f"signature does not verify: {error}", file=sys.stderr)
        return 1
    try:
        decompressor = zlib.decompressobj(-15)
        payload = decompressor.decompress(signed.objects["payload"], 16 * 1024 * 1024)
        if decompressor.unconsumed_tail or not decompressor.eof or decompressor.unused_data:
            raise ValueError("not a single complete raw DEFLATE stream")
    except Exception as error:  # noqa: BLE001
        print(f"payload is not raw DEFLATE: {error}", file=sys.stderr)
        return 1
    sys.stdout.buffer.write(payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
