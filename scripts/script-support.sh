# What scripts/install.sh, scripts/package-deb.sh and scripts/bench.sh share; sourced, not run.

# Prints the calling script's header comment (from line 2 to `set -euo`) as its help.
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# A usage or environment error: one line on standard error, exit status 2.
fail() {
    echo "error: $*" >&2
    exit 2
}

# An absolute path for a path given relative to where the script was started.
absolute() {
    case "$1" in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$PWD/$1" ;;
    esac
}

# Linker flags of the release `health` (scripts/install.sh builds with them; scripts/bench.sh
# size measures with the same). Identical code folding: gold (the Swift 6.3 toolchain's linker on Linux; lld takes the flag too) merges
# functions whose machine code and relocations are the same, only those whose address is never
# taken (--icf=safe), so no two function pointers compare equal. Measured by relinking the
# release objects of b826d24 (CI's -Onone build): 46,851 functions folded, stripped 205.8 -> 200.9
# MB (-2.4 %), unstripped 369.5 -> 364.6 MB; health --help, demo, fhir, shc and serve answer as
# before. SwiftPM already links with --gc-sections, but it removes almost nothing (0.7 MB): swiftc
# marks every public function SHF_GNU_RETAIN, and the rest of a file's code is one section.
# -Xlinker flags change only the link: no module is recompiled for them.
health_link_flags=(-Xlinker --icf=safe)
