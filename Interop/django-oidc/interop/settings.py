"""Minimal Django settings for a loopback-only django-oauth-toolkit OIDC provider.

Test fixture only: never expose this server beyond 127.0.0.1.
"""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("INTEROP_VAR_DIR", BASE_DIR / "var"))

SECRET_KEY = "interop-test-fixture-not-a-secret"  # public test fixture
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "oauth2_provider",
    "interop",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "interop.token_requests.TokenRequestCounter",
]
ROOT_URLCONF = "interop.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "interop.wsgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "db.sqlite3",
        # The interop tests run scenarios in parallel: take the write lock at the start of each transaction
        # and wait for it, instead of failing with "database is locked" when two rotations meet.
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
LOGIN_URL = "/accounts/login/"
# Fixture password hashing with a low work factor (see interop/hashers.py); the default hasher stays listed so
# that a database made before this setting still verifies, and is re-hashed at the next sign-in.
PASSWORD_HASHERS = [
    "interop.hashers.FixturePBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

_key_file = VAR_DIR / "oidc_rsa_private.pem"
_port = os.environ.get("INTEROP_PORT", "8000")
_base = f"http://127.0.0.1:{_port}"

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _key_file.read_text() if _key_file.exists() else "",
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("INTEROP_ACCESS_TOKEN_SECONDS", "30")),
    "DEVICE_FLOW_INTERVAL": int(os.environ.get("INTEROP_DEVICE_INTERVAL", "1")),
    "OAUTH_DEVICE_VERIFICATION_URI": f"{_base}/o/device/",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Profile",
        "email": "Email",
        "offline_access": "Offline access",
        "read": "Read",
    },
    "DEFAULT_SCOPES": ["openid"],
}
