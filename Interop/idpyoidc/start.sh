#!/usr/bin/env bash
# Start the idpyoidc provider (server.py hosting idpyoidc 5.0.0 from PyPI) on 127.0.0.1 in the background.
# Usage: ./start.sh [PORT]   (or INTEROP_PORT=...; default: a free port). Keys and state in var/ (owner only).
set -euo pipefail
# var/ holds the provider's signing keys: owner only.
umask 077
cd "$(dirname "$0")"

RUN=var/run
mkdir -p "$RUN" var/keys
chmod 700 var "$RUN" var/keys
if [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then
    echo "already running: pid $(cat "$RUN/pid"), port $(cat "$RUN/port")" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import idpyoidc, waitress' 2>/dev/null; then
    ${PYTHON:-python3} -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
fi

PORT=${1:-${INTEROP_PORT:-}}
if [ -z "$PORT" ]; then
    PORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
# Sessions live in memory: every start is a fresh provider (keys in var/keys are kept).
.venv/bin/python server.py "$PORT" >"$RUN/server.log" 2>&1 &
echo $! >"$RUN/pid"
echo "$PORT" >"$RUN/port"

ISSUER="http://127.0.0.1:$PORT"
../common/wait-for-server.sh "$ISSUER/.well-known/openid-configuration" 30
echo "issuer:      $ISSUER (idpyoidc 5.0.0)"
echo "discovery:   $ISSUER/.well-known/openid-configuration"
echo "client:      sessionkit-confidential (client_secret_basic or _post; secret in fixtures.py)"
echo "             code + PKCE (S256), refresh_token, urn:openid:params:grant-type:ciba (poll)"
echo "             redirect URIs http://127.0.0.1:31891/callback ... :31900/callback (exact)"
echo "user:        interop-user, CIBA login_hint mail:interop-user@example.test"
echo "test only:   POST $ISSUER/test-only/ciba/approve  login_hint=...  (the user's device)"
echo "pid $(cat "$RUN/pid"), log $RUN/server.log"
