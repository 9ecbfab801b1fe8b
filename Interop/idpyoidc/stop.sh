#!/usr/bin/env bash
# Stop the server started by start.sh (by its recorded pid only).
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../common/stop-server.sh" "$here"
