#!/usr/bin/env bash
# Stops an interop provider started by its start.sh, by its recorded pid only.
# Usage: Interop/common/stop-server.sh PROVIDER_FOLDER   (each provider's stop.sh calls it with its own folder)
set -euo pipefail
cd "${1:?usage: stop-server.sh PROVIDER_FOLDER}"

RUN=var/run
if [ ! -f "$RUN/pid" ]; then
    echo "not running (no $RUN/pid)"
    exit 0
fi
PID=$(cat "$RUN/pid")
if kill -0 "$PID" 2>/dev/null; then
    kill "$PID"
    for _ in $(seq 1 50); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        kill -9 "$PID"
    fi
    echo "stopped pid $PID"
else
    echo "pid $PID was not running"
fi
rm -f "$RUN/pid" "$RUN/port"
