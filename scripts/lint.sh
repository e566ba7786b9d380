#!/usr/bin/env bash
# Checks the Swift sources against the repository's .swift-format with `swift format lint`
# (swift-format ships with the toolchain) and fails on any finding of its rules.
#
#   scripts/lint.sh                 # Sources, Tests, Plugins and Benchmarks (not the generated
#                                   # FHIR models, Sources/Models*/Generated, nor Apple's sample
#                                   # code ported as written, Tests/*/Ported*CodeTests.swift)
#   scripts/lint.sh FILE|DIR…       # only these
#
# .swift-format holds the settings the code already follows: 4-space indentation, 160 columns
# (checked here: a longer line is a finding),
# and swift-format's rules except those the code does not follow (semicolons between short
# statements, grouped numeric literals, import order, several variables on one line, names such
# as `SMART_…`, several trailing closures, `case let (a, b)`, `forEach`, several cases on one
# line, an access level on an extension), which are turned off there. swift-format's lint also
# compares each file with its own pretty-printer's layout (findings named Indentation, AddLines,
# RemoveLine, Spacing, TrailingComma, LineLength, TrailingWhitespace); the code is laid out by
# hand (continuation lines aligned under their opening parenthesis, short bodies on one line),
# which no setting reproduces, so those findings are counted, not refused. `swift format` with
# the same file formats new code in the house style.
#
# About 10 seconds on 2 cores (--parallel). .ci/run runs it before the build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
    files=$(find "$@" -name '*.swift' -not -path '*/.build/*' -not -path '*/Generated/*')
else
    # Not linted: the generated FHIR models, and the tests that port Apple's sample code as
    # Apple's documentation writes it (Tests/*/Ported*CodeTests.swift, kept as written).
    files=$(find Sources Tests Plugins Benchmarks -name '*.swift' -not -path '*/.build/*' \
        -not -path 'Sources/ModelsR4/Generated/*' -not -path 'Sources/ModelsDSTU2/Generated/*' \
        -not -name 'Ported*CodeTests.swift')
fi
[ -n "$files" ] || { echo "error: no Swift files to lint" >&2; exit 2; }

if swift format --version >/dev/null 2>&1; then
    format=(swift format)
else
    format=(swift-format)
fi

output=$(mktemp)
trap 'rm -f "$output"' EXIT
# swift-format exits 0 on warnings; its findings are read from its output.
printf '%s\n' "$files" | xargs "${format[@]}" lint --parallel --configuration .swift-format >"$output" 2>&1 || true

layout='\[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma|LineLength|TrailingWhitespace)\]'
findings=$(grep -E ': (warning|error): ' "$output" | grep -Ev "$layout" || true)
other=$(grep -Ev ': (warning|error): ' "$output" | grep -v '^\s*$' || true)
laid_out=$(grep -cE "$layout" "$output" || true)
count=$(printf '%s\n' "$files" | wc -l)

if [ -n "$other" ]; then
    printf '%s\n' "$other" >&2
    echo "error: swift format lint could not check every file (above)" >&2
    exit 1
fi
if [ -n "$findings" ]; then
    printf '%s\n' "$findings" >&2
    echo "error: $(printf '%s\n' "$findings" | wc -l) swift-format finding(s) above (rules in .swift-format)" >&2
    exit 1
fi
# The line length .swift-format sets (160 columns) is checked here, since swift-format's own
# LineLength finding is one of the layout findings counted above.
long=$(printf '%s\n' "$files" | xargs awk 'length($0) > 160 { print FILENAME ":" FNR ": line of " length($0) " columns (at most 160)" }')
if [ -n "$long" ]; then
    printf '%s\n' "$long" >&2
    echo "error: $(printf '%s\n' "$long" | wc -l) line(s) longer than 160 columns above" >&2
    exit 1
fi
echo "swift format lint: $count files, no findings ($laid_out differences from swift-format's own layout, not checked)"
