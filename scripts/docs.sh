#!/usr/bin/env bash
# Builds the DocC documentation of every public library with swift-docc-plugin, treating DocC's
# warnings (unresolved links, undocumented parameters named in a doc comment) as errors.
#
#   scripts/docs.sh                 # every library, archives in a temporary folder (deleted)
#   scripts/docs.sh OUT             # keep the .doccarchive folders in OUT
#
# .ci/run runs it after the tests. ModelsR4 (every R4 type) takes about a minute and a half.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(OpenHealthKit HealthPresentation HealthWebApp ExactJSON FHIRCore ModelsR4 ModelsDSTU2 QRCode QRImageReader SmartHealthCards SmartHealthCardsHTTPS SmartHealthLinks HealthSharing HealthRecords RecordsSync SampleFiles AppleHealthExport SampleSignatures AppleHealthClinicalRecords AppleHealthExportGenerator
         DemoData FhirBlocks FhirBlocksStore FhirBlocksClient FhirBlocksServer FhirBlocksDeployment)
out="${1:-}"
scratch=""
if [ -z "$out" ]; then
    scratch=$(mktemp -d)
    out="$scratch"
    trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$out"
log=$(mktemp)
for target in "${targets[@]}"; do
    if ! swift package --disable-sandbox --allow-writing-to-directory "$out" generate-documentation --target "$target" \
        --warnings-as-errors --output-path "$out/$target.doccarchive" >"$log" 2>&1; then
        grep -Ev '^\[|unhandled; explicitly declare' "$log" >&2
        echo "error: the documentation of $target has warnings or errors (above)" >&2
        rm -f "$log"
        exit 1
    fi
    echo "$target: $(grep -E '^Finished building documentation' "$log" | head -1)"
done
rm -f "$log"
echo "documentation built for ${#targets[@]} libraries"
