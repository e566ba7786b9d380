#!/usr/bin/env bash
# Runs the store benchmarks (Benchmarks/, ordo-one/benchmark) and prints their table, then the
# median ratios of each OpenHealthKit benchmark to its ceiling measured in the same run.
#
#   scripts/bench.sh                      # all four benchmarks
#   scripts/bench.sh --filter 'Save.*'    # extra options go to `swift package benchmark`
#
# The first run builds the benchmark package in release mode (several minutes on 2 cores);
# a run takes about 5 minutes. Not part of CI.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

output="$(mktemp)"
trap 'rm -f "$output"' EXIT

# Build output goes to stderr so stdout is only the results.
swift build --package-path Benchmarks -c release -j 1 --product StoreBenchmarks >&2

swift package --package-path Benchmarks benchmark --no-progress "$@" | tee "$output"

# Median (p50) wall clock of each benchmark, and each OpenHealthKit / ceiling ratio.
awk '
    /^(Save|Statistics) / { name = $0; next }
    /Time \(wall clock\)/ && name != "" {
        n = split($0, cells, "│")
        unit = cells[2]; sub(/.*\(/, "", unit); sub(/\).*/, "", unit)
        p50 = cells[5]; gsub(/ /, "", p50)
        time[name] = p50; units[name] = unit; order[++count] = name
        name = ""
    }
    END {
        if (count == 0) exit
        print ""
        print "Median wall clock per iteration (p50), OpenHealthKit against its ceiling:"
        for (i = 1; i <= count; i++) {
            store = order[i]
            if (store ~ /\(ceiling: /) continue
            base = store; sub(/ \([^(]*\)$/, "", base)
            for (j = 1; j <= count; j++) {
                ceiling = order[j]
                if (index(ceiling, base " (ceiling: ") == 1 && time[ceiling] > 0) {
                    printf "  %s: %s %s vs %s %s -> %.2fx the ceiling time (%.2fx its throughput)\n",
                        base, time[store], units[store], time[ceiling], units[ceiling],
                        time[store] / time[ceiling], time[ceiling] / time[store]
                }
            }
        }
    }
' "$output"
