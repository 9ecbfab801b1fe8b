#!/usr/bin/env bash
# Prepare the loopback django-oidc-provider (juanifioren) provider: venv, deps, DB, RSA key, fixtures.
# Safe to re-run.
set -euo pipefail
# The DB holds live tokens (django-oidc-provider stores them as sent) and the key signs ID tokens: owner only.
umask 077
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt

mkdir -p var
chmod 700 var
KEY=var/oidc_rsa_private.pem
if [ ! -s "$KEY" ]; then
    # Generated locally, never committed (var/ is git-ignored).
    .venv/bin/python - "$KEY" <<'PY'
import os, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "wb") as f:
    f.write(pem)
PY
    echo "generated $KEY"
fi

.venv/bin/python manage.py migrate --noinput -v 0
.venv/bin/python manage.py interop_fixtures
echo "setup done"
