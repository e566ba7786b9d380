#!/usr/bin/env bash
# Runs the benchmarks (Benchmarks/, ordo-one/benchmark) and prints their tables, then the
# median ratios of each OpenHealthKit benchmark to its ceiling measured in the same run.
#
#   scripts/bench.sh                      # the store benchmarks (StoreBenchmarks), as before
#   scripts/bench.sh store                # the same
#   scripts/bench.sh cards                # the SMART Health Cards benchmarks (CardBenchmarks), then
#                                         # `health shc verify` of one file of 1,000, 2,000 and 4,000 cards
#                                         # with the release binary, against the in-process batch rate
#   scripts/bench.sh fhir                 # FHIR R4 decoding/encoding (FHIRBenchmarks)
#   scripts/bench.sh fhir-python          # FHIR R4 decoding against Python's fhir.resources on the same
#                                         # bytes, in alternating rounds (scripts/bench-fhir-paired.py;
#                                         # makes the pinned venv first if it is missing)
#   scripts/bench.sh server               # FhirBlocks token issuance, protected reads one at a time and under
#                                         # 16 concurrent clients, FHIR search, and the search index's write
#                                         # cost (ServerBenchmarks)
#   scripts/bench.sh import               # importing a generated 1,000,000-record Apple Health export
#                                         # beside the store's bulk save of the same samples (ImportBenchmarks),
#                                         # then the bulk save alone (import-probe save) and `health import
#                                         # apple-health` of the same export.xml and export.zip with the release
#                                         # binary, with the ratio and peak memory (/usr/bin/time -v)
#   scripts/bench.sh person               # a person's generated two-year export (export-generator --days 730; 1.76 M
#                                         # records, 372 workouts with GPX routes) through the release `health import
#                                         # apple-health` against healthkit-to-sqlite 1.0.1 (PyPI, installed in
#                                         # .build/healthkit-to-sqlite-venv) on the same export.zip, in alternating
#                                         # rounds, then the same zip again into health's store; medians of wall
#                                         # clock, CPU, peak memory, bytes written and store size beside issue 36's
#                                         # goals (OPENHEALTHKIT_PERSON_DAYS, OPENHEALTHKIT_PERSON_ROUNDS: 730 and 2)
#   scripts/bench.sh parsing              # unauthenticated parsers on adversarial 64 KiB and 1 MiB inputs (ParsingBenchmarks)
#   scripts/bench.sh records              # importing the largest Synthea bundle (RecordsBenchmarks), then
#                                         # `health records import` of the same file with the release binary
#   scripts/bench.sh sync                 # `health records sync` of the largest Synthea patient from a FHIR
#                                         # server on loopback, against fetching and saving the same (SyncBenchmarks)
#   scripts/bench.sh ui                   # `health ui`'s pages vs the statistics queries they need, same run (UIBenchmarks):
#                                         # the Summary for a year of demo data; the year Summary and Today over a
#                                         # year of minute-level data (1,174,030 samples, made once and kept in
#                                         # $TMPDIR/openhealthkit-bench-ui-minute-year-v1, or OPENHEALTHKIT_UI_BENCH_STORE),
#                                         # in process and through HTTP (goal: at most 2x the queries)
#   scripts/bench.sh pages                # each page a person waits on at 100 and at 10,000 items (PageBenchmarks):
#                                         # the Health cards page (newest, and from the middle by its cursor), the
#                                         # Sharing page's audit search, the Sharing page with a wallet (its audit log
#                                         # verified from the last checkpoint), `Patient/$everything` through HTTP (first
#                                         # page, middle page) and in the store; then each 10,000/100 ratio
#   scripts/bench.sh export               # Bulk Data export of 100,000 Observations of one patient through the server on
#                                         # loopback (kick-off, poll, download to a file) against a raw SELECT of the same
#                                         # stored JSON written to a file, same run, with the resident memory's growth
#                                         # (ServerBenchmarks, its "Bulk export" benchmarks only; goal >= 0.5x, < 64 MB)
#   scripts/bench.sh size                 # the release `health` binary's size, unstripped and stripped, with
#                                         # its stored ceilings and last measured figures
#   scripts/bench.sh all                  # every executable, one after the other, then the binary's size
#   scripts/bench.sh cards --filter 'Verify.*'   # extra options go to `swift package benchmark`
#
# Stored baselines (Benchmarks/.benchmarkBaselines/<target>/stored/results.json, committed):
#
#   scripts/bench.sh --check [SUITE]      # runs the suite (default: store) and compares each figure
#                                         # with the stored baseline (`benchmark baseline check stored`):
#                                         # exit 0 when none fell past its threshold; exit 2 when one
#                                         # did, with the plugin's "Threshold deviations for TARGET:BENCHMARK"
#                                         # tables and then one line per figure past its threshold naming
#                                         # the benchmark, the figure (wall clock, throughput…), the
#                                         # percentile, the baseline's and this run's values
#   scripts/bench.sh --update-baseline [SUITE]   # runs the suite and stores its figures as the baseline, then
#                                         # prints the stored tables (`benchmark baseline read stored`) and
#                                         # their medians and ratios, as a plain run does
#
#   scripts/bench.sh --check size         # the release `health` binary's size against its ceilings, stored in
#                                         # Benchmarks/.benchmarkBaselines/HealthBinarySize/stored/size.txt
#                                         # with the last measured figures: exit 0 when both figures are at or
#                                         # under their ceilings; exit 2 when one is past, with one line per
#                                         # figure past its ceiling (the figure, this build's size, the ceiling
#                                         # and the last measured size); exit 2 too without the file
#   scripts/bench.sh --update-baseline size      # measures and stores the figures as the last measured ones
#                                         # (the ceilings stay: raise one in the file, with the reason, when a
#                                         # change is meant to grow the binary)
#   OPENHEALTHKIT_HEALTH_BINARY=PATH      # size, --check size, --update-baseline size: measure this binary
#                                         # instead of building the release one (a .deb's, another machine's)
#
# The thresholds are in the benchmarks' code (`thresholds:` in their configuration; the store
# and page benchmarks allow a 25 % fall of the median); a benchmark without them gets ordo-one/benchmark's
# default (5 % at p25, p50 and p75). A baseline is the machine's it was measured on: store it
# again (--update-baseline) on another machine, or after a change that is meant to cost time,
# and commit it with the change. The store, UI and page benchmarks have stored baselines
# (`--check`, `--check ui`, `--check pages`), the binary's size a stored ceiling (`--check size`);
# a suite without one says so.
#
# The first run builds the benchmark package in release mode (several minutes on 2 cores);
# the store run takes about 8 minutes, the cards run about 3. Not part of CI.
# The Python jwcrypto figure for the cards is measured separately: scripts/bench-jwcrypto.py;
# the Python fhir.resources figure for FHIR decoding: scripts/bench-fhir-resources.py.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# health_link_flags, the release `health`'s link as scripts/install.sh makes it.
. "$root/scripts/script-support.sh"
cd "$root"

