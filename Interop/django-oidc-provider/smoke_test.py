#!/usr/bin/env python
"""Smoke test of every flow SessionKit needs, against a running django-oidc-provider (see start.sh).

Usage: .venv/bin/python smoke_test.py [BASE_URL]
BASE_URL defaults to http://127.0.0.1:<port in var/run/port>.
Prints one line per check and a closing 'N passed, N failed' line; exits non-zero on any failure.
Besides pass/fail it prints OBSERVED lines: provider behaviours worth knowing (README). No token, password
or secret is ever printed.
"""
import base64
import hashlib
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import jwt
import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from interop import fixtures  # noqa: E402  (public test fixtures)

AUTHCODE_CLIENT = "sessionkit-authcode"
PASSWORD_CLIENT = "sessionkit-password"
CONFIDENTIAL_CLIENT = "sessionkit-confidential"

if len(sys.argv) > 1:
    BASE = sys.argv[1].rstrip("/")
else:
    BASE = f"http://127.0.0.1:{(HERE / 'var/run/port').read_text().strip()}"
ISSUER = f"{BASE}/openid"
TOKEN = f"{ISSUER}/token"
USERINFO = f"{ISSUER}/userinfo"
TIMEOUT = 10

passed = failed = 0
state = {}


class CheckFailed(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def observed(msg):
    print(f"  OBSERVED: {msg}")


def check(name):
    def deco(fn):
        global passed, failed
        try:
            fn()
        except CheckFailed as e:
            failed += 1
            print(f"FAIL {name}: {e}")
        except Exception as e:  # noqa: BLE001 - report anything as a failure
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
        else:
            passed += 1
            print(f"ok   {name}")
        return fn

    return deco


def post_token(auth=None, **data):
    return requests.post(TOKEN, data=data, auth=auth, timeout=TIMEOUT)


def json_of(r):
    try:
        return r.json()
    except ValueError:
        raise CheckFailed(f"HTTP {r.status_code}, not JSON: {r.text[:200]!r}")


def error_of(r):
    """The error fields of a response body: never the tokens of a success."""
    body = json_of(r)
    return {k: v for k, v in body.items() if k in ("error", "error_description")}


def expect_tokens(r, what, id_token=None):
    body = json_of(r)
    expect(r.status_code == 200, f"{what}: HTTP {r.status_code} {error_of(r)}")
    for k in ("access_token", "token_type", "refresh_token", "expires_in"):
        expect(k in body, f"{what}: no {k} in {sorted(body)}")
    expect(body["token_type"].lower() == "bearer", f"{what}: token_type {body['token_type']!r}")
    if id_token is not None:
        expect(("id_token" in body) == id_token, f"{what}: id_token present={'id_token' in body}, wanted {id_token}")
    return body


def userinfo(access_token):
    return requests.get(USERINFO, headers={"Authorization": f"Bearer {access_token}"}, timeout=TIMEOUT)


def verify_id_token(token, client_id, nonce=None):
    key = state["jwks"].get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=client_id, issuer=ISSUER)
    expect(jwt.get_unverified_header(token)["alg"] == "RS256", "id_token alg is not RS256")
    expect(claims.get("sub"), "id_token without sub")
    if nonce is not None:
        expect(claims.get("nonce") == nonce, "the id_token's nonce is not the one sent")
    return claims


def password_grant(client_id=PASSWORD_CLIENT, scope="openid profile email offline_access", **extra):
    return post_token(grant_type="password", client_id=client_id, username=fixtures.USERNAME,
                      password=fixtures.PASSWORD, scope=scope, **extra)


