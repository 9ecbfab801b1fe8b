"""Public test fixtures. None of these are secrets: loopback test provider only."""

USERNAME = "interop-user"
PASSWORD = "interop-password-not-a-secret"
EMAIL = "interop-user@example.test"

# client_id -> (grant type, redirect URIs)
CLIENTS = {
    "sessionkit-authcode": ("authorization-code", "http://127.0.0.1/callback"),
    "sessionkit-password": ("password", ""),
    "sessionkit-device": ("urn:ietf:params:oauth:grant-type:device_code", ""),
}
