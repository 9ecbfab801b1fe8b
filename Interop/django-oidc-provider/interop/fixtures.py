"""Public test fixtures. None of these are secrets: loopback test provider only."""

USERNAME = "interop-user"
PASSWORD = "interop-password-not-a-secret"
EMAIL = "interop-user@example.test"

SCOPE = ["openid", "profile", "email", "offline_access"]

# django-oidc-provider matches redirect URIs exactly (a string compare against the registered list), ports
# included: RFC 8252's "any port on loopback" does not apply. So the code-flow clients register one URI per
# port the tests may use: 31871-31880 on 127.0.0.1 (below the ephemeral range), plus the portless form.
REDIRECT_PORTS = range(31871, 31881)
REDIRECT_URIS = ["http://127.0.0.1/callback"] + [f"http://127.0.0.1:{p}/callback" for p in REDIRECT_PORTS]

# The confidential client's secret. django-oidc-provider compares it as sent and does not form-decode a
# client_secret_basic header, so it keeps to characters that need no encoding.
CONFIDENTIAL_SECRET = "interop-confidential-secret-not-a-secret"

# client_id -> (client type, response types, redirect URIs, secret). Every client may use every grant
# (password, refresh_token, client_credentials; authorization_code when it has response type "code").
CLIENTS = {
    "sessionkit-authcode": ("public", ["code"], REDIRECT_URIS, ""),
    "sessionkit-password": ("public", [], [], ""),
    "sessionkit-confidential": ("confidential", ["code"], REDIRECT_URIS, CONFIDENTIAL_SECRET),
}
