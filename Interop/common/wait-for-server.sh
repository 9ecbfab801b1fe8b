#!/usr/bin/env bash
# Waits until an interop provider that its start.sh has just started answers URL (its discovery document).
# Usage: ../common/wait-for-server.sh URL SECONDS   (from the provider's folder: var/run/pid, var/run/server.log, .venv)
# Exits 0 once URL answers. If the server exits first, prints its log; if SECONDS pass, stops it; either way it
# removes var/run/pid and var/run/port and exits 1.
set -euo pipefail
url=${1:?usage: wait-for-server.sh URL SECONDS}
seconds=${2:?usage: wait-for-server.sh URL SECONDS}
RUN=var/run
for _ in $(seq 1 $((seconds * 5))); do
    if .venv/bin/python -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$url" \
        2>/dev/null; then
        exit 0
    fi
    if ! kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then
        echo "the server exited; its log:" >&2
        cat "$RUN/server.log" >&2
        rm -f "$RUN/pid" "$RUN/port"
        exit 1
    fi
    sleep 0.2
done
echo "$url did not answer in $seconds s; stopping the server" >&2
kill "$(cat "$RUN/pid")" 2>/dev/null || true
rm -f "$RUN/pid" "$RUN/port"
exit 1
