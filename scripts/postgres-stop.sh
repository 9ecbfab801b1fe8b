#!/usr/bin/env bash
# Stops the cluster scripts/postgres-start.sh started, and removes its data. Stopping nothing is not an error.
set -euo pipefail
cd "$(dirname "$0")/.."
state=$PWD/.postgres
[ -f "$state/dir" ] || exit 0
dir=$(cat "$state/dir")
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -f "$dir/data/postmaster.pid" ]; then
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    else
        "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
fi
case "$dir" in
    */sessionkit-postgres.*) rm -rf "$dir" ;;
esac
rm -rf "$state"
