#!/usr/bin/env bash
# Restarts the cluster scripts/postgres-start.sh started (a fast shutdown: every connection is dropped), and
# waits until it accepts connections again. The SessionKitServer tests use it to restart PostgreSQL in the
# middle of a renewal storm.
set -euo pipefail
cd "$(dirname "$0")/.."
state=$PWD/.postgres
[ -f "$state/dir" ] || { echo "no cluster of scripts/postgres-start.sh is running" >&2; exit 1; }
dir=$(cat "$state/dir")
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
# The new server outlives this script: it must not inherit any descriptor of the caller's beyond 0-2 (a caller
# that watches a pipe or socket for this script's exit would otherwise wait for the server's).
for fd in $(ls /proc/$$/fd); do
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
# -l: the new server writes to its log file, not to this script's output (which a caller may be reading).
if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
else
    "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null
fi
head -n 1 "$dir/data/postmaster.pid" >"$state/pid"