# ---------------------------------------------------------------- discovery
@check("discovery document and JWKS (RS256)")
def _():
    r = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=TIMEOUT)
    expect(r.status_code == 200, f"discovery HTTP {r.status_code}")
    d = r.json()
    expect(d["issuer"] == ISSUER, f"issuer {d['issuer']!r} != {ISSUER!r}")
    expect(d["token_endpoint"] == TOKEN, f"token_endpoint {d['token_endpoint']!r}")
    expect(d["userinfo_endpoint"] == USERINFO, f"userinfo_endpoint {d['userinfo_endpoint']!r}")
    missing = [k for k in ("revocation_endpoint", "device_authorization_endpoint", "code_challenge_methods_supported",
                           "grant_types_supported", "scopes_supported", "claims_supported") if k not in d]
    observed(f"discovery has no {', '.join(missing)}")
    jwks = requests.get(d["jwks_uri"], timeout=TIMEOUT).json()
    rsa = [k for k in jwks["keys"] if k.get("kty") == "RSA" and k.get("alg") == "RS256" and k.get("kid")]
    expect(rsa, "no RS256 key with a kid in the JWKS")
    state["discovery"] = d
    state["jwks"] = jwt.PyJWKClient(d["jwks_uri"])


# ---------------------------------------------------------------- password grant
@check("password grant: tokens, token_type, expires_in, id_token")
def _():
    r = password_grant()
    body = expect_tokens(r, "password grant", id_token=True)
    expect(body["expires_in"] > 0, f"expires_in {body['expires_in']}")
    claims = verify_id_token(body["id_token"], PASSWORD_CLIENT)
    observed(f"token response keys: {sorted(body)}; token_type={body['token_type']!r}; "
             f"expires_in={body['expires_in']}; scope={body.get('scope')!r}")
    observed(f"password grant returns an id_token (claims {sorted(claims)}); its nonce is the literal "
             f"{claims.get('nonce')!r} although none was sent")
    state["pw"] = body


@check("password grant: wrong password -> 403 access_denied (not invalid_grant)")
def _():
    r = post_token(grant_type="password", client_id=PASSWORD_CLIENT, username=fixtures.USERNAME,
                   password="wrong-password")
    body = error_of(r)
    expect(r.status_code == 403 and body.get("error") == "access_denied", f"HTTP {r.status_code} {body}")
    observed(f"bad password: HTTP {r.status_code} body {body}")


@check("password grant: a scope the client is not registered for -> invalid_scope")
def _():
    r = password_grant(scope="openid admin")
    body = error_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_scope", f"HTTP {r.status_code} {body}")


@check("userinfo: sub, profile and email claims; bad token refused")
def _():
    r = userinfo(state["pw"]["access_token"])
    body = json_of(r)
    expect(r.status_code == 200 and body.get("sub"), f"userinfo HTTP {r.status_code}")
    expect(body.get("email") == fixtures.EMAIL, "no email claim")
    observed(f"userinfo claims: {sorted(body)}")
    bad = userinfo("not-a-token")
    expect(bad.status_code == 401, f"userinfo with bad token: HTTP {bad.status_code}")
    observed(f"userinfo with bad token: HTTP {bad.status_code}, body {bad.text!r}, "
             f"WWW-Authenticate={bad.headers.get('WWW-Authenticate')!r}")


# ---------------------------------------------------------------- refresh + rotation + replay
@check("refresh rotates and returns an id_token; the old refresh token is refused; no family revocation")
def _():
    rt1 = state["pw"]["refresh_token"]
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=rt1)
    b2 = expect_tokens(r, "refresh", id_token=True)
    expect(b2["refresh_token"] != rt1, "refresh token was not rotated")
    expect(b2["access_token"] != state["pw"]["access_token"], "access token not renewed")
    claims = verify_id_token(b2["id_token"], PASSWORD_CLIENT)
    expect(claims["sub"] == jwt.decode(state["pw"]["id_token"], options={"verify_signature": False})["sub"],
           "refresh id_token has another sub")
    observed(f"refresh response keys: {sorted(b2)}; new id_token has nonce={'nonce' in claims}")
    old_access = userinfo(state["pw"]["access_token"])
    observed(f"the rotated-out access token at userinfo: HTTP {old_access.status_code} (row deleted)")
    expect(old_access.status_code == 401, "the old access token still works after the refresh")
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=rt1)
    body = error_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"replayed RT: HTTP {r.status_code} {body}")
    observed(f"replayed old refresh token: HTTP {r.status_code} body {body}")
    expect(userinfo(b2["access_token"]).status_code == 200, "newest access token dead after the replay")
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=b2["refresh_token"])
    expect_tokens(r, "refresh with the newest RT after a replay")
    observed("after a replay the newest refresh and access tokens keep working: no family revocation")
    state["pw"] = json_of(r)


