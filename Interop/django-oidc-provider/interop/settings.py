"""Minimal Django settings for a loopback-only django-oidc-provider (juanifioren) OpenID Connect provider.

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
    "oidc_provider",
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
# Fixture password hashing with a low work factor (see interop/hashers.py).
PASSWORD_HASHERS = [
    "interop.hashers.FixturePBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]

_port = os.environ.get("INTEROP_PORT", "8000")

# django-oidc-provider reads its settings as top-level OIDC_* names.
# A fixed site URL: the issuer and the discovery document's endpoints do not follow the Host header.
SITE_URL = f"http://127.0.0.1:{_port}"
# Access-token lifetime (the Token row's expiry); refresh tokens have no expiry of their own.
OIDC_TOKEN_EXPIRE = int(os.environ.get("INTEROP_ACCESS_TOKEN_SECONDS", "30"))
OIDC_IDTOKEN_EXPIRE = 600
# The resource-owner password grant is off by default.
OIDC_GRANT_TYPE_PASSWORD_ENABLE = True
# Standard claims for the profile and email scopes (the default fills none, so userinfo would say only `sub`).
OIDC_USERINFO = "interop.userinfo.userinfo"
