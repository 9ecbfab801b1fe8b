#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for the SessionKitServer tests, and prints its URL.
#
# Usage: scripts/postgres-start.sh          (scripts/postgres-stop.sh stops it and removes its data)
#
# - Run again while its cluster runs, it prints the same URL and starts nothing.
# - Installs Debian's `postgresql` package when no server is there (as root only).
# - Keeps the cluster in a new temporary folder owned by the `postgres` user (the server refuses to run as
#   root), listening on 127.0.0.1 only, on a free port, with a Unix socket in that folder.
# - Creates the role `sessionkit` with a random password (scram-sha-256) and the database `sessionkit_test`.
# - Serves TLS too (when openssl is there), with a certificate signed by a
#   throw-away authority (for the name localhost, not the address: the tests connect by both), whose certificate is recorded in .postgres/ca for the TLS tests.
# - Records the folder, pid, port and URL in .postgres/ at the top of the repository, so that the stop
#   script and `export SESSIONKIT_POSTGRES_URL=$(cat .postgres/url)` can find them.
set -euo pipefail
cd "$(dirname "$0")/.."
state=$PWD/.postgres
mkdir -p "$state"
if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null && [ -f "$state/url" ]; then
    # Started before: the same cluster again, so that a second run (or a README line after the tests) goes on.
    echo "already running: pid $(cat "$state/pid"), port $(cat "$state/port"); scripts/postgres-stop.sh stops it" >&2
    cat "$state/url"
    exit 0
fi

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin=$(find_bin)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "PostgreSQL's server is not installed; run: sudo apt-get install -y postgresql" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    # Only the URL goes to standard output, so that `url=$(scripts/postgres-start.sh)` works.
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
    bin=$(find_bin)
fi

# As root, the server and its tools run as `postgres`; as anyone else, as that user.
if [ "$(id -u)" = 0 ]; then
    as_db() { runuser -u postgres -- "$@"; }
else
    as_db() { "$@"; }
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/sessionkit-postgres.XXXXXX")
chmod 700 "$dir"
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
echo "$dir" >"$state/dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
password=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')

as_db "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
tls_options=""
if command -v openssl >/dev/null; then
    (
        cd "$dir"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=SessionKit throw-away test authority" -keyout ca.key -out ca.crt
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
            -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
            -out server.crt
        rm -f ca.key server.csr server.ext ca.srl
        chmod 600 server.key
        if [ "$(id -u)" = 0 ]; then chown postgres: server.key server.crt; fi
    ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
    tls_options="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    echo "$dir/ca.crt" >"$state/ca"
fi
as_db "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off $tls_options" \
    start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
head -n 1 "$dir/data/postmaster.pid" >"$state/pid"
echo "$port" >"$state/port"

as_db "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE sessionkit LOGIN CREATEROLE PASSWORD '$password'" \
    -c "CREATE DATABASE sessionkit_test OWNER sessionkit"

url="postgres://sessionkit:$password@127.0.0.1:$port/sessionkit_test"
(umask 077 && echo "$url" >"$state/url")
echo "$url"