@check("refresh token of another client -> invalid_grant")
def _():
    r = post_token(grant_type="refresh_token", client_id=AUTHCODE_CLIENT, refresh_token=state["pw"]["refresh_token"])
    body = error_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"HTTP {r.status_code} {body}")


@check("no revocation endpoint (RFC 7009)")
def _():
    for path in ("revoke", "revoke_token", "revocation"):
        r = requests.post(f"{ISSUER}/{path}", data={"token": "x", "client_id": PASSWORD_CLIENT}, timeout=TIMEOUT)
        expect(r.status_code == 404, f"/{path}: HTTP {r.status_code}")
    observed("no revocation endpoint: /openid/revoke* answer 404; a refresh token lives until it is used")


@check("access token expiry: userinfo 401, then refresh still works")
def _():
    lifetime = state["pw"]["expires_in"]
    if lifetime > 20:
        observed(f"skipped: access tokens live {lifetime} s (start with INTEROP_ACCESS_TOKEN_SECONDS=5 to check)")
        return
    time.sleep(lifetime + 1)
    r = userinfo(state["pw"]["access_token"])
    expect(r.status_code == 401, f"expired token at userinfo: HTTP {r.status_code}")
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=state["pw"]["refresh_token"])
    expect_tokens(r, "refresh after expiry")
    observed("expired access token: userinfo 401 invalid_token; refresh after expiry works")


# ---------------------------------------------------------------- confidential client
@check("confidential client: client_secret_basic and client_secret_post; wrong secret refused")
def _():
    basic = password_grant(client_id=CONFIDENTIAL_CLIENT,
                           auth=(CONFIDENTIAL_CLIENT, fixtures.CONFIDENTIAL_SECRET))
    expect_tokens(basic, "client_secret_basic")
    post = password_grant(client_id=CONFIDENTIAL_CLIENT, client_secret=fixtures.CONFIDENTIAL_SECRET)
    b = expect_tokens(post, "client_secret_post")
    r = post_token(grant_type="refresh_token", client_id=CONFIDENTIAL_CLIENT,
                   client_secret=fixtures.CONFIDENTIAL_SECRET, refresh_token=b["refresh_token"])
    expect_tokens(r, "confidential refresh")
    wrong = password_grant(client_id=CONFIDENTIAL_CLIENT, client_secret="wrong-secret")
    body = error_of(wrong)
    expect(wrong.status_code == 400 and body.get("error") == "invalid_client", f"HTTP {wrong.status_code} {body}")
    observed(f"wrong client secret: HTTP {wrong.status_code} body {body}, "
             f"WWW-Authenticate={wrong.headers.get('WWW-Authenticate')!r}")
    r = post_token(grant_type="refresh_token", client_id="no-such-client", refresh_token="x")
    observed(f"unknown client: HTTP {r.status_code} body {error_of(r)}")
    expect(r.status_code == 400, f"unknown client: HTTP {r.status_code}")