mode="run"
case "${1:-}" in
    --check) mode="check"; shift ;;
    --update-baseline) mode="update"; shift ;;
esac
suite="store"
case "${1:-}" in
    store|cards|fhir|fhir-python|server|records|sync|import|person|parsing|ui|pages|export|size|all) suite="$1"; shift ;;
esac

# The release `health` binary's size, as built (unstripped: symbols and debug sections) and as
# scripts/install.sh installs it (strip --strip-all), in bytes and MB. Built in the Benchmarks
# package, whose release build the import and cards runs share (or OPENHEALTHKIT_HEALTH_BINARY).
# Sets `unstripped_bytes` and `stripped_bytes`.
binary_size() {
    local health stripped
    if [ -n "${OPENHEALTHKIT_HEALTH_BINARY:-}" ]; then
        health="$OPENHEALTHKIT_HEALTH_BINARY"
        [ -f "$health" ] || { echo "error: OPENHEALTHKIT_HEALTH_BINARY: $health: no such file" >&2; exit 2; }
    else
        # Linked as scripts/install.sh links it (its health_link_flags: identical code folding), so
        # the figure is the shipped binary's; only the link differs from the other suites' build.
        swift build --package-path Benchmarks -c release --product health "${health_link_flags[@]}" >&2
        health="$(swift build --package-path Benchmarks -c release --show-bin-path)/health"
    fi
    stripped=$(mktemp)
    strip --strip-all -o "$stripped" "$health"
    unstripped_bytes=$(stat -c %s "$health")
    stripped_bytes=$(stat -c %s "$stripped")
    rm -f "$stripped"
    echo ""
    echo "health release binary (Linux, $(uname -m)): $health"
    awk -v u="$unstripped_bytes" -v s="$stripped_bytes" \
        'BEGIN { printf "  unstripped: %d bytes (%.1f MB)\n  stripped:   %d bytes (%.1f MB)\n", u, u / 1e6, s, s / 1e6 }'
}

