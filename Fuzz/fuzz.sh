#!/bin/sh
# Builds and runs the libFuzzer targets of Fuzz/ (swiftc -sanitize=fuzzer, Swift on Linux).
# The target is compiled from the library's own source files (the ones it needs), into
# $FUZZ_OUT (default /tmp/openhealthkit-fuzz), never into .build.
#
#   Fuzz/fuzz.sh [libFuzzer options…]      e.g. Fuzz/fuzz.sh -runs=1000000 -jobs=2
#
# FUZZ_SANITIZERS=fuzzer,address adds AddressSanitizer (slower). The corpus starts from
# Fuzz/AppleHealthExportReader/Seeds and grows in $FUZZ_OUT/corpus; a crashing input is written
# to $FUZZ_OUT as crash-…. Foundation's XMLParser leaks a small CFString for each parse error
# (_CFErrorCreateFromXMLInterface; LeakSanitizer shows it), about 50 bytes an input on average, so
# long runs get -rss_limit_mb=8192 (give -rss_limit_mb after it to change it).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_OUT:-/tmp/openhealthkit-fuzz}
sanitizers=${FUZZ_SANITIZERS:-fuzzer}
mkdir -p "$out/corpus"
library="$root/Sources/AppleHealthExport"
swiftc -O -swift-version 6 -parse-as-library -sanitize="$sanitizers" -module-name AppleHealthExportFuzz \
    "$library/AppleHealthExportError.swift" "$library/ExportByteSource.swift" "$library/ExportProlog.swift" \
    "$library/PrologStrippedStream.swift" "$library/ExportXMLReader.swift" \
    "$root/Fuzz/AppleHealthExportReader/FuzzTarget.swift" -o "$out/apple-health-export-reader"
cd "$out"
exec ./apple-health-export-reader -max_len=4096 -timeout=10 -rss_limit_mb=8192 -artifact_prefix="$out/" "$@" corpus "$root/Fuzz/AppleHealthExportReader/Seeds"
