#!/usr/bin/env python
"""Smoke test of every flow SessionKit needs, against a running provider (see start.sh).

Usage: .venv/bin/python smoke_test.py [BASE_URL]
BASE_URL defaults to http://127.0.0.1:<port in var/run/port>.
Prints one line per check and a closing 'N passed, N failed' line; exits non-zero on any failure.
Besides pass/fail it prints OBSERVED lines: provider behaviours worth knowing (README interop section).
"""
import base64
import hashlib
import random
import re
import secrets
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import jwt
import requests

HERE = Path(__file__).resolve().parent
USERNAME = "interop-user"
PASSWORD = "interop-password-not-a-secret"  # public test fixture
AUTHCODE_CLIENT = "sessionkit-authcode"
PASSWORD_CLIENT = "sessionkit-password"
DEVICE_CLIENT = "sessionkit-device"

if len(sys.argv) > 1:
    BASE = sys.argv[1].rstrip("/")
else:
    BASE = f"http://127.0.0.1:{(HERE / 'var/run/port').read_text().strip()}"
ISSUER = f"{BASE}/o"
TOKEN = f"{ISSUER}/token/"
REVOKE = f"{ISSUER}/revoke_token/"
DEVICE_AUTH = f"{ISSUER}/device-authorization/"
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


def post_token(**data):
    return requests.post(TOKEN, data=data, timeout=TIMEOUT)


def json_of(r):
    try:
        return r.json()
    except ValueError:
        raise CheckFailed(f"HTTP {r.status_code}, not JSON: {r.text[:200]!r}")


def expect_tokens(r, what, id_token=None):
    body = json_of(r)
    expect(r.status_code == 200, f"{what}: HTTP {r.status_code} {body}")
    for k in ("access_token", "token_type", "refresh_token", "expires_in"):
        expect(k in body, f"{what}: no {k} in {sorted(body)}")
    expect(body["token_type"] == "Bearer", f"{what}: token_type {body['token_type']!r}")
    if id_token is not None:
        expect(("id_token" in body) == id_token, f"{what}: id_token present={('id_token' in body)}, wanted {id_token}")
    return body


def verify_id_token(token, client_id, nonce=None):
    key = state["jwks"].get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=client_id, issuer=ISSUER)
    expect(jwt.get_unverified_header(token)["alg"] == "RS256", "id_token alg is not RS256")
    expect(claims.get("sub"), "id_token without sub")
    if nonce is not None:
        expect(claims.get("nonce") == nonce, f"nonce {claims.get('nonce')!r} != {nonce!r}")
    return claims


def sign_in(session, url):
    """GET url; if Django's login form comes back, post the fixture credentials. Returns the final response."""
    r = session.get(url, allow_redirects=True, timeout=TIMEOUT)
    if "/accounts/login/" in r.url:
        csrf = session.cookies.get("csrftoken")
        expect(csrf, "login page set no csrftoken cookie")
        nxt = parse_qs(urlparse(r.url).query).get("next", [""])[0]
        r = session.post(
            r.url,
            data={"csrfmiddlewaretoken": csrf, "username": USERNAME, "password": PASSWORD, "next": nxt},
            headers={"Referer": r.url},
            allow_redirects=False,
            timeout=TIMEOUT,
        )
        expect(r.status_code == 302, f"login POST: HTTP {r.status_code} (wrong credentials?)")
        return r
    return r


# ---------------------------------------------------------------- discovery
@check("discovery document and JWKS (RS256)")
def _():
    r = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=TIMEOUT)
    expect(r.status_code == 200, f"discovery HTTP {r.status_code}")
    d = r.json()
    expect(d["issuer"] == ISSUER, f"issuer {d['issuer']!r} != {ISSUER!r}")
    expect(d["token_endpoint"] == TOKEN, f"token_endpoint {d['token_endpoint']!r}")
    expect("S256" in d.get("code_challenge_methods_supported", []), "S256 not advertised")
    for k in ("revocation_endpoint", "device_authorization_endpoint"):
        if k not in d:
            observed(f"discovery has no {k}: clients need an override")
    if "grant_types_supported" not in d:
        observed("discovery has no grant_types_supported")
    jwks = requests.get(d["jwks_uri"], timeout=TIMEOUT).json()
    rsa = [k for k in jwks["keys"] if k.get("kty") == "RSA" and k.get("alg", "RS256") == "RS256"]
    expect(rsa, f"no RSA key in JWKS {jwks}")
    state["discovery"] = d
    state["jwks"] = jwt.PyJWKClient(d["jwks_uri"])


