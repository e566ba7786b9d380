#!/usr/bin/env bash
# Installs the `health` command from this clone in one step:
#
#   scripts/install.sh            # into ~/.local (as root: /usr/local)
#   scripts/install.sh PREFIX     # into PREFIX
#
# It builds `health` in release (the Swift runtime linked in: see Package.swift), strips it and
# installs it as PREFIX/lib/openhealthkit/health, beside what it reads at run time (the demo's
# patient in OpenHealthKit_health.resources, and libOpenHealthKitQRImages.so, compiled with the
# C++ compiler, when zxing-cpp is installed), with PREFIX/bin/health a link to it; its manual pages, one per command, rendered by
# swift-argument-parser's generate-manual tool, in PREFIX/share/man/man1; and its completions in
# PREFIX/share/bash-completion/completions, PREFIX/share/zsh/site-functions and
# PREFIX/share/fish/vendor_completions.d. scripts/package-deb.sh packages the same files.
#
# For scripts/package-deb.sh and the tests, which bring a `health` already built:
#   --binary PATH        install this `health` instead of building one; its resource bundle and
#                        QR image library are taken from beside it
#   --manual-tool PATH   the generate-manual executable (default: built here; with --binary, the
#                        one beside PATH, and without one the manual pages are skipped with a warning)
#   --for-package        PREFIX is a package's staging folder (scripts/package-deb.sh): the zsh
#                        completion goes to Debian's share/zsh/vendor-completions, and no notes
set -euo pipefail

# usage, fail and absolute.
. "$(dirname "$0")/script-support.sh"

binary=""
qr_library=""
manual_tool=""
for_package=false
prefix=""
prefix_given=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --binary) [ $# -ge 2 ] || fail "--binary needs a path"; binary=$(absolute "$2"); shift 2 ;;
        --binary=*) binary=$(absolute "${1#*=}"); shift ;;
        --manual-tool) [ $# -ge 2 ] || fail "--manual-tool needs a path"; manual_tool=$(absolute "$2"); shift 2 ;;
        --manual-tool=*) manual_tool=$(absolute "${1#*=}"); shift ;;
        --) shift; [ $# -le 1 ] || fail "one PREFIX at most (see scripts/install.sh --help)"; [ $# -eq 0 ] || prefix=$(absolute "$1"); break ;;
        --for-package) for_package=true; shift ;;
        -*) fail "unknown option '$1' (see scripts/install.sh --help)" ;;
        *) [ -z "$prefix" ] || fail "one PREFIX at most, got two: '$prefix_given' and '$1' (see scripts/install.sh --help)"
           prefix_given=$1; prefix=$(absolute "$1"); shift ;;
    esac
done
if [ -z "$prefix" ]; then
    if [ "$(id -u)" = "0" ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi
[ -z "$binary" ] || [ -x "$binary" ] || fail "--binary $binary is not an executable file"
[ -z "$manual_tool" ] || [ -x "$manual_tool" ] || fail "--manual-tool $manual_tool is not an executable file"
command -v strip >/dev/null || fail "strip is missing: sudo apt-get install binutils"

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "$binary" ]; then
    command -v swift >/dev/null || fail "swift is not on PATH: install Swift 6.3 (swift.org/install) first"
    echo "Building health in release (the first build takes a while: 30 to 60 minutes on 2 cores)…"
    # OPENHEALTHKIT_RELEASE_FLAGS: more `swift build` flags, split on spaces (CI passes
    # "-Xswiftc -Onone" to prove the package in its time budget without the optimiser's half hour).
    # shellcheck disable=SC2086
    swift build -c release --product health "${health_link_flags[@]}" ${OPENHEALTHKIT_RELEASE_FLAGS:-}
    bin_dir=$(swift build -c release --show-bin-path)
    binary="$bin_dir/health"
    # zxing-cpp is optional: only reading QR images (health shc verify photo.png) needs it. The
    # library is one C++ file (Package.swift's CQRImageReader, with its settings), compiled here by
    # the C++ compiler rather than as SwiftPM's OpenHealthKitQRImages product, which SwiftPM links
    # against the toolchain's libswiftCore.so: the installed `health` carries its own runtime, and
    # a machine without the toolchain could not load that library.
    if [ -f /usr/include/ZXing/ReadBarcode.h ] && [ -f /usr/include/stb/stb_image.h ] && command -v "${CXX:-c++}" >/dev/null; then
        echo "Building the QR image library (zxing-cpp)…"
        "${CXX:-c++}" -std=c++17 -O2 -fPIC -shared -DZX_USE_UTF8 -I Sources/CQRImageReader/include \
            Sources/CQRImageReader/QRImageReader.cpp -lZXing -lstb -o "$work/libOpenHealthKitQRImages.so"
        qr_library="$work/libOpenHealthKitQRImages.so"
    fi
    if [ -z "$manual_tool" ]; then
        echo "Building swift-argument-parser's generate-manual tool…"
        swift build --product generate-manual
        manual_tool="$(swift build --show-bin-path)/generate-manual"
    fi
