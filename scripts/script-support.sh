# What scripts/install.sh and scripts/package-deb.sh share; sourced, not run.

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
