#!/usr/bin/env bash
# Start the provider on 127.0.0.1 in the background.
# Usage: ./start.sh [PORT]   (or INTEROP_PORT=...; default: a free port)
set -euo pipefail
# The DB holds live tokens (django-oauth-toolkit stores them as sent) and the key signs ID tokens: owner only.
umask 077
cd "$(dirname "$0")"

RUN=var/run
mkdir -p "$RUN"
if [ -f "$RUN/pid" ] && kill -0 "$(cat "$RUN/pid")" 2>/dev/null; then
    echo "already running: pid $(cat "$RUN/pid"), port $(cat "$RUN/port")" >&2
    exit 1
fi
[ -x .venv/bin/python ] && [ -s var/oidc_rsa_private.pem ] || ./setup.sh

PORT=${1:-${INTEROP_PORT:-}}
if [ -z "$PORT" ]; then
    PORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
export INTEROP_PORT=$PORT

.venv/bin/python -m waitress --listen="127.0.0.1:$PORT" --threads=8 interop.wsgi:application \
    >"$RUN/server.log" 2>&1 &
echo $! >"$RUN/pid"
echo "$PORT" >"$RUN/port"

ISSUER="http://127.0.0.1:$PORT/o"
../common/wait-for-server.sh "$ISSUER/.well-known/openid-configuration" 20
echo "issuer:               $ISSUER"
echo "discovery:            $ISSUER/.well-known/openid-configuration"
echo "revocation endpoint:  $ISSUER/revoke_token/   (not in discovery)"
echo "device endpoint:      $ISSUER/device-authorization/   (not in discovery)"
echo "device verification:  $ISSUER/device/"
echo "clients:              sessionkit-authcode (auth code + PKCE, redirect http://127.0.0.1/callback, any port)"
echo "                      sessionkit-password (password grant)"
echo "                      sessionkit-device   (device code grant)"
echo "user:                 interop-user / interop-password-not-a-secret (public test fixture)"
echo "pid $(cat "$RUN/pid"), log $RUN/server.log"
