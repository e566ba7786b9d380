#!/usr/bin/env bash
# Creates .build/fhir-resources-venv in the repository with the pinned Python packages that
# scripts/bench-fhir-resources.py needs (it installs nothing itself).
#
# fhir.resources 6.4.0 is the last release whose models are FHIR R4 4.0.1
# (6.5.0 is R4B 4.3.0; 7.x and 8.x are R5 with R4B/STU3 subpackages and no R4).
# It is written for the pydantic v1 API, so pydantic is pinned to 1.10.27.
# No orjson: fhir.resources then uses the standard library's json.
#
# Usage: scripts/fhir-resources-venv.sh     (needs python3 with venv, and PyPI)
# Then:  .build/fhir-resources-venv/bin/python scripts/bench-fhir-resources.py FILE.json...
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/fhir-resources-venv
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    "fhir.resources==6.4.0" \
    "pydantic[email]==1.10.27" \
    "email-validator==2.4.0" \
    "dnspython==2.9.2" \
    "idna==3.20" \
    "typing_extensions==4.16.0"
"$venv/bin/python" -c 'import fhir.resources as f, pydantic as p; assert f.__fhir_version__ == "4.0.1", f.__fhir_version__; print(f"{f.__name__} {f.__version__} (FHIR {f.__fhir_version__}), pydantic {p.VERSION} in '"$venv"'")'