# The binary's ceilings and last measured figures (`key=value` lines, sizes in bytes).
size_file="Benchmarks/.benchmarkBaselines/HealthBinarySize/stored/size.txt"
# The value of `key` in the size file (a whole number of bytes), or an error.
size_value() {
    local value
    value=$(awk -F= -v key="$1" '$1 == key { print $2 }' "$size_file")
    [[ "$value" =~ ^[0-9]+$ ]] || { echo "error: $size_file: no $1 (a number of bytes)" >&2; exit 2; }
    echo "$value"
}
if [ "$suite" = "size" ]; then
    if [ "$mode" != "update" ] && [ ! -f "$size_file" ]; then
        [ "$mode" = "run" ] || { echo "error: the binary's size has no stored ceiling: $size_file" >&2; exit 2; }
        binary_size
        exit 0
    fi
    binary_size
    if [ "$mode" = "update" ]; then
        [ -f "$size_file" ] || { echo "error: $size_file is missing (it holds the ceilings): restore it from git" >&2; exit 2; }
        # The measured figures replaced; comments and ceilings kept.
        updated=$(mktemp)
        awk -v u="$unstripped_bytes" -v s="$stripped_bytes" -v when="$(date -u +%Y-%m-%d) (Linux $(uname -m), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))" '
            /^measured_unstripped_bytes=/ { print "measured_unstripped_bytes=" u; next }
            /^measured_stripped_bytes=/ { print "measured_stripped_bytes=" s; next }
            /^measured_on=/ { print "measured_on=" when; next }
            { print }
        ' "$size_file" > "$updated"
        mv "$updated" "$size_file"
        echo "sizes stored as the last measured: $size_file (the ceilings unchanged)"
        exit 0
    fi
    status=0
    echo ""
    for figure in unstripped stripped; do
        ceiling=$(size_value "ceiling_${figure}_bytes")
        measured=$(size_value "measured_${figure}_bytes")
        if [ "$figure" = "unstripped" ]; then size=$unstripped_bytes; else size=$stripped_bytes; fi
        verdict="within its ceiling"
        if [ "$size" -gt "$ceiling" ]; then verdict="past its ceiling"; status=2; fi
        awk -v f="$figure" -v b="$size" -v c="$ceiling" -v m="$measured" -v v="$verdict" \
            'BEGIN { printf "  %s: health release binary, %s: %.1f MB against a ceiling of %.1f MB (last measured %.1f MB)\n", v, f, b / 1e6, c / 1e6, m / 1e6 }'
    done
    if [ "$mode" = "check" ]; then
        if [ "$status" -eq 0 ]; then
            echo "bench --check size: the release health binary is within its ceilings ($size_file)"
        else
            echo "bench --check size: the release health binary is past a ceiling (above; $size_file)"
        fi
        exit "$status"
    fi
    exit 0
fi
if [ "$mode" != "run" ] && [ "$suite" = "fhir-python" ]; then
    echo "error: fhir-python is not an ordo-one/benchmark suite; it has no stored baseline" >&2
    exit 2
fi

