"""Counts token-endpoint requests, so the SessionKit interop tests can prove that a session renewed once.

Test fixture only, like the rest of this project: loopback, no authentication. Nothing secret is kept: a
refresh token is recorded as its SHA-256 digest, never its value.
"""
import hashlib
import threading
from collections import Counter
from urllib.parse import parse_qs

from django.http import JsonResponse

# django-oidc-provider's token route is `^token/?$`: count it with and without the trailing slash.
TOKEN_PATHS = {"/openid/token", "/openid/token/"}

_lock = threading.Lock()
_by_grant = Counter()  # grant_type -> requests
_by_refresh_token = Counter()  # sha256(refresh_token) hex -> refresh_token grant requests


class TokenRequestCounter:
    """Middleware: counts every POST to the token endpoint before django-oidc-provider answers it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path in TOKEN_PATHS:
            # Read the raw body (Django caches it), so the view still sees the form unchanged.
            form = parse_qs(request.body.decode("utf-8", "replace"))
            grant = form.get("grant_type", [""])[0]
            refresh_token = form.get("refresh_token", [""])[0]
            with _lock:
                _by_grant[grant] += 1
                if grant == "refresh_token" and refresh_token:
                    _by_refresh_token[hashlib.sha256(refresh_token.encode()).hexdigest()] += 1
        return self.get_response(request)


def counts(request):
    """GET /interop/token-requests/[?refresh_token_sha256=HEX,HEX...]: counts so far.

    Answers {"by_grant": {...}, "presenting": N}, where N is how many refresh_token grants presented one
    of the given refresh tokens (identified by the SHA-256 of their value, hex).
    """
    digests = [d for d in request.GET.get("refresh_token_sha256", "").split(",") if d]
    with _lock:
        return JsonResponse(
            {"by_grant": dict(_by_grant), "presenting": sum(_by_refresh_token[d] for d in digests)}
        )