# ---------------------------------------------------------------- password grant
@check("password grant: tokens, token_type, expires_in")
def _():
    r = post_token(grant_type="password", client_id=PASSWORD_CLIENT, username=USERNAME, password=PASSWORD,
                   scope="openid profile email")
    body = expect_tokens(r, "password grant")
    expect(body["expires_in"] > 0, f"expires_in {body['expires_in']}")
    if "id_token" not in body:
        observed("password grant with scope openid returns NO id_token (oauthlib only adds ID tokens "
                 "to authorization-code/implicit/hybrid responses)")
    else:
        verify_id_token(body["id_token"], PASSWORD_CLIENT)
    observed(f"token response keys: {sorted(body)}; token_type={body['token_type']!r}; expires_in={body['expires_in']}")
    state["pw"] = body


@check("password grant: wrong password -> 400 invalid_grant")
def _():
    r = post_token(grant_type="password", client_id=PASSWORD_CLIENT, username=USERNAME, password="wrong")
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"HTTP {r.status_code} {body}")
    observed(f"bad password: HTTP {r.status_code} body {body}")


@check("userinfo with the password-grant access token")
def _():
    r = requests.get(state["discovery"]["userinfo_endpoint"],
                     headers={"Authorization": f"Bearer {state['pw']['access_token']}"}, timeout=TIMEOUT)
    body = json_of(r)
    expect(r.status_code == 200 and body.get("sub"), f"userinfo HTTP {r.status_code} {body}")
    observed(f"userinfo claims: {sorted(body)}")
    bad = requests.get(state["discovery"]["userinfo_endpoint"], headers={"Authorization": "Bearer nope"},
                       timeout=TIMEOUT)
    expect(bad.status_code in (401, 403), f"userinfo with bad token: HTTP {bad.status_code}")
    observed(f"userinfo with bad token: HTTP {bad.status_code}, WWW-Authenticate={bad.headers.get('WWW-Authenticate')!r}")


# ---------------------------------------------------------------- refresh + rotation + reuse
@check("refresh rotates; old refresh token then invalid_grant; reuse revokes the family")
def _():
    rt1 = state["pw"]["refresh_token"]
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=rt1)
    b2 = expect_tokens(r, "refresh")
    expect(b2["refresh_token"] != rt1, "refresh token was not rotated")
    expect(b2["access_token"] != state["pw"]["access_token"], "access token not renewed")
    observed(f"refresh response keys: {sorted(b2)} (id_token {'present' if 'id_token' in b2 else 'absent'})")
    if "id_token" in b2:
        verify_id_token(b2["id_token"], PASSWORD_CLIENT)
        observed("refresh of a password-grant session DOES return an id_token (signature verified with JWKS)")
    rt2 = b2["refresh_token"]
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=rt1)
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"reused old RT: HTTP {r.status_code} {body}")
    observed(f"reused old refresh token: HTTP {r.status_code} body {body}")
    # Reuse protection: the replay revokes the whole family, so the current RT is dead too.
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=rt2)
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant",
           f"newest RT after replay should be revoked: HTTP {r.status_code} {body}")
    observed("after a replay of an old refresh token the newest one is refused too (family revoked)")
    at2 = requests.get(state["discovery"]["userinfo_endpoint"],
                       headers={"Authorization": f"Bearer {b2['access_token']}"}, timeout=TIMEOUT)
    observed(f"access token of the revoked family at userinfo: HTTP {at2.status_code}")


