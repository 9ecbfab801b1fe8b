#!/usr/bin/env bash
# Start authgent-server (from PyPI) on 127.0.0.1 in the background, with DPoP proofs and their nonces required.
# Usage: ./start.sh [PORT]   (default: a free port). Its SQLite database and keys live in var/ (owner only).
set -euo pipefail
umask 077
cd "$(dirname "$0")"

RUN=var/run
mkdir -p "$RUN"
chmod 700 var "$RUN"
if [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then
    echo "already running: pid $(cat "$RUN/pid"), port $(cat "$RUN/port")" >&2
    exit 1
fi
if [ ! -x .venv/bin/uvicorn ]; then
    ${PYTHON:-python3} -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
fi

PORT=${1:-$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
rm -f var/authgent.db
# consent_mode auto_approve (its default): /authorize answers with a code at once, for a scripted code flow.
AUTHGENT_SERVER_URL="http://127.0.0.1:$PORT" \
AUTHGENT_DATABASE_URL="sqlite+aiosqlite:///$PWD/var/authgent.db" \
AUTHGENT_REQUIRE_DPOP=true \
AUTHGENT_ACCESS_TOKEN_TTL=60 \
    .venv/bin/uvicorn --factory authgent_server.app:create_app --host 127.0.0.1 --port "$PORT" \
    >"$RUN/server.log" 2>&1 &
echo $! >"$RUN/pid"
echo "$PORT" >"$RUN/port"
../common/wait-for-server.sh "http://127.0.0.1:$PORT/.well-known/openid-configuration" 30
echo "issuer: http://127.0.0.1:$PORT (DPoP and nonces required; clients register at /register)"
