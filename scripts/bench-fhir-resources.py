#!/usr/bin/env python3
"""Times the Python package fhir.resources decoding FHIR R4 JSON Bundles, to compare with the Swift decoder.

What it measures, for each FHIR JSON file given (normally a Bundle; any resource works), with
time.perf_counter over --iterations timed runs after --warmup untimed ones, reporting the best
and the median run:
    json_loads    json.loads(bytes) -> dict                      the Python floor, no model at all
    decode        construct_fhir_element(resourceType, bytes)    bytes -> fhir.resources model:
                  (= Bundle.parse_raw: the package's own JSON loads, then full pydantic validation
                  of every element into typed model objects). This is the number to set beside the
                  Swift decoder, which also goes from bytes to typed models.
    decode_dict   construct_fhir_element(resourceType, dict)     dict -> model only (= parse_obj);
                  the dict is made by json.loads outside the timed region
    encode        model.json()                                   model -> JSON text (by_alias,
                  exclude_none: the package's defaults)
    json_dumps    json.dumps(dict)                               the Python floor for encoding
MB/s is the INPUT file's size (10^6 bytes) divided by the time, for every measure (encode too,
so the columns compare); entries/s is len(Bundle.entry) divided by the time (1 for a non-Bundle).
Each file is decoded once before timing; a file that fhir.resources rejects is reported with the
pydantic error and the script exits 1. Once per file it also checks, untimed, whether
json.loads(model.json()) equals json.loads(file) and prints the first difference if not.
The garbage collector stays on (as in an application) unless --disable-gc.

FHIR version: fhir.resources 6.4.0 is the last release whose models are FHIR R4 (4.0.1)
(fhir.resources.__fhir_version__ == "4.0.1"). 6.5.0 moved to R4B (4.3.0); 7.x and 8.x are R5
(5.0.0) with R4B and STU3 subpackages and no R4 one. 6.4.0 needs pydantic 1.x (it depends on
`pydantic[email]>=1.7.2` but is written for the v1 API), so pydantic is pinned to 1.10.27. With
neither orjson nor simplejson installed, fhir.resources uses the standard library's json, which
the script reports as the "json backend".

Usage:
    scripts/fhir-resources-venv.sh            # once: creates .build/fhir-resources-venv (pinned)
    .build/fhir-resources-venv/bin/python scripts/bench-fhir-resources.py \\
        [--iterations N (20)] [--warmup N (3)] [--disable-gc] [--json] FILE.json [FILE.json ...]
e.g. with the Synthea bundles in shared/:
    .build/fhir-resources-venv/bin/python scripts/bench-fhir-resources.py \\
        ../shared/fhir/examples/synthea-r4/*.json
One line per file and measure is printed; --json prints instead one JSON document with every
number (seconds, MB/s, entries/s), the versions and the machine.

This script installs nothing itself: run it with a Python that already has fhir.resources
(scripts/fhir-resources-venv.sh makes such a venv).
"""
import argparse
import re
import gc
import json
import os
import platform
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path

try:
    import fhir.resources
    from fhir.resources import construct_fhir_element
    from fhir.resources.core.fhirabstractmodel import FHIRAbstractModel
    import pydantic
except ImportError as error:  # pragma: no cover - environment problem
    sys.exit(f"fhir.resources is not importable ({error}): run scripts/fhir-resources-venv.sh "
             "and use .build/fhir-resources-venv/bin/python")

MEASURES = ("json_loads", "decode", "decode_dict", "encode", "json_dumps")


def time_runs(fn, iterations: int, warmup: int, setup=None) -> list[float]:
    """Runs fn (fn(setup()) when setup is given, setup untimed) and returns the timed seconds."""
    times = []
    for i in range(warmup + iterations):
        arg = setup() if setup else None
        start = time.perf_counter()
        fn(arg)
        elapsed = time.perf_counter() - start
        if i >= warmup:
            times.append(elapsed)
    return times


def first_difference(a, b, path="$"):
    """The first place where two JSON values differ, as a short string, or None."""
    if type(a) is not type(b):
        return f"{path}: {a!r:.80} != {b!r:.80}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'original' if key in a else 're-encoded'}"
            diff = first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            diff = first_difference(x, y, f"{path}[{index}]")
            if diff:
                return diff
        return None
    return None if a == b else f"{path}: {a!r:.80} != {b!r:.80}"


def first_entries(raw: bytes, count: int) -> bytes:
    """The first `count` entries of a Bundle, cut from its text so the original formatting stays.

    Cut exactly as the Swift benchmark does (Benchmarks/.../FHIRFixtures.firstEntries): everything
    up to the last `}` before entry number `count` starts, then a closing `]` and `}`.
    """
    text = raw.decode("utf-8")
    decoder = json.JSONDecoder()
    match = re.search(r'"entry"\s*:\s*\[\s*', text)
    if match is None:
        raise SystemExit("--first-entries: no entry array")
    starts, position = [], match.end()
    while len(starts) <= count:
        while text[position] in " \t\r\n,":
            position += 1
        if text[position] == "]":
            raise SystemExit(f"--first-entries: fewer than {count + 1} entries")
        starts.append(position)
        _, position = decoder.raw_decode(text, position)
    last = text.rindex("}", starts[0], starts[count])
    return (text[: last + 1] + "\n  ]\n}\n").encode("utf-8")


