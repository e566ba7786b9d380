#!/usr/bin/env python3
"""An independent SMART Health Links file peer for the tests: jwcrypto (PyPI) decrypts and encrypts
the links' JWE files (alg dir, enc A256GCM, optional zip DEF).

    shl-jwe-peer.py decrypt KEY_B64URL FILE.jwe   -> the plaintext on stdout; the header's cty and zip on stderr
    shl-jwe-peer.py encrypt KEY_B64URL CTY ZIP FILE -> a JWE compact serialization on stdout (ZIP: DEF or none)

Exit 0 on success, 1 when the file does not decrypt.
"""
import sys

from jwcrypto import jwe, jwk
from jwcrypto.common import json_encode


def main(argv):
    if len(argv) >= 4 and argv[1] == "decrypt":
        key = jwk.JWK(kty="oct", k=argv[2])
        token = jwe.JWE()
        try:
            token.deserialize(open(argv[3]).read().strip(), key=key)
        except Exception as error:  # any refusal is a verdict, not a crash
            print(f"refused: {error}", file=sys.stderr)
            return 1
        sys.stdout.buffer.write(token.payload)
        return 0
    if len(argv) >= 6 and argv[1] == "encrypt":
        key = jwk.JWK(kty="oct", k=argv[2])
        header = {"alg": "dir", "enc": "A256GCM", "cty": argv[3]}
        if argv[4] == "DEF":
            header["zip"] = "DEF"
        token = jwe.JWE(open(argv[5], "rb").read(), protected=json_encode(header))
        token.add_recipient(key)
        sys.stdout.write(token.serialize(compact=True))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