# ---------------------------------------------------------------- revocation
@check("revocation (RFC 7009) of the refresh token, then refresh refused")
def _():
    r = post_token(grant_type="password", client_id=PASSWORD_CLIENT, username=USERNAME, password=PASSWORD,
                   scope="openid")
    b = expect_tokens(r, "password grant")
    rv = requests.post(REVOKE, data={"token": b["refresh_token"], "token_type_hint": "refresh_token",
                                     "client_id": PASSWORD_CLIENT}, timeout=TIMEOUT)
    expect(rv.status_code == 200, f"revoke HTTP {rv.status_code} {rv.text[:200]!r}")
    observed(f"revoke: HTTP {rv.status_code}, body {rv.text!r}")
    r = post_token(grant_type="refresh_token", client_id=PASSWORD_CLIENT, refresh_token=b["refresh_token"])
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"refresh after revoke: HTTP {r.status_code} {body}")
    u = requests.get(state["discovery"]["userinfo_endpoint"],
                     headers={"Authorization": f"Bearer {b['access_token']}"}, timeout=TIMEOUT)
    observed(f"access token after revoking its refresh token, at userinfo: HTTP {u.status_code}")
    rv2 = requests.post(REVOKE, data={"token": "unknown-token", "client_id": PASSWORD_CLIENT}, timeout=TIMEOUT)
    expect(rv2.status_code == 200, f"revoking an unknown token: HTTP {rv2.status_code}")


# ---------------------------------------------------------------- device flow
@check("device flow: start, pending, approve via HTML, tokens")
def _():
    r = requests.post(DEVICE_AUTH, data={"client_id": DEVICE_CLIENT, "scope": "openid profile"}, timeout=TIMEOUT)
    d = json_of(r)
    expect(r.status_code == 200, f"device-authorization HTTP {r.status_code} {d}")
    for k in ("device_code", "user_code", "verification_uri", "expires_in", "interval"):
        expect(k in d, f"no {k} in {sorted(d)}")
    if "verification_uri_complete" not in d:
        observed("device response has no verification_uri_complete")
    grant = "urn:ietf:params:oauth:grant-type:device_code"
    r = post_token(grant_type=grant, client_id=DEVICE_CLIENT, device_code=d["device_code"])
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "authorization_pending", f"poll: HTTP {r.status_code} {body}")
    observed(f"pending poll: HTTP {r.status_code} body {body}")

    s = requests.Session()
    url = f"{d['verification_uri']}?{urlencode({'user_code': d['user_code']})}"
    r = sign_in(s, url)
    if r.status_code == 302:
        r = s.get(urljoin(url, r.headers["Location"]), timeout=TIMEOUT)
    expect(r.status_code == 200, f"user-code page HTTP {r.status_code}")
    r = s.post(r.url, data={"csrfmiddlewaretoken": s.cookies["csrftoken"], "user_code": d["user_code"]},
               headers={"Referer": r.url}, timeout=TIMEOUT)
    expect(r.status_code == 200 and "device-confirm" in r.url, f"user-code POST ended at {r.url} HTTP {r.status_code}")
    r = s.post(r.url, data={"csrfmiddlewaretoken": s.cookies["csrftoken"], "action": "accept"},
               headers={"Referer": r.url}, timeout=TIMEOUT)
    expect(r.status_code == 200 and "device-grant-status" in r.url, f"accept ended at {r.url} HTTP {r.status_code}")

    time.sleep(d["interval"])
    r = post_token(grant_type=grant, client_id=DEVICE_CLIENT, device_code=d["device_code"])
    b = expect_tokens(r, "device token")
    if "id_token" in b:
        verify_id_token(b["id_token"], DEVICE_CLIENT)
        observed("device grant with scope openid returns an id_token (verified)")
    else:
        observed("device grant with scope openid returns NO id_token")
    r = post_token(grant_type="refresh_token", client_id=DEVICE_CLIENT, refresh_token=b["refresh_token"])
    b2 = expect_tokens(r, "device refresh")
    expect(b2["refresh_token"] != b["refresh_token"], "device refresh token not rotated")
    if "id_token" in b2:
        verify_id_token(b2["id_token"], DEVICE_CLIENT)
        observed("refresh of a device-grant session returns an id_token (verified)")
    else:
        observed("refresh of a device-grant session returns no id_token")
    r = post_token(grant_type=grant, client_id=DEVICE_CLIENT, device_code=d["device_code"])
    observed(f"polling again with an already-redeemed device_code: HTTP {r.status_code} "
             f"({'new tokens issued: device_code is NOT single-use' if r.status_code == 200 else r.text[:120]})")