def bench_file(path: Path, iterations: int, warmup: int, first: int | None = None) -> dict:
    raw = path.read_bytes()
    if first is not None:
        raw = first_entries(raw, first)
    obj = json.loads(raw)
    resource_type = obj.get("resourceType")
    if not isinstance(resource_type, str):
        raise SystemExit(f"{path}: no resourceType at the top level")
    try:
        model = construct_fhir_element(resource_type, raw)
    except pydantic.ValidationError as error:
        raise SystemExit(f"{path}: fhir.resources {fhir.resources.__version__} rejects it:\n{error}")
    entries = len(obj.get("entry") or []) if resource_type == "Bundle" else 1
    encoded = model.json()
    roundtrip_diff = first_difference(obj, json.loads(encoded))

    runs = {
        "json_loads": time_runs(lambda _: json.loads(raw), iterations, warmup),
        "decode": time_runs(lambda _: construct_fhir_element(resource_type, raw), iterations, warmup),
        "decode_dict": time_runs(lambda d: construct_fhir_element(resource_type, d), iterations,
                                 warmup, setup=lambda: json.loads(raw)),
        "encode": time_runs(lambda _: model.json(), iterations, warmup),
        "json_dumps": time_runs(lambda _: json.dumps(obj), iterations, warmup),
    }
    megabytes = len(raw) / 1e6
    measures = {}
    for name in MEASURES:
        times = runs[name]
        best, median = min(times), statistics.median(times)
        measures[name] = {
            "best_s": best,
            "median_s": median,
            "mb_per_s_best": megabytes / best,
            "mb_per_s_median": megabytes / median,
            "entries_per_s_best": entries / best,
            "entries_per_s_median": entries / median,
        }
    return {
        "file": path.name + (f" (first {first} entries)" if first is not None else ""),
        "path": str(path),
        "bytes": len(raw),
        "resource_type": resource_type,
        "entries": entries,
        "encoded_bytes": len(encoded.encode()),
        "roundtrip_equal": roundtrip_diff is None,
        "roundtrip_first_difference": roundtrip_diff,
        "measures": measures,
    }


def environment(args) -> dict:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "fhir.resources": version("fhir.resources"),
        "fhir_version": fhir.resources.__fhir_version__,
        "pydantic": pydantic.VERSION,
        "pydantic_compiled": bool(getattr(pydantic, "compiled", False)),
        "json_backend": getattr(FHIRAbstractModel.__config__.json_loads, "__module__", "?"),
        "iterations": args.iterations,
        "warmup": args.warmup,
        "gc_disabled": args.disable_gc,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="FHIR JSON files (Bundles)")
    parser.add_argument("--iterations", type=int, default=20, help="timed runs per measure (20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs before them (3)")
    parser.add_argument("--disable-gc", action="store_true", help="gc.disable() while timing")
    parser.add_argument("--json", action="store_true", help="print one JSON summary instead")
    parser.add_argument("--first-entries", type=int, metavar="N",
                        help="time only the first N entries of each Bundle, cut from its text "
                             "(the Swift benchmark's 50-entry document is --first-entries 50 of the smallest bundle)")
    args = parser.parse_args()
    if args.iterations < 1 or args.warmup < 0:
        parser.error("--iterations must be >= 1 and --warmup >= 0")

    env = environment(args)
    if not args.json:
        print("# " + " ".join(f"{k}={v}" for k, v in env.items()))
        print("# MB/s = input file bytes / 1e6 / time, for every measure; median and best of runs")
    results = []
    for path in args.files:
        if args.disable_gc:
            gc.collect()
            gc.disable()
        try:
            result = bench_file(path, args.iterations, args.warmup, args.first_entries)
        finally:
            gc.enable()
        results.append(result)
        if args.json:
            continue
        print(f"{result['file']}  bytes={result['bytes']}  entries={result['entries']}  "
              f"encoded_bytes={result['encoded_bytes']}  roundtrip_equal={result['roundtrip_equal']}"
              + (f"  first_difference={result['roundtrip_first_difference']}"
                 if result["roundtrip_first_difference"] else ""))
        for name in MEASURES:
            m = result["measures"][name]
            print(f"  {name:<11} median {m['median_s'] * 1e3:9.3f} ms  best {m['best_s'] * 1e3:9.3f} ms"
                  f"  {m['mb_per_s_median']:8.2f} MB/s (best {m['mb_per_s_best']:8.2f})"
                  f"  {m['entries_per_s_median']:10.0f} entries/s (best {m['entries_per_s_best']:10.0f})")
    if args.json:
        json.dump({"environment": env, "results": results}, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
