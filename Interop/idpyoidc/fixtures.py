"""Public test fixtures of the idpyoidc interop provider: one user, one confidential client.

Nothing here is a secret: the values are published so that tests can use them, on a server that listens
on 127.0.0.1 only.
"""

import os

USER_ID = "interop-user"
USER_EMAIL = "interop-user@example.test"
USERS = {
    USER_ID: {
        "sub": USER_ID,
        "name": "Interop User",
        "given_name": "Interop",
        "family_name": "User",
        "email": USER_EMAIL,
        "email_verified": True,
    }
}

CLIENT_ID = "sessionkit-confidential"
# The same registration, served by the hosting glue's correction of idpyoidc's CIBA token helper
# (server.CorrectedCIBATokenHelper); CLIENT_ID gets idpyoidc's helper as it is.
CORRECTED_CIBA_CLIENT_ID = "sessionkit-ciba-corrected"
CORRECTED_CIBA_CLIENTS = {CORRECTED_CIBA_CLIENT_ID}
CLIENT_IDS = [CLIENT_ID, CORRECTED_CIBA_CLIENT_ID]
# A public test fixture, not a secret; only characters that need no form-encoding (RFC 6749 section 2.3.1).
CLIENT_SECRET = "interop-confidential-secret-not-a-secret"
# idpyoidc matches redirect URIs exactly, port included: ten loopback ports, below the ephemeral range
# and apart from django-oidc-provider's (31871-31880).
REDIRECT_PORTS = range(31891, 31901)
REDIRECT_URIS = [f"http://127.0.0.1:{port}/callback" for port in REDIRECT_PORTS]

ACCESS_TOKEN_SECONDS = int(os.environ.get("INTEROP_ACCESS_TOKEN_SECONDS", "300"))


def client(client_id):
    """A client's entry in idpyoidc's client database (`context.cdb`)."""
    return {
        "client_id": client_id,
        "client_secret": CLIENT_SECRET,
        "client_salt": "interop-salt",
        "token_endpoint_auth_method": "client_secret_basic",
        "redirect_uris": [(uri, {}) for uri in REDIRECT_URIS],
        "response_types_supported": ["code"],
        "response_types": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "urn:openid:params:grant-type:ciba"],
        "allowed_scopes": ["openid", "profile", "email", "offline_access"],
        "backchannel_token_delivery_mode": "poll",
    }