elif [ -z "$manual_tool" ] && [ -x "$(dirname "$binary")/generate-manual" ]; then
    manual_tool="$(dirname "$binary")/generate-manual"
fi
from=$(dirname "$binary")
[ -n "$qr_library" ] || [ ! -f "$from/libOpenHealthKitQRImages.so" ] || qr_library="$from/libOpenHealthKitQRImages.so"

lib="$prefix/lib/openhealthkit"
echo "Installing into $prefix:"
install -d "$prefix/bin" "$lib"
install -m 0755 "$binary" "$lib/health.new"
strip --strip-all "$lib/health.new"
mv -f "$lib/health.new" "$lib/health"
echo "  $lib/health (stripped, $(du -h "$lib/health" | cut -f1))"
# Bundle.module of the `health` target looks for its resources beside the (symlink-resolved)
# executable; so does QRReaderLibrary for the QR image library.
resources="OpenHealthKit_health.resources"
[ -d "$from/$resources" ] || fail "$from/$resources is missing: health demo needs it beside the binary"
rm -rf "$lib/$resources"
cp -R "$from/$resources" "$lib/$resources"
chmod -R u=rwX,go=rX "$lib/$resources"
echo "  $lib/$resources (the demo's patient)"
if [ -n "$qr_library" ]; then
    install -m 0644 "$qr_library" "$lib/libOpenHealthKitQRImages.so"
    strip --strip-unneeded "$lib/libOpenHealthKitQRImages.so"
    echo "  $lib/libOpenHealthKitQRImages.so (QR images)"
else
    rm -f "$lib/libOpenHealthKitQRImages.so"
    echo "  (no QR image library: reading QR images needs sudo apt-get install libzxing-dev libstb-dev, then this script again)"
fi
ln -sfn ../lib/openhealthkit/health "$prefix/bin/health"
echo "  $prefix/bin/health → ../lib/openhealthkit/health"
health="$prefix/bin/health"

if [ -n "$manual_tool" ]; then
    pages="$work/pages"
    mkdir "$pages"
    # The date in the pages: the commit's, so the same commit renders the same pages.
    date=""
    [ ! -e .git ] || date=$(git -c safe.directory='*' log -1 --format=%cs 2>/dev/null || true)
    [ -n "$date" ] || date=$(date -u +%F)
    "$manual_tool" "$health" --multi-page --date "$date" --output-directory "$pages"
    install -d "$prefix/share/man/man1"
    install -m 0644 "$pages"/*.1 "$prefix/share/man/man1/"
    echo "  $prefix/share/man/man1: $(find "$pages" -name '*.1' | wc -l) manual pages (man health, man health.store.query, …)"
else
    echo "warning: no generate-manual tool beside $binary (--manual-tool PATH): the manual pages were not installed" >&2
fi

zsh_dir="$prefix/share/zsh/site-functions"
! $for_package || zsh_dir="$prefix/share/zsh/vendor-completions"
install -d "$prefix/share/bash-completion/completions" "$zsh_dir" "$prefix/share/fish/vendor_completions.d"
"$health" --generate-completion-script bash >"$prefix/share/bash-completion/completions/health"
"$health" --generate-completion-script zsh >"$zsh_dir/_health"
"$health" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/health.fish"
echo "  completions: $prefix/share/bash-completion/completions/health, $zsh_dir/_health,"
echo "               $prefix/share/fish/vendor_completions.d/health.fish"

version=$("$health" --version) || fail "the installed $health does not run (above)"
echo "Installed $version."
$for_package && exit 0
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH; add it, e.g. echo 'export PATH=\"$prefix/bin:\$PATH\"' >>~/.bashrc" ;;
esac
case "$prefix" in
    /usr | /usr/local) ;;
    *) echo "note: for zsh completions add $prefix/share/zsh/site-functions to fpath in ~/.zshrc" ;;
esac
echo "Try it: health demo --keep ~/health-demo"