# FHIR decoding against Python's fhir.resources, in paired rounds on the same bytes (the two
# documents of FHIRBenchmarks): see scripts/bench-fhir-paired.py.
if [ "$suite" = "fhir-python" ]; then
    shared="${OPENHEALTHKIT_SHARED:-$root/../shared}"
    smallest=$(ls -Sr "$shared"/fhir/examples/synthea-r4/*.json | head -1)
    largest=$(ls -S "$shared"/fhir/examples/synthea-r4/*.json | head -1)
    [ -x .build/fhir-resources-venv/bin/python ] || bash scripts/fhir-resources-venv.sh >&2
    swift build --package-path Benchmarks -c release --product fhir-decode-probe >&2
    probe="$(swift build --package-path Benchmarks -c release --show-bin-path)/fhir-decode-probe"
    .build/fhir-resources-venv/bin/python scripts/bench-fhir-paired.py --probe "$probe" --first-entries 50 "$@" "$smallest"
    .build/fhir-resources-venv/bin/python scripts/bench-fhir-paired.py --probe "$probe" --python-decodes 2 "$@" "$largest"
    exit 0
fi
# A person's export against the tool people use today (issue 36's goals, same file, same run):
# export-generator --days N writes a person's export (an iPhone and an Apple Watch, a scale,
# workouts with GPX routes); `health import apple-health` (release binary, a new store each round)
# and healthkit-to-sqlite 1.0.1 (a new database each round) import the same export.zip in
# alternating rounds, and after each of health's imports the same zip goes into the same store
# again (a person exporting again: nothing new to store). Wall clock, CPU (user + system), peak
# memory and bytes written (File system outputs, 512-byte units) from /usr/bin/time -v, the
# stores' sizes on disk; then the medians beside the goals.
if [ "$suite" = "person" ]; then
    if [ "$mode" != "run" ]; then
        echo "error: person is not an ordo-one/benchmark suite; it has no stored baseline" >&2
        exit 2
    fi
    days="${OPENHEALTHKIT_PERSON_DAYS:-730}"
    rounds="${OPENHEALTHKIT_PERSON_ROUNDS:-2}"
    swift build --package-path Benchmarks -c release --product health >&2
    swift build --package-path Benchmarks -c release --product export-generator >&2
    bin="$(swift build --package-path Benchmarks -c release --show-bin-path)"
    peer_venv=".build/healthkit-to-sqlite-venv"
    if [ ! -x "$peer_venv/bin/healthkit-to-sqlite" ]; then
        python3 -m venv "$peer_venv" >&2
        "$peer_venv/bin/pip" install --quiet --disable-pip-version-check 'healthkit-to-sqlite==1.0.1' >&2
    fi
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    "$bin/export-generator" --days "$days" "$scratch/export.xml" "$scratch/export.zip" > "$scratch/generated.txt"
    head -1 "$scratch/generated.txt"
    rm -rf "$scratch/export.xml" "$scratch/workout-routes"
    # One line of figures: LABEL wall-seconds cpu-seconds peak-KiB bytes-written store-bytes.
    measure() {
        local label=$1 store=$2
        shift 2
        /usr/bin/time -v "$@" > "$scratch/out.txt" 2> "$scratch/time.txt" || { cat "$scratch/out.txt" "$scratch/time.txt" >&2; exit 1; }
        awk -F': ' -v label="$label" -v size="$(cat "$store"* 2>/dev/null | wc -c)" '
            /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; wall = s }
            /User time/ { user = $2 }
            /System time/ { sys = $2 }
            /Maximum resident set size/ { peak = $2 }
            /File system outputs/ { written = $2 * 512 }
            END { printf "%s %.2f %.2f %d %.0f %d\n", label, wall, user + sys, peak, written, size }' "$scratch/time.txt" | tee -a "$scratch/figures.txt"
    }
    echo "round figures: label, wall s, CPU s, peak KiB, bytes written, store bytes"
    for round in $(seq 1 "$rounds"); do
        rm -rf "$scratch/health" "$scratch/peer.db"*
        mkdir -p "$scratch/health"
        OPENHEALTHKIT_STORE="$scratch/health/health.sqlite" measure health "$scratch/health/health.sqlite" \
            "$bin/health" import apple-health "$scratch/export.zip"
        OPENHEALTHKIT_STORE="$scratch/health/health.sqlite" measure again "$scratch/health/health.sqlite" \
            "$bin/health" import apple-health "$scratch/export.zip"
        measure peer "$scratch/peer.db" "$peer_venv/bin/healthkit-to-sqlite" "$scratch/export.zip" "$scratch/peer.db"
    done
    python3 - "$scratch/figures.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, *values = line.split()
    rows.setdefault(label, []).append([float(v) for v in values])
def median(label, column):
    return statistics.median(row[column] for row in rows[label])
WALL, CPU, PEAK, WRITTEN, SIZE = range(5)
h, a, p = "health", "again", "peer"
print()
print(f"medians of {len(rows[h])} rounds:")
for label, name in ((h, "health import apple-health"), (a, "the same zip again"), (p, "healthkit-to-sqlite 1.0.1")):
    print(f"  {name}: {median(label, WALL):.1f} s wall, {median(label, CPU):.1f} s CPU, peak {median(label, PEAK) / 1024:.0f} MB, "
          f"{median(label, WRITTEN) / 1e9:.2f} GB written, store {median(label, SIZE) / 1e6:.1f} MB")
def goal(text, value, met):
    print(f"  {'met    ' if met else 'not met'}  {text}: {value}")
print("goals (issue 36):")
throughput = median(p, WALL) / median(h, WALL)
goal("throughput >= 3x the peer's (by wall clock)", f"{throughput:.2f}x (by CPU {median(p, CPU) / median(h, CPU):.2f}x)", throughput >= 3)
again = median(a, WALL) / median(h, WALL)
goal("re-import <= 1/4 of the first import (by wall clock)", f"{again * 100:.1f} % (by CPU {median(a, CPU) / median(h, CPU) * 100:.1f} %)", again <= 0.25)
size = median(h, SIZE) / median(p, SIZE)
goal("store no larger than the peer's database", f"{size:.2f}x", size <= 1)
written = median(h, WRITTEN) / median(h, SIZE)
goal("bytes written <= 3x the store's size", f"{written:.1f}x (the peer: {median(p, WRITTEN) / median(p, SIZE):.1f}x)", written <= 3)
peak = max(median(h, PEAK), median(a, PEAK)) / 1024
goal("peak memory < 150 MB", f"{peak:.0f} MB", peak < 150)
PY
    exit 0
fi
case "$suite" in
    store) products=(StoreBenchmarks) ;;
    cards) products=(CardBenchmarks) ;;
    fhir) products=(FHIRBenchmarks) ;;
    server) products=(ServerBenchmarks) ;;
    export) products=(ServerBenchmarks); set -- --filter 'Bulk export.*' "$@" ;;
    records) products=(RecordsBenchmarks) ;;
    sync) products=(SyncBenchmarks) ;;
    import) products=(ImportBenchmarks) ;;
    parsing) products=(ParsingBenchmarks) ;;
    ui) products=(UIBenchmarks) ;;
    pages) products=(PageBenchmarks) ;;
    all) products=(StoreBenchmarks CardBenchmarks FHIRBenchmarks ServerBenchmarks RecordsBenchmarks SyncBenchmarks ImportBenchmarks ParsingBenchmarks UIBenchmarks PageBenchmarks) ;;
esac

output="$(mktemp)"
trap 'rm -f "$output"' EXIT

# Build output goes to stderr so stdout is only the results. No `-j`: swiftc's command line
# carries the job count, so a build with another `-j` than the benchmark plugin's own build (the
# default, one job per core) recompiles every module, ModelsR4 included, twice per run.
for product in "${products[@]}"; do
    swift build --package-path Benchmarks -c release --product "$product" >&2
done

targets=()
for product in "${products[@]}"; do targets+=(--target "$product"); done

# Median (p50) wall clock of each benchmark, and each OpenHealthKit / ceiling ratio. A
# benchmark's name is the line above its table; a ceiling is named "<base> (ceiling: …)" (or
# "<base> (floor: …)" where the reference is a lower bar to clear) and pairs with every "<base> (…)" benchmark. Times are compared in nanoseconds whatever unit each
# table uses (for scaled benchmarks the table shows the time of one scaled iteration).
# The tables are read from "$output".
print_medians() {
    awk '
        function nanoseconds(unit) {
            if (unit == "ns") return 1
            if (unit == "μs" || unit == "us") return 1e3
            if (unit == "ms") return 1e6
            if (unit == "s") return 1e9
            return 0
        }
        /^[^ │╒╞├╘=]/ && !/^(Host|Baseline|Running|Build|Warning|Note|card:|50-entry|largest)/ { candidate = $0; next }
        /^╒/ { name = candidate; next }
        /Time \(wall clock\)/ && name != "" {
            n = split($0, cells, "│")
            unit = cells[2]; sub(/.*\(/, "", unit); sub(/\).*/, "", unit)
            p50 = cells[5]; gsub(/ /, "", p50)
            time[name] = p50; units[name] = unit; order[++count] = name
            name = ""
        }
        END {
            if (count == 0) exit
            # Size pairs (ParsingBenchmarks): each "<name>, 1 MiB" against "<name>, 64 KiB" (goal: at most 20x).
            for (i = 1; i <= count; i++) {
                large = order[i]
                if (large !~ /, 1 MiB$/) continue
                small = large; sub(/, 1 MiB$/, ", 64 KiB", small)
                if (!(small in time) || time[small] <= 0) continue
                if (!printedSizes) { print ""; print "Median time of the 1 MiB input against the 64 KiB one (16x is linear; the goal is at most 20x):"; printedSizes = 1 }
                a = time[large] * nanoseconds(units[large]); b = time[small] * nanoseconds(units[small])
                base = large; sub(/, 1 MiB$/, "", base)
                printf "  %s: %s %s vs %s %s -> %.1fx\n", base, time[large], units[large], time[small], units[small], a / b
            }
            # Scale pairs (PageBenchmarks): each "<name> (10,000 …)" against "<name> (100 …)" (flat is 1x).
            for (i = 1; i <= count; i++) {
                large = order[i]
                if (large !~ / \(10,000 [a-z]+\)$/) continue
                small = large; sub(/ \(10,000 /, " (100 ", small)
                if (!(small in time) || time[small] <= 0) continue
                if (!printedScale) { print ""; print "Median time at 10,000 items against 100 (1x is flat; 100x is linear):"; printedScale = 1 }
                a = time[large] * nanoseconds(units[large]); b = time[small] * nanoseconds(units[small])
                base = large; sub(/ \(10,000 [a-z]+\)$/, "", base)
                printf "  %s: %s %s vs %s %s -> %.2fx\n", base, time[large], units[large], time[small], units[small], a / b
            }
            print ""
            print "Median wall clock per iteration (p50), OpenHealthKit against its ceiling:"
            for (i = 1; i <= count; i++) {
                store = order[i]
                if (store ~ /\((ceiling|floor): /) continue
                base = store; sub(/ \([^(]*\)$/, "", base)
                for (j = 1; j <= count; j++) {
                    ceiling = order[j]
                    if ((index(ceiling, base " (ceiling: ") == 1 || index(ceiling, base " (floor: ") == 1) && time[ceiling] > 0) {
                        ours = time[store] * nanoseconds(units[store])
                        theirs = time[ceiling] * nanoseconds(units[ceiling])
                        if (ours <= 0 || theirs <= 0) continue
                        label = store; if (index(label, base " ") == 1) label = substr(label, length(base) + 2)
                        printf "  %s %s: %s %s vs %s %s -> %.2fx the ceiling time (%.2fx its throughput)\n",
                            base, label, time[store], units[store], time[ceiling], units[ceiling],
                            ours / theirs, theirs / ours
                    }
                }
            }
        }
    ' "$output"
}

# Stored baselines: store this run's figures, or compare this run's with them.
if [ "$mode" = "update" ]; then
    swift package --package-path Benchmarks --allow-writing-to-package-directory benchmark baseline update stored \
        "${targets[@]}" --no-progress "$@"
    echo "baseline stored: $(for product in "${products[@]}"; do printf 'Benchmarks/.benchmarkBaselines/%s/stored ' "$product"; done)"
    # The stored figures' tables, and their medians and ratios as a plain run prints them.
    swift package --package-path Benchmarks benchmark baseline read stored "${targets[@]}" --no-progress | tee "$output"
    print_medians
    exit 0
fi
if [ "$mode" = "check" ]; then
    for product in "${products[@]}"; do
        [ -f "Benchmarks/.benchmarkBaselines/$product/stored/results.json" ] || {
            echo "error: $product has no stored baseline: scripts/bench.sh --update-baseline $suite" >&2
            exit 2
        }
    done
    status=0
    swift package --package-path Benchmarks benchmark baseline check stored "${targets[@]}" --no-progress "$@" 2>&1 | tee "$output" || status=$?
    echo ""
    # The plugin ends with "error: benchmarkThresholdRegression" (exit 1) when a figure fell and
    # prints "… is BETTER than …" when some only improved; exit 2 here means a figure fell.
    if grep -q "benchmarkThresholdRegression\|is WORSE than" "$output"; then
        status=2
    elif [ "$status" -ne 0 ] && grep -q "is BETTER than" "$output"; then
        status=4
    fi
    case "$status" in
        0) echo "bench --check: no figure fell past its threshold against the stored baseline" ;;
        4) echo "bench --check: no figure fell; some improved past their threshold (--update-baseline to keep them)"; status=0 ;;
        2)
            # One line per figure past its threshold, from the "Threshold deviations for
            # TARGET:BENCHMARK" tables: the header row names the figure, each pNN row gives the
            # baseline's value, this run's, the difference and the threshold.
            awk '
                function trim(text) { gsub(/^ +| +$/, "", text); return text }
                /^Threshold deviations for / { bench = substr($0, 26); next }
                bench != "" && /│/ {
                    n = split($0, cells, "│")
                    first = trim(cells[2])
                    if (first ~ /^p[0-9]+$/) {
                        printf "  past its threshold: %s: %s at %s: baseline %s, this run %s (difference %s %%, threshold %s %%)\n",
                            bench, metric, first, trim(cells[3]), trim(cells[4]), trim(cells[5]), trim(cells[6])
                    } else if (first != "") {
                        metric = first
                    }
                }
            ' "$output"
            echo "bench --check: a figure fell past its threshold against the stored baseline (above)" ;;
        *) echo "bench --check: the check did not run to the end (exit $status)" ;;
    esac
    exit "$status"
