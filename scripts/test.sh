#!/usr/bin/env bash
# The project's test command (README, .ci/run). On a fresh machine it is all the set-up: it
# installs the Debian packages the tests need beyond the demo's build (zxing-cpp and stb_image
# for the QR image library, PostgreSQL's server, Python's venv) when they are missing, then
# prepares the interoperability peers that some
# tests compare against (Python jwcrypto for JWS, and the `cryptography` it brings for the
# sample-signature peer, scripts/sample-signature-peer.py; zxing-cpp for QR images; SMART's
# Bulk Data client smart-fetch (Python 3.11 or later); Playwright
# driving Debian's chromium for `health ui`, scripts/ui-browser.py, never its own browser) in a virtual
# environment under .build/, then runs the Swift test suite with them.
# Without network access to PyPI the peers cannot be installed: outside CI the peer tests are
# then reported as skipped; in CI (CI=true) that is an error.
#
# The TrustStore conformance suite also runs on PostgreSQL when OPENHEALTHKIT_POSTGRES_URL names
# a server. When it is not set and PostgreSQL's server is installed (Debian's `postgresql`), a
# throw-away server is started with scripts/postgres.sh for this run and stopped afterwards;
# when it is not installed, the PostgreSQL cases are reported as skipped (in CI: an error).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages, each installed only when what the tests use from it is missing.
missing=()
[ -f /usr/include/ZXing/ReadBarcode.h ] || missing+=(libzxing-dev)
[ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# Go and Debian's golang.org/x/mod: sumdb/note and sumdb/tlog check the audit log (scripts/tlog-peer).
[ -x /usr/bin/go ] || missing+=(golang-go)
[ -f /usr/share/gocode/src/golang.org/x/mod/sumdb/note/note.go ] || missing+=(golang-golang-x-mod-dev)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing the Debian packages the tests need: ${missing[*]}"
    if [ "$(id -u)" = "0" ]; then
        apt_get=(apt-get)
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        apt_get=(sudo apt-get)
    else
        echo "error: the tests need these Debian packages and this user cannot install them: sudo apt-get install ${missing[*]}" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${apt_get[@]}" update -qq
    "${apt_get[@]}" install -y -qq "${missing[@]}" >/dev/null
fi

venv=".build/peers-venv"
peers=(jwcrypto zxing-cpp pillow fhirclient fhirpy playwright smart-fetch)
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import jwcrypto, zxingcpp, PIL, fhirclient, fhirpy, playwright, smart_fetch" 2>/dev/null; then
    if python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check "${peers[@]}"; then
        echo "peers installed in $venv: ${peers[*]}"
    else
        if [ "${CI:-}" = "true" ]; then
            echo "error: could not install the test peers (${peers[*]})" >&2
            exit 1
        fi
        echo "warning: test peers unavailable; peer tests will be reported as skipped" >&2
    fi
fi
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import jwcrypto, zxingcpp, PIL, fhirclient, fhirpy, playwright, smart_fetch" 2>/dev/null; then
    export OPENHEALTHKIT_PEERS_VENV="$PWD/$venv"
fi

pg_state=""
stop_postgres() {
    if [ -n "$pg_state" ]; then
        OPENHEALTHKIT_POSTGRES_STATE="$pg_state" scripts/postgres.sh stop >/dev/null || true
        rm -rf "$pg_state"
    fi
}
trap stop_postgres EXIT
if [ -z "${OPENHEALTHKIT_POSTGRES_URL:-}" ]; then
    if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
        pg_state=$(mktemp -d)
        if url=$(OPENHEALTHKIT_POSTGRES_STATE="$pg_state" scripts/postgres.sh start); then
            export OPENHEALTHKIT_POSTGRES_URL="$url"
            echo "PostgreSQL for the store tests: $url"
        else
            if [ "${CI:-}" = "true" ]; then
                echo "error: could not start PostgreSQL for the store tests" >&2
                exit 1
            fi
            echo "warning: could not start PostgreSQL (above); the PostgreSQL store tests will be reported as skipped" >&2
        fi
    else
        if [ "${CI:-}" = "true" ]; then
            echo "error: PostgreSQL is not installed (apt-get install postgresql) and OPENHEALTHKIT_POSTGRES_URL is not set" >&2
            exit 1
        fi
        echo "note: PostgreSQL's server is not installed (apt-get install postgresql) and OPENHEALTHKIT_POSTGRES_URL is not set;" \
             "the PostgreSQL store tests will be reported as skipped" >&2
    fi
fi

swift test "$@"