# ---------------------------------------------------------------- authorization code + PKCE
def authorize(redirect_uri, pkce=True, nonce=None):
    """Runs the browser part: login form, then the consent page. Returns (location or None, state|response, verifier)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    st = secrets.token_urlsafe(16)
    q = {"response_type": "code", "client_id": AUTHCODE_CLIENT, "redirect_uri": redirect_uri,
         "scope": "openid profile email offline_access", "state": st}
    if pkce:
        q.update(code_challenge=challenge, code_challenge_method="S256")
    if nonce:
        q["nonce"] = nonce
    url = f"{state['discovery']['authorization_endpoint']}?{urlencode(q)}"
    s = requests.Session()
    r = s.get(url, allow_redirects=True, timeout=TIMEOUT)
    if "/accounts/login/" in r.url:
        nxt = parse_qs(urlparse(r.url).query).get("next", [""])[0]
        r = s.post(r.url, data={"csrfmiddlewaretoken": s.cookies["csrftoken"], "username": fixtures.USERNAME,
                                "password": fixtures.PASSWORD, "next": nxt},
                   headers={"Referer": r.url}, allow_redirects=False, timeout=TIMEOUT)
        expect(r.status_code == 302, f"login POST: HTTP {r.status_code}")
        r = s.get(urljoin(url, r.headers["Location"]), allow_redirects=False, timeout=TIMEOUT)
    if r.status_code == 200 and 'name="allow"' in r.text:
        # The consent page ("Request for Permission"): public clients always get it.
        state["consent_seen"] = True
        form = dict(
            (i.split('name="')[1].split('"')[0], i.split('value="')[1].split('"')[0])
            for i in r.text.split("<input")[1:] if 'type="hidden"' in i
        )
        form.update(csrfmiddlewaretoken=s.cookies["csrftoken"], allow="Authorize")
        r = s.post(state["discovery"]["authorization_endpoint"], data=form, headers={"Referer": url},
                   allow_redirects=False, timeout=TIMEOUT)
    if r.status_code in (301, 302, 303):
        loc = urljoin(url, r.headers["Location"])
        if not loc.startswith(BASE):
            return loc, st, verifier
    return None, r, verifier


@check("authorization code + PKCE via consent page to a registered loopback URI; ID token with nonce")
def _():
    redirect = f"http://127.0.0.1:{fixtures.REDIRECT_PORTS[0]}/callback"
    nonce = secrets.token_urlsafe(12)
    loc, st, verifier = authorize(redirect, nonce=nonce)
    expect(loc, f"no redirect to the listener (last HTTP {getattr(st, 'status_code', '?')})")
    expect(loc.startswith(redirect + "?"), "redirected elsewhere")
    q = parse_qs(urlparse(loc).query)
    expect(q.get("state") == [st], "state mismatch")
    if state.get("consent_seen"):
        observed("the public code client gets a consent page every time (require_consent=False is ignored)")
    if "iss" not in q:
        observed("authorization response has no iss parameter (RFC 9207)")
    code = q["code"][0]
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier="wrong-" + verifier)
    body = error_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"wrong verifier: HTTP {r.status_code} {body}")
    observed(f"wrong code_verifier: HTTP {r.status_code} body {body}")
    loc, st, verifier = authorize(redirect, nonce=nonce)
    code = parse_qs(urlparse(loc).query)["code"][0]
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier=verifier)
    b = expect_tokens(r, "code exchange", id_token=True)
    claims = verify_id_token(b["id_token"], AUTHCODE_CLIENT, nonce=nonce)
    observed(f"code-flow id_token claims: {sorted(claims)}; response keys {sorted(b)}")
    r = post_token(grant_type="refresh_token", client_id=AUTHCODE_CLIENT, refresh_token=b["refresh_token"])
    b2 = expect_tokens(r, "auth-code refresh", id_token=True)
    c2 = verify_id_token(b2["id_token"], AUTHCODE_CLIENT)
    observed(f"refresh of a code-flow session returns a new id_token (verified; nonce {'kept' if 'nonce' in c2 else 'absent'})")
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier=verifier)
    body = error_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"code replay: HTTP {r.status_code} {body}")


@check("authorization request without PKCE is accepted (PKCE optional)")
def _():
    redirect = f"http://127.0.0.1:{fixtures.REDIRECT_PORTS[1]}/callback"
    loc, st, _v = authorize(redirect, pkce=False)
    expect(loc and "code=" in loc, "no code without PKCE")
    code = parse_qs(urlparse(loc).query)["code"][0]
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code, redirect_uri=redirect)
    expect_tokens(r, "code exchange without PKCE")
    observed("no PKCE: code issued and redeemed (PKCE is optional, even for public clients)")


@check("redirect URIs match exactly: another port, localhost or another path are refused")
def _():
    for bad in ("http://127.0.0.1:12345/callback", "http://localhost:31871/callback", "http://127.0.0.1:31871/other"):
        loc, st, _v = authorize(bad)
        expect(not loc, f"{bad} was accepted")
        expect("Redirect URI Error" in st.text, f"{bad}: HTTP {st.status_code}, not the redirect URI error page")
        observed(f"redirect URI {bad}: HTTP {st.status_code} error page, no redirect")


print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