fi
swift package --package-path Benchmarks benchmark --no-progress "${targets[@]}" "$@" | tee "$output"
print_medians

# The path a person runs: `health records import` of the same bundle with the release binary,
# into a new store each time (process start, key creation and migration included), five runs.
if [ "$suite" = "records" ] || [ "$suite" = "all" ]; then
    shared="${OPENHEALTHKIT_SHARED:-$root/../shared}"
    bundle=$(ls -S "$shared"/fhir/examples/synthea-r4/*.json | head -1)
    swift build -c release --product health >&2
    health="$(swift build -c release --show-bin-path)/health"
    echo ""
    echo "health records import $(basename "$bundle") (release binary, new store per run):"
    for run in 1 2 3 4 5; do
        scratch=$(mktemp -d)
        start=$(date +%s.%N)
        OPENHEALTHKIT_STORE="$scratch/health.sqlite" "$health" records import "$bundle" --json > "$scratch/report.json"
        end=$(date +%s.%N)
        stored=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['storedCount'])" "$scratch/report.json")
        awk -v s="$start" -v e="$end" -v n="$stored" 'BEGIN { printf "  run: %.1f ms, %d records, %.0f records/s\n", (e - s) * 1000, n, n / (e - s) }'
        rm -rf "$scratch"
    done
fi

# The path a person runs for an Apple Health export: `health import apple-health` of the same
# generated 1,000,000-record export the in-process benchmark imports (OPENHEALTHKIT_IMPORT_RECORDS
# for another count), as export.xml and as export.zip, with the release binary (built in the
# Benchmarks package, which shares its release build), into a new store each time; wall clock and
# peak memory from /usr/bin/time -v (Debian's `time` package: apt-get install time).
if [ "$suite" = "import" ] || [ "$suite" = "all" ]; then
    records="${OPENHEALTHKIT_IMPORT_RECORDS:-1000000}"
    swift build --package-path Benchmarks -c release --product health >&2
    swift build --package-path Benchmarks -c release --product export-generator >&2
    bin="$(swift build --package-path Benchmarks -c release --show-bin-path)"
    scratch=$(mktemp -d)
    swift build --package-path Benchmarks -c release --product import-probe >&2
    "$bin/export-generator" "$records" "$scratch/export.xml" "$scratch/export.zip"
    # The ceiling, in the same run: the store's own bulk save of the same samples (import-probe save).
    rm -rf "$scratch/save"
    /usr/bin/time -v "$bin/import-probe" save "$records" "$scratch/save" > "$scratch/save.txt" 2> "$scratch/time.txt"
    save_seconds=$(awk '/^saved/ { print $4 }' "$scratch/save.txt")
    save_peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/time.txt")
    rm -rf "$scratch/save"
    echo ""
    awk -v s="$save_seconds" -v n="$records" -v k="$save_peak" \
        'BEGIN { printf "store bulk save of the same %d samples (import-probe save, ceiling): %.1f s, %.0f samples/s, peak memory %.0f MB\n", n, s, n / s, k / 1024 }'
    echo "health import apple-health of $records records (release binary, new store per run):"
    for file in export.xml export.zip; do
        rm -f "$scratch"/health.sqlite*
        OPENHEALTHKIT_STORE="$scratch/health.sqlite" /usr/bin/time -v "$bin/health" import apple-health "$scratch/$file" \
            > "$scratch/report.txt" 2> "$scratch/time.txt"
        seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$scratch/time.txt")
        peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/time.txt")
        awk -v f="$file" -v s="$seconds" -v n="$records" -v k="$peak" -v size="$(stat -c %s "$scratch/$file")" -v c="$save_seconds" \
            'BEGIN { printf "  %s (%.0f MB): %.1f s, %.0f records/s, peak memory %.0f MB -> %.2fx the bulk save'"'"'s throughput (goal >= 0.5x)\n", f, size / 1e6, s, n / s, k / 1024, c / s }'
        head -1 "$scratch/report.txt" | sed 's/^/    /'
    done
    # The same import without the CLI (import-probe: the importer, batch size and encrypted file
    # store `health import apple-health` uses), for when the release `health` binary is not wanted.
    for file in export.xml export.zip; do
        rm -rf "$scratch/probe"
        /usr/bin/time -v "$bin/import-probe" "$scratch/$file" "$scratch/probe" > "$scratch/report.txt" 2> "$scratch/time.txt"
        seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$scratch/time.txt")
        peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/time.txt")
        awk -v f="$file" -v s="$seconds" -v n="$records" -v k="$peak" \
            'BEGIN { printf "  import-probe %s: %.1f s, %.0f records/s, peak memory %.0f MB\n", f, s, n / s, k / 1024 }'
    done
    rm -rf "$scratch"
fi

# The path a person runs for cards: `health shc verify` of one `.smart-health-card` file holding
# 1,000, 2,000 and 4,000 copies of the official example 00 (the card the in-process benchmarks
# verify), offline against the example issuer's folder, with the release binary; three runs
# each, end to end (process start, reading, verifying on every core, the whole report written).
# Compared with the in-process batch ("Verify 1,000 cards on every core (SHCVerifier)", this
# run's median above); the goal is at least 0.8x its rate for 4,000 cards.
if [ "$suite" = "cards" ] || [ "$suite" = "all" ]; then
    shared="${OPENHEALTHKIT_SHARED:-$root/../shared}"
    examples="$shared/vectors/shc/spec-examples"
    swift build -c release --product health >&2
    health="$(swift build -c release --show-bin-path)/health"
    scratch=$(mktemp -d)
    in_process=$(awk '
        /^Verify 1,000 cards on every core \(SHCVerifier\)$/ { name = 1; next }
        name && /Time \(wall clock\)/ {
            n = split($0, cells, "│"); unit = cells[2]; sub(/.*\(/, "", unit); sub(/\).*/, "", unit)
            p50 = cells[5]; gsub(/ /, "", p50)
            scale = (unit == "ms") ? 1e-3 : (unit == "μs" || unit == "us") ? 1e-6 : (unit == "s") ? 1 : 0
            if (scale > 0) printf "%.0f", 1000 / (p50 * scale)
            exit
        }' "$output")
    echo ""
    echo "health shc verify of one file of N cards (release binary, offline issuer folder, report to /dev/null):"
    for count in 1000 2000 4000; do
        python3 -c '
import json, sys
jws = open(sys.argv[1]).read().strip()
json.dump({"verifiableCredential": [jws] * int(sys.argv[2])}, open(sys.argv[3], "w"))
' "$examples/example-00-d-jws.txt" "$count" "$scratch/cards-$count.smart-health-card"
        for run in 1 2 3; do
            start=$(date +%s.%N)
            "$health" shc verify "$scratch/cards-$count.smart-health-card" --at 2025-01-01T00:00:00Z \
                --issuer "https://spec.smarthealth.cards/examples/issuer=$examples/issuer" > /dev/null
            end=$(date +%s.%N)
            awk -v s="$start" -v e="$end" -v n="$count" -v ref="${in_process:-0}" 'BEGIN {
                rate = n / (e - s)
                printf "  %d cards: %.0f ms, %.0f cards/s", n, (e - s) * 1000, rate
                if (ref > 0) printf " vs in-process batch %d cards/s -> %.2fx (goal for 4,000: >= 0.8x)", ref, rate / ref
                printf "\n"
            }'
        done
    done
    rm -rf "$scratch"
fi

if [ "$suite" = "all" ]; then binary_size; fi
