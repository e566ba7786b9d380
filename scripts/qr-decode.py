#!/usr/bin/env python3
"""Decode the QR code in each PNG file with zxing-cpp: the peer decoder for the QRCode tests.

Usage:
    qr-decode.py FILE.png            print the decoded text of the one QR code in FILE.png
    qr-decode.py --json FILE.png...  print a JSON array, one object per file:
                                     {"file", "text", "bytes" (hex of the raw content),
                                      "ec_level", "extra" (zxing-cpp's details, e.g. the version)}
                                     with "text": null and "error" when nothing was decoded

Needs the PyPI packages zxing-cpp (imported as zxingcpp) and pillow, e.g. in a virtual
environment: python3 -m venv VENV && VENV/bin/pip install zxing-cpp pillow.
Exit status: 0 when every file decoded, 1 when one did not, 2 on a usage error.
"""
import json
import sys

import zxingcpp
from PIL import Image


def decode(path):
    with Image.open(path) as image:
        image.load()
        # Only QR codes; the generated images are clean, so no rotation or inversion search.
        results = zxingcpp.read_barcodes(image.convert("L"), formats=zxingcpp.BarcodeFormat.QRCode,
                                         try_rotate=False, try_invert=False)
    if len(results) != 1:
        return {"file": path, "text": None, "error": f"{len(results)} QR codes found"}
    result = results[0]
    extra = result.extra
    if isinstance(extra, str):
        try:
            extra = json.loads(extra) if extra else {}
        except ValueError:
            extra = {"raw": extra}
    return {
        "file": path,
        "text": result.text,
        "bytes": bytes(result.bytes).hex(),
        "ec_level": result.ec_level,
        "extra": extra,
    }


def main(argv):
    as_json = len(argv) > 1 and argv[1] == "--json"
    paths = argv[2:] if as_json else argv[1:]
    if not paths or (not as_json and len(paths) != 1):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    decoded = [decode(path) for path in paths]
    if as_json:
        json.dump(decoded, sys.stdout)
        sys.stdout.write("\n")
    elif decoded[0]["text"] is not None:
        sys.stdout.write(decoded[0]["text"] + "\n")
    else:
        print(f"{paths[0]}: {decoded[0]['error']}", file=sys.stderr)
    return 0 if all(item["text"] is not None for item in decoded) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
