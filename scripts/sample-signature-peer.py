#!/usr/bin/env python3
"""An independent implementation of OpenHealthKit's sample signatures (HKMetadataKeyDigitalSignature),
for the interoperability tests: DER is written and read by hand here, ECDSA comes from `cryptography`.

  sample-signature-peer.py sign --key PRIVATE.pem --type T --value V --unit U --start MS --end MS [--sync ID] [--digest sha256|sha384]
      prints the base64 of a CMS ContentInfo/SignedData over SampleSignatureContent
  sample-signature-peer.py verify --public PUBLIC.pem BASE64
      exit 0 and the content as JSON when the signature verifies, 1 when it does not, 2 when it cannot be read

Dates are whole milliseconds since 1970 (UTC). The structures are documented in README.md ("Signed samples").
"""
import argparse, base64, datetime, hashlib, json, struct, sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

OID_SIGNED_DATA = "1.2.840.113549.1.7.2"
OID_DATA = "1.2.840.113549.1.7.1"
OID_SHA256 = "2.16.840.1.101.3.4.2.1"
OID_SHA384 = "2.16.840.1.101.3.4.2.2"
OID_ECDSA_SHA256 = "1.2.840.10045.4.3.2"
OID_ECDSA_SHA384 = "1.2.840.10045.4.3.3"


# --- DER writing ---------------------------------------------------------------------------------
def tlv(tag, content):
    n = len(content)
    if n < 0x80:
        length = bytes([n])
    else:
        body = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(body)]) + body
    return bytes([tag]) + length + content

def seq(*items): return tlv(0x30, b"".join(items))
def der_set(*items): return tlv(0x31, b"".join(sorted(items)))
def integer(v): return tlv(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big", signed=True))
def octets(b): return tlv(0x04, b)
def utf8(s): return tlv(0x0C, s.encode("utf-8"))
def explicit(n, inner): return tlv(0xA0 | n, inner)

def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, bytes(out))

def generalized_time(ms):
    when = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=ms)
    text = when.strftime("%Y%m%d%H%M%S")
    if ms % 1000:
        text += "." + ("%03d" % (ms % 1000)).rstrip("0")
    return tlv(0x18, (text + "Z").encode("ascii"))

def content(type_id, value, unit, start, end, sync):
    fields = [integer(1), utf8(type_id), octets(struct.pack(">d", value)), utf8(unit), generalized_time(start), generalized_time(end)]
    if sync is not None:
        fields.append(tlv(0x80, sync.encode("utf-8")))  # [0] IMPLICIT UTF8String
    return seq(*fields)


# --- DER reading ---------------------------------------------------------------------------------
def read_tlv(data, i):
    tag = data[i]; i += 1
    first = data[i]; i += 1
    if first < 0x80:
        n = first
    else:
        count = first & 0x7F
        n = int.from_bytes(data[i:i + count], "big"); i += count
    if i + n > len(data):
        raise ValueError("truncated")
    return tag, data[i:i + n], i + n

def children(data):
    out, i = [], 0
    while i < len(data):
        tag, value, i = read_tlv(data, i)
        out.append((tag, value))
    return out

def oid_text(b):
    parts = [b[0] // 40, b[0] % 40]
    v = 0
    for byte in b[1:]:
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(v); v = 0
    return ".".join(map(str, parts))

def parse_time(b):
    t = b.decode("ascii")
    assert t.endswith("Z")
    base = datetime.datetime.strptime(t[:14], "%Y%m%d%H%M%S").replace(tzinfo=datetime.timezone.utc)
    ms = int((t[15:-1] + "000")[:3]) if "." in t else 0
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (base - epoch) // datetime.timedelta(milliseconds=1) + ms


def sign(args):
    with open(args.key, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    digest_oid, sig_oid, algorithm = {
        "sha256": (OID_SHA256, OID_ECDSA_SHA256, hashes.SHA256()),
        "sha384": (OID_SHA384, OID_ECDSA_SHA384, hashes.SHA384()),
    }[args.digest]
    econtent = content(args.type, args.value, args.unit, args.start, args.end, args.sync)
    signature = key.sign(econtent, ec.ECDSA(algorithm))
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    ski = hashlib.sha1(point).digest()
    digest_alg = seq(oid(digest_oid))
    signer_info = seq(integer(3), tlv(0x80, ski), digest_alg, seq(oid(sig_oid)), octets(signature))
    signed_data = seq(integer(3), der_set(digest_alg), seq(oid(OID_DATA), explicit(0, octets(econtent))), der_set(signer_info))
    print(base64.b64encode(seq(oid(OID_SIGNED_DATA), explicit(0, signed_data))).decode("ascii"))
    return 0


def verify(args):
    with open(args.public, "rb") as f:
        public = serialization.load_pem_public_key(f.read())
    try:
        der = base64.b64decode(args.signature, validate=True)
        (tag, info, end), = [read_tlv(der, 0)]
        assert tag == 0x30 and end == len(der)
        (t1, ctype), (t2, wrapped) = children(info)
        assert t1 == 0x06 and oid_text(ctype) == OID_SIGNED_DATA and t2 == 0xA0
        (t, signed_data), = children(wrapped)
        fields = children(signed_data)
        version, digests, encap, signer_infos = fields[0], fields[1], fields[2], fields[-1]
        assert version == (0x02, b"\x03")
        (_, econtent_type), (_, econtent_wrapped) = children(encap[1])
        assert oid_text(econtent_type) == OID_DATA
        (_, econtent), = children(econtent_wrapped)
        (_, signer), = children(signer_infos[1])
        s_version, sid, s_digest, s_alg, s_sig = children(signer)
        assert s_version == (0x02, b"\x03") and sid[0] == 0x80
        assert oid_text(children(s_digest[1])[0][1]) == OID_SHA256
        assert oid_text(children(s_alg[1])[0][1]) == OID_ECDSA_SHA256
    except Exception as error:  # anything unreadable
        print("unreadable: %s" % error, file=sys.stderr)
        return 2
    point = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    if sid[1] != hashlib.sha1(point).digest():
        print("signed by another key", file=sys.stderr)
        return 1
    try:
        public.verify(s_sig[1], econtent, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        print("bad signature", file=sys.stderr)
        return 1
    items = children(children(econtent)[0][1])
    result = {
        "version": int.from_bytes(items[0][1], "big"),
        "type": items[1][1].decode("utf-8"),
        "value": struct.unpack(">d", items[2][1])[0],
        "unit": items[3][1].decode("utf-8"),
        "start": parse_time(items[4][1]),
        "end": parse_time(items[5][1]),
    }
    if len(items) > 6:
        assert items[6][0] == 0x80
        result["sync"] = items[6][1].decode("utf-8")
    print(json.dumps(result, sort_keys=True))
    return 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sign")
    s.add_argument("--key", required=True)
    s.add_argument("--type", required=True)
    s.add_argument("--value", type=float, required=True)
    s.add_argument("--unit", required=True)
    s.add_argument("--start", type=int, required=True)
    s.add_argument("--end", type=int, required=True)
    s.add_argument("--sync")
    s.add_argument("--digest", choices=["sha256", "sha384"], default="sha256")
    v = sub.add_parser("verify")
    v.add_argument("--public", required=True)
    v.add_argument("signature")
    args = parser.parse_args()
    return sign(args) if args.command == "sign" else verify(args)


if __name__ == "__main__":
    sys.exit(main())
