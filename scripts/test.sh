#!/usr/bin/env bash
# The project's test command (README, .ci/run): prepares the interoperability peers that some
# tests compare against (Python jwcrypto for JWS, zxing-cpp for QR images) in a virtual
# environment under .build/, then runs the Swift test suite with them.
# Without network access to PyPI the peers cannot be installed: outside CI the peer tests are
# then reported as skipped; in CI (CI=true) that is an error.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=".build/peers-venv"
peers=(jwcrypto zxing-cpp pillow)
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import jwcrypto, zxingcpp, PIL" 2>/dev/null; then
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
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import jwcrypto, zxingcpp, PIL" 2>/dev/null; then
    export OPENHEALTHKIT_PEERS_VENV="$PWD/$venv"
fi

exec swift test "$@"