# ---------------------------------------------------------------- authorization code + PKCE
def authorize(redirect_uri, pkce=True, nonce=None):
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
    r = sign_in(s, url)
    # Follow redirects inside the provider; stop at the first one that leaves it (the loopback listener).
    for _ in range(5):
        if r.status_code not in (301, 302, 303):
            break
        loc = urljoin(url, r.headers["Location"])
        if not loc.startswith(BASE):
            return loc, st, verifier
        r = s.get(loc, allow_redirects=False, timeout=TIMEOUT)
    return None, r, verifier


@check("authorization code + PKCE via scripted browser, random loopback port")
def _():
    port = random.randint(20000, 60000)
    redirect = f"http://127.0.0.1:{port}/callback"
    nonce = secrets.token_urlsafe(12)
    loc, st, verifier = authorize(redirect, nonce=nonce)
    expect(loc, f"no redirect to the listener (last HTTP {getattr(st, 'status_code', '?')}: {getattr(st, 'text', '')[:200]!r})")
    expect(loc.startswith(redirect + "?"), f"redirected to {loc}")
    q = parse_qs(urlparse(loc).query)
    expect(q.get("state") == [st], "state mismatch")
    if "iss" not in q:
        observed("authorization response has no iss parameter (RFC 9207)")
    code = q["code"][0]
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier="wrong-" + verifier)
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"wrong verifier: HTTP {r.status_code} {body}")
    observed(f"wrong code_verifier: HTTP {r.status_code} body {body}")
    loc, st, verifier = authorize(redirect, nonce=nonce)
    code = parse_qs(urlparse(loc).query)["code"][0]
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier=verifier)
    b = expect_tokens(r, "code exchange", id_token=True)
    claims = verify_id_token(b["id_token"], AUTHCODE_CLIENT, nonce=nonce)
    observed(f"id_token claims: {sorted(claims)}")
    r = post_token(grant_type="refresh_token", client_id=AUTHCODE_CLIENT, refresh_token=b["refresh_token"])
    b2 = expect_tokens(r, "auth-code refresh")
    if "id_token" in b2:
        c2 = verify_id_token(b2["id_token"], AUTHCODE_CLIENT)
        observed(f"refresh of an auth-code session returns a new id_token (verified; nonce {'kept' if 'nonce' in c2 else 'absent'})")
    else:
        observed("refresh of an auth-code session returns no id_token")
    r = post_token(grant_type="authorization_code", client_id=AUTHCODE_CLIENT, code=code,
                   redirect_uri=redirect, code_verifier=verifier)
    body = json_of(r)
    expect(r.status_code == 400 and body.get("error") == "invalid_grant", f"code replay: HTTP {r.status_code} {body}")


@check("authorization request without PKCE is refused")
def _():
    loc, st, _v = authorize("http://127.0.0.1:12345/callback", pkce=False)
    if loc:
        q = parse_qs(urlparse(loc).query)
        expect(q.get("error"), f"no error in {loc}")
        observed(f"no PKCE: redirected with error={q['error'][0]}")
    else:
        observed(f"no PKCE: HTTP {st.status_code} error page (no redirect)")
        expect(st.status_code >= 400, f"no PKCE: HTTP {st.status_code}")


@check("non-loopback or wrong-path redirect URI refused")
def _():
    for bad in ("http://localhost:12345/callback", "http://127.0.0.1:12345/other"):
        loc, st, _v = authorize(bad)
        expect(not loc, f"{bad} was accepted: {loc}")
        expect(st.status_code >= 400, f"{bad}: HTTP {st.status_code}")
        observed(f"redirect URI {bad}: HTTP {st.status_code}, no redirect")
    observed("redirect URI host must be 127.0.0.1 exactly (localhost is refused); path must match; port is free")


@check("unknown grant / client error shapes")
def _():
    r = post_token(grant_type="refresh_token", client_id="no-such-client", refresh_token="x")
    observed(f"unknown client: HTTP {r.status_code} body {r.text[:120]} WWW-Authenticate={r.headers.get('WWW-Authenticate')!r}")
    expect(r.status_code == 401, f"unknown client: HTTP {r.status_code}")


print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
