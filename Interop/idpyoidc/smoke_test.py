"""Smoke test of the running idpyoidc provider: discovery, a pushed authorization request (RFC 9126) and a
CIBA sign-in (poll mode), with what idpyoidc answers where it differs from the specifications.

Usage: .venv/bin/python smoke_test.py [BASE_URL]   (default: the port start.sh recorded). Exits non-zero on a
failure; prints OBSERVED: lines for behaviour worth knowing. Never prints a token or the client secret.
"""

import base64
import hashlib
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import fixtures

HERE = os.path.dirname(os.path.abspath(__file__))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def call(method, url, form=None, basic=True, bearer=None, client_id=fixtures.CLIENT_ID):
    """(status, headers, body) of one request; `client_id` authenticates by HTTP Basic when `basic`."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if basic:
        pair = f"{client_id}:{fixtures.CLIENT_SECRET}".encode()
        request.add_header("Authorization", "Basic " + base64.b64encode(pair).decode())
    if bearer:
        request.add_header("Authorization", "Bearer " + bearer)
    try:
        with OPENER.open(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers, answer.read()


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def discovery(base):
    status, _, body = call("GET", f"{base}/.well-known/openid-configuration", basic=False)
    check(status == 200, "discovery answers")
    metadata = json.loads(body)
    check(metadata["issuer"] == base, "issuer is the base URL")
    for key in ("pushed_authorization_request_endpoint", "backchannel_authentication_endpoint"):
        check(key in metadata, f"discovery lists {key}")
    check("poll" in metadata["backchannel_token_delivery_modes_supported"], "poll delivery listed")
    return metadata


def pushed_sign_in(metadata):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    redirect_uri = fixtures.REDIRECT_URIS[0]
    state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    status, _, body = call(
        "POST",
        metadata["pushed_authorization_request_endpoint"],
        {
            "response_type": "code",
            "client_id": fixtures.CLIENT_ID,
            "redirect_uri": redirect_uri,
            "scope": "openid profile email offline_access",
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        },
    )
    check(status in (200, 201), f"PAR push answered (HTTP {status})")
    pushed = json.loads(body)
    check(pushed["request_uri"].startswith("urn:"), "PAR answered a request_uri")
    print(f"OBSERVED: PAR expires_in {pushed.get('expires_in')} s")

    # RFC 9126 section 4: the browser carries client_id and request_uri only. idpyoidc 5.0.0 checks the
    # front-channel request as a full OpenID request before it resolves the request_uri, and refuses it.
    only = {"client_id": fixtures.CLIENT_ID, "request_uri": pushed["request_uri"]}
    status, _, body = call("GET", f"{metadata['authorization_endpoint']}?{urllib.parse.urlencode(only)}", basic=False)
    check(status == 400, "QUIRK: /authorize with only client_id and request_uri is refused")
    print(f"OBSERVED: /authorize with only client_id and request_uri: HTTP {status} {error_of(body)}")

    # With OpenID Connect Core 6.2's parameters beside it (response_type, scope with openid, redirect_uri), as
    # idpyoidc's own client sends them, the same request_uri (not spent by the refusal) signs in; the pushed
    # values win (a different redirect_uri here is ignored, the code goes to the pushed one).
    beside = dict(only, response_type="code", scope="openid", redirect_uri=fixtures.REDIRECT_URIS[1])
    query = urllib.parse.urlencode(beside)
    status, headers, _ = call("GET", f"{metadata['authorization_endpoint']}?{query}", basic=False)
    location = headers.get("Location", "")
    check(status in (302, 303) and location.startswith(redirect_uri), "with them, /authorize redirects to the pushed URI")
    answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    check(answer.get("state") == state and "code" in answer, "the callback carries the code and the state")
    print(f"OBSERVED: callback parameters {sorted(answer)}")

    status, _, body = call(
        "POST",
        metadata["token_endpoint"],
        {"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": redirect_uri,
         "code_verifier": verifier},
    )
    check(status == 200, f"code exchange (HTTP {status}: {error_of(body)})")
    tokens = json.loads(body)
    check("access_token" in tokens and "id_token" in tokens, "an access token and an ID token")
    check(claims(tokens["id_token"]).get("nonce") == nonce, "the ID token carries the pushed nonce")
    print(f"OBSERVED: code exchange answered {sorted(tokens)}")

    print(f"OBSERVED: ID token scope claim {claims(tokens['id_token']).get('scope')!r}")
    status, _, body = call("POST", metadata["token_endpoint"],
                           {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    check(status == 200, f"refresh grant (HTTP {status}: {error_of(body)})")
    rotated = json.loads(body).get("refresh_token") not in (None, tokens["refresh_token"])
    status, _, _ = call("POST", metadata["token_endpoint"],
                        {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    print(f"OBSERVED: refresh rotates: {rotated}; the old refresh token again: HTTP {status}")

    # A request_uri is single-use? Replay it.
    status, headers, body = call("GET", f"{metadata['authorization_endpoint']}?{query}", basic=False)
    print(f"OBSERVED: the same request_uri again: HTTP {status}, Location {'yes' if headers.get('Location') else 'no'}"
          f"{' with code' if 'code=' in headers.get('Location', '') else ''}")
    return tokens


def error_of(body):
    try:
        value = json.loads(body)
        return f"{value.get('error')}: {value.get('error_description')}"
    except ValueError:
        return body[:120]


def ciba(metadata, hint, message, client_id):
    status, headers, body = call(
        "POST",
        metadata["backchannel_authentication_endpoint"],
        {"scope": "openid email offline_access", "login_hint": hint, "binding_message": message},
        client_id=client_id,
    )
    check(status == 200, f"bc-authorize answered (HTTP {status}: {error_of(body)})")
    started = json.loads(body)
    check("auth_req_id" in started and "expires_in" in started, "an auth_req_id and expires_in")
    return started, {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": started["auth_req_id"]}


def approve(base, hint, message):
    status, _, body = call("POST", f"{base}/test-only/ciba/approve", {"login_hint": hint, "binding_message": message},
                           basic=False)
    approved = json.loads(body)
    check(status == 200 and approved["binding_messages"] == [message], f"the test control approved '{message}'")


def ciba_sign_in(metadata, base):
    hint = f"mail:{fixtures.USER_EMAIL}"
    corrected = fixtures.CORRECTED_CIBA_CLIENT_ID
    started, poll = ciba(metadata, hint, "Smoke 1", corrected)
    print(f"OBSERVED: bc-authorize expires_in {started['expires_in']}, interval {started.get('interval')}")
    # Before the user approves: CIBA Core 1.0 section 11 says authorization_pending.
    status, _, body = call("POST", metadata["token_endpoint"], poll, client_id=corrected)
    check(status == 400 and json.loads(body)["error"] == "invalid_request",
          "QUIRK: a poll before approval is refused as invalid_request, not authorization_pending")
    print(f"OBSERVED: poll before approval: HTTP {status} {error_of(body)}")

    approve(base, hint, "Smoke 1")
    status, _, body = call("POST", metadata["token_endpoint"], poll, client_id=corrected)
    check(status == 200, f"poll after approval gives tokens (HTTP {status}: {error_of(body)})")
    tokens = json.loads(body)
    check("access_token" in tokens and "id_token" in tokens, "an access token and an ID token")
    idt = claims(tokens["id_token"])
    print(f"OBSERVED: CIBA ID token claims {sorted(idt)}, sub {idt.get('sub')!r}")
    print(f"OBSERVED: CIBA token response {sorted(tokens)}")

    status, _, body = call("POST", metadata["token_endpoint"], poll, client_id=corrected)
    print(f"OBSERVED: the same auth_req_id again: HTTP {status} {error_of(body)}")
    status, _, _ = call("GET", metadata["userinfo_endpoint"], basic=False, bearer=tokens["access_token"])
    print(f"OBSERVED: userinfo with the CIBA access token: HTTP {status}")
    status, _, body = call("POST", metadata["token_endpoint"],
                           {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": "not-issued"})
    print(f"OBSERVED: an auth_req_id never issued (idpyoidc's helper): HTTP {status} {error_of(body)}")
    for hint_tried in (fixtures.USER_EMAIL, "mail:nobody@example.test"):
        status, _, body = call("POST", metadata["backchannel_authentication_endpoint"],
                               {"scope": "openid", "login_hint": hint_tried})
        print(f"OBSERVED: login_hint {hint_tried!r}: HTTP {status} {error_of(body)}")

    # idpyoidc's own helper (the other client): approved, and still no tokens.
    _, poll = ciba(metadata, hint, "Smoke 2", fixtures.CLIENT_ID)
    approve(base, hint, "Smoke 2")
    status, _, body = call("POST", metadata["token_endpoint"], poll)
    check(status == 400, "DEFECT: idpyoidc's own CIBA token helper refuses an approved request")
    print(f"OBSERVED: idpyoidc's own helper, approved request: HTTP {status} {error_of(body)}")


def main():
    if len(sys.argv) > 1:
        base = sys.argv[1].rstrip("/")
    else:
        with open(os.path.join(HERE, "var", "run", "port")) as f:
            base = f"http://127.0.0.1:{f.read().strip()}"
    metadata = discovery(base)
    pushed_sign_in(metadata)
    ciba_sign_in(metadata, base)
    print("smoke test passed")


if __name__ == "__main__":
    main()
