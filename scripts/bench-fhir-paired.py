#!/usr/bin/env python3
"""Compares FHIR R4 decoding, Swift (ModelsR4) against Python (fhir.resources), in paired rounds.

On a host whose speed moves by up to 2x in phases of seconds, two benchmarks run minutes apart
compare phases, not decoders. This script runs both sides in short alternating batches on the
same bytes and sets each Swift batch beside the Python batch of the same round:

    round r:  Python  decodes the document K times (in this process, after one warm-up decode)
              Swift   fhir-decode-probe decodes it M times (a new process, two warm-up decodes)
              ratio_r = median(Python's K) / median(Swift's M)
    (the batches run back to back, Python first in odd rounds and Swift first in even ones;
    M is chosen so that both take about as long)

What each side times is the same work: bytes -> typed models, freeing the result included.
Python: fhir.resources.construct_fhir_element(resourceType, bytes) (see
scripts/bench-fhir-resources.py, whose document cutting and settings this script reuses).
Swift: `ModelsR4.Bundle(fhirJSON:)` (Benchmarks/Benchmarks/FHIRDecodeProbe).

It prints, for each document, every round's medians and ratios, then the median of the ratios
with their quartiles and range, and each side's median over all rounds. The ratio goal of issue
18 (>= 30x) is set beside the median ratio. --json prints one JSON document instead.

--probe may be given more than once (LABEL=PATH) to compare builds: each round then runs every
probe beside the same Python batch, in an order that rotates, and each probe's time is also set
against the first probe's in the same round.

Usage (the probe is built with: swift build --package-path Benchmarks -c release --product fhir-decode-probe):
    .build/fhir-resources-venv/bin/python scripts/bench-fhir-paired.py \\
        --probe [LABEL=]Benchmarks/.build/release/fhir-decode-probe [--probe …] [--rounds N (30)] \\
        [--first-entries N] FILE.json [FILE.json ...]
scripts/bench.sh fhir-python runs it on the two documents of FHIRBenchmarks (the first 50 entries
of the smallest Synthea bundle, and the largest one).
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bench_fhir_resources", HERE / "bench-fhir-resources.py")
single = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(single)  # exits with a clear message when fhir.resources is missing

GOAL = 30.0


def python_batch(raw: bytes, resource_type: str, count: int) -> float:
    """Median seconds of `count` decodes of `raw` by fhir.resources (after one warm-up)."""
    single.construct_fhir_element(resource_type, raw)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        single.construct_fhir_element(resource_type, raw)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def swift_batch(probe: str, path: str, count: int) -> float:
    """Median seconds of `count` decodes of the file at `path` by the Swift probe."""
    result = subprocess.run([probe, path, str(count)], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"fhir-decode-probe failed ({result.returncode}): {result.stderr.strip()}")
    times = [float(line) for line in result.stdout.split()]
    if len(times) != count:
        raise SystemExit(f"fhir-decode-probe printed {len(times)} times, expected {count}")
    return statistics.median(times)


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def parse_probe(text: str) -> tuple[str, str]:
    """`LABEL=PATH` or `PATH` (labelled by its position)."""
    label, separator, path = text.partition("=")
    return (label, path) if separator and label and path else ("", text)


def summary(ratios: list[float]) -> dict:
    low, high = quartiles(ratios)
    return {"median": statistics.median(ratios), "quartiles": [low, high], "range": [min(ratios), max(ratios)]}


def compare(name: str, raw: bytes, probes: list[tuple[str, str]], rounds: int, python_count: int,
            swift_count: int) -> dict:
    resource_type = json.loads(raw).get("resourceType")
    if not isinstance(resource_type, str):
        raise SystemExit(f"{name}: no resourceType at the top level")
    sides = ["python"] + [label for label, _ in probes]
    paths = dict(probes)
    with tempfile.NamedTemporaryFile(suffix=".json") as document:
        document.write(raw)
        document.flush()
        rows = []
        for index in range(rounds):
            # The order rotates from round to round (with one probe: Python first, then Swift
            # first), so a host that speeds up or slows down within a round favours no side.
            shift = index % len(sides)
            seconds = {}
            for side in sides[shift:] + sides[:shift]:
                if side == "python":
                    seconds[side] = python_batch(raw, resource_type, python_count)
                else:
                    seconds[side] = swift_batch(paths[side], document.name, swift_count)
            rows.append({"seconds": seconds,
                         "ratios": {label: seconds["python"] / seconds[label] for label, _ in probes}})
    first = probes[0][0]
    return {
        "document": name,
        "bytes": len(raw),
        "python_decodes_per_round": python_count,
        "swift_decodes_per_round": swift_count,
        "rounds": rows,
        "python_median_s": statistics.median(row["seconds"]["python"] for row in rows),
        "probes": {
            label: {
                "path": path,
                "median_s": statistics.median(row["seconds"][label] for row in rows),
                "ratio_to_python": summary([row["ratios"][label] for row in rows]),
                # Its time over the first probe's in the same round (below 1: faster).
                "time_against_first": summary([row["seconds"][label] / row["seconds"][first] for row in rows]),
            }
            for label, path in probes
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--probe", required=True, action="append", metavar="[LABEL=]PATH",
                        help="a release fhir-decode-probe binary; repeat to compare builds in the same rounds")
    parser.add_argument("--rounds", type=int, default=30, help="rounds per document (30)")
    parser.add_argument("--first-entries", type=int, metavar="N",
                        help="use only the first N entries of each Bundle (cut as bench-fhir-resources.py does)")
    parser.add_argument("--python-decodes", type=int, default=3, help="Python decodes per round (3)")
    parser.add_argument("--swift-decodes", type=int, default=0,
                        help="Swift decodes per batch (0: about as long as Python's batch, at least 5)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1 or args.python_decodes < 1 or args.swift_decodes < 0:
        parser.error("--rounds and --python-decodes must be at least 1, --swift-decodes at least 0")
    probes = []
    for position, text in enumerate(args.probe, 1):
        label, path = parse_probe(text)
        label = label or (f"swift{position}" if len(args.probe) > 1 else "swift")
        if label == "python" or label in dict(probes):
            parser.error(f"--probe label {label!r} is taken")
        if not os.access(path, os.X_OK):
            parser.error(f"--probe {path}: not an executable (build it: swift build --package-path Benchmarks "
                         "-c release --product fhir-decode-probe)")
        probes.append((label, path))

    results = []
    for path in args.files:
        raw = path.read_bytes()
        name = path.name
        if args.first_entries is not None:
            raw = single.first_entries(raw, args.first_entries)
            name = f"{name} (first {args.first_entries} entries)"
        swift_count = args.swift_decodes
        if swift_count == 0:
            # One untimed pair sizes the Swift batches so that each side runs for about as long.
            resource_type = json.loads(raw)["resourceType"]
            python = python_batch(raw, resource_type, 1)
            with tempfile.NamedTemporaryFile(suffix=".json") as document:
                document.write(raw)
                document.flush()
                swift = swift_batch(probes[0][1], document.name, 5)
            swift_count = max(5, min(400, round(args.python_decodes * python / swift)))
        result = compare(name, raw, probes, args.rounds, args.python_decodes, swift_count)
        results.append(result)
        if not args.json:
            print_result(result, args, probes)
    if args.json:
        environment = {
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "fhir.resources": version("fhir.resources"),
            "fhir_version": single.fhir.resources.__fhir_version__,
            "pydantic": single.pydantic.VERSION,
        }
        json.dump({"goal_ratio": GOAL, "environment": environment, "documents": results}, sys.stdout, indent=2)
        print()
    return 0


def print_result(result: dict, args, probes: list[tuple[str, str]]) -> None:
    print(f"{result['document']}: {result['bytes']:,} bytes; {args.rounds} rounds of {result['python_decodes_per_round']}"
          f" Python and {result['swift_decodes_per_round']} Swift decodes per probe")
    for index, row in enumerate(result["rounds"], 1):
        cells = "  ".join(f"{label} {row['seconds'][label] * 1e3:7.3f} ms ({row['ratios'][label]:5.1f}x)" for label, _ in probes)
        print(f"  round {index:2d}: python {row['seconds']['python'] * 1e3:8.3f} ms  {cells}")
    for label, _ in probes:
        probe = result["probes"][label]
        ratio = probe["ratio_to_python"]
        verdict = "met" if ratio["median"] >= GOAL else "not met"
        print(f"  {label}: median ratio {ratio['median']:.1f}x (quartiles {ratio['quartiles'][0]:.1f}-{ratio['quartiles'][1]:.1f}x,"
              f" range {ratio['range'][0]:.1f}-{ratio['range'][1]:.1f}x); goal >= {GOAL:.0f}x: {verdict};"
              f" median {probe['median_s'] * 1e3:.3f} ms")
        if label != probes[0][0]:
            against = probe["time_against_first"]
            print(f"    time against {probes[0][0]} in the same rounds: median {against['median']:.3f}"
                  f" (quartiles {against['quartiles'][0]:.3f}-{against['quartiles'][1]:.3f})")
    print(f"  python: median {result['python_median_s'] * 1e3:.3f} ms")


if __name__ == "__main__":
    sys.exit(main())
