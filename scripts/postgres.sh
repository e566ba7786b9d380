#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests (scripts/test.sh, .ci/run), from Debian's
# `postgresql` package: a fresh cluster in a temporary folder, listening on 127.0.0.1 only, on a
# free port, with trust authentication for the local user `openhealthkit` (who may create
# databases: each test case makes its own).
#
#   scripts/postgres.sh start   # starts it, writes the URL to .build/postgres/url and prints it
#   scripts/postgres.sh url     # prints the URL of the running server
#   scripts/postgres.sh stop    # stops it and deletes its data folder
#
# OPENHEALTHKIT_POSTGRES_STATE names another state folder (instead of .build/postgres), for a
# second server beside the first (scripts/test.sh uses one of its own).
#
# initdb refuses to run as root, so as root (CI) the server runs as the `postgres` system user
# that the Debian package creates; otherwise as the current user.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where the URL and the data folder's path are kept (one server per state folder).
state_dir="${OPENHEALTHKIT_POSTGRES_STATE:-$PWD/.build/postgres}"
url_file="$state_dir/url"
data_file="$state_dir/data-dir"
db_user="openhealthkit"

find_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$dir" ] || [ ! -x "$dir/initdb" ] || [ ! -x "$dir/pg_ctl" ]; then
        echo "error: PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
        exit 1
    fi
    echo "$dir"
}

# Runs a command as the server's owner (from /, which the postgres user can always enter).
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
    if [ -f "$url_file" ] && [ -f "$data_file" ]; then
        local data
        data=$(cat "$data_file")
        if [ -d "$data" ] && as_owner "$(find_bin)/pg_ctl" -D "$data" status >/dev/null 2>&1; then
            cat "$url_file"
            return 0
        fi
    fi
    local bin data port
    bin=$(find_bin)
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "error: running as root needs the 'postgres' user (created by Debian's postgresql package)" >&2
        exit 1
    fi
    mkdir -p "$state_dir"
    data=$(mktemp -d /tmp/openhealthkit-pg.XXXXXX)
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$data"
    fi
    chmod 700 "$data"
    echo "$data" > "$data_file"
    as_owner "$bin/initdb" -D "$data/cluster" -U "$db_user" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$data/initdb.log" 2>&1 || {
        cat "$data/initdb.log" >&2
        exit 1
    }
    port=$(free_port)
    # Sockets go in the data folder (not /var/run/postgresql); TCP on loopback only.
    as_owner "$bin/pg_ctl" -D "$data/cluster" -l "$data/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c max_connections=1000 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null || {
        cat "$data/server.log" >&2
        exit 1
    }
    local url="postgres://$db_user@127.0.0.1:$port/postgres?sslmode=disable"
    echo "$url" > "$url_file"
    echo "$url"
}

stop() {
    if [ ! -f "$data_file" ]; then
        echo "no PostgreSQL server started by this script" >&2
        return 0
    fi
    local data
    data=$(cat "$data_file")
    if [ -d "$data/cluster" ]; then
        as_owner "$(find_bin)/pg_ctl" -D "$data/cluster" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    case "$data" in
        /tmp/openhealthkit-pg.*) rm -rf "$data" ;;
    esac
    rm -f "$data_file" "$url_file"
    echo "PostgreSQL stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    url)
        if [ -f "$url_file" ]; then cat "$url_file"; else echo "error: not started (scripts/postgres.sh start)" >&2; exit 1; fi
        ;;
    *)
        echo "usage: $0 start|stop|url" >&2
        exit 2
        ;;
esac
