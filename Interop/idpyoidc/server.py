"""A loopback OpenID provider built from idpyoidc 5.0.0 (IdentityPython) for SessionKit's interop tests.

idpyoidc is a library of endpoints, not a server: this file is the hosting glue. It configures an
idpyoidc `Server` (discovery, JWKS, authorization, pushed authorization requests (RFC 9126), token,
userinfo, revocation, CIBA backchannel authentication), registers two confidential clients and one user,
and serves the endpoints over WSGI (waitress, 127.0.0.1 only).

One route is not idpyoidc's and exists for tests only: `POST /test-only/ciba/approve` does what the
user's authentication device would do for a pending CIBA request (see `approve_ciba`). Two corrections of
idpyoidc defects apply to one of the two clients only (`CorrectedCIBATokenHelper`,
`pkce_skipping_corrected_ciba`); the other client gets idpyoidc's code as it is.

Usage: python server.py PORT   (run by start.sh; keys and state in var/, owner only)
"""

import json
import logging
import os
import sys
import threading
import traceback
from urllib.parse import parse_qsl

from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.server import Server
from idpyoidc.server.authn_event import create_authn_event
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.oauth2.add_on import pkce
from idpyoidc.server.exception import ClientAuthenticationError
from idpyoidc.server.oidc.backchannel_authentication import BackChannelAuthentication
from idpyoidc.server.oidc.backchannel_authentication import CIBATokenHelper
from idpyoidc.server.user_authn.authn_context import INTERNETPROTOCOLPASSWORD

import fixtures

HERE = os.path.dirname(os.path.abspath(__file__))
VAR = os.path.join(HERE, "var")
log = logging.getLogger("idpyoidc-interop")

# Routes answered by idpyoidc endpoints: path -> endpoint name in the configuration below.
ENDPOINTS = {
    "provider_config": ".well-known/openid-configuration",
    "authorization": "authorize",
    "pushed_authorization": "par",
    "token": "token",
    "userinfo": "userinfo",
    "token_revocation": "revoke",
    "backchannel_authentication": "bc-authorize",
}
CLIENT_AUTHN = ["client_secret_basic", "client_secret_post"]
CIBA_GRANT = "urn:openid:params:grant-type:ciba"


def configuration(issuer):
    return {
        "issuer": issuer,
        "httpc_params": {"verify": True},
        "keys": {
            "private_path": os.path.join(VAR, "keys", "jwks.json"),
            "key_defs": [{"type": "RSA", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}],
            "read_only": False,
            "uri_path": "jwks",
        },
        "token_handler_args": {
            "jwks_def": {
                "private_path": os.path.join(VAR, "keys", "token_jwks.json"),
                "read_only": False,
                "key_defs": [
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "code"},
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "refresh"},
                ],
            },
            "code": {"lifetime": 600},
            "token": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": fixtures.ACCESS_TOKEN_SECONDS, "add_claims_by_scope": True},
            },
            "refresh": {"lifetime": 86400},
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        "session_params": {
            "encrypter": {
                "kwargs": {
                    "keys": {
                        "key_defs": [
                            {"type": "OCT", "use": ["enc"], "kid": "password"},
                            {"type": "OCT", "use": ["enc"], "kid": "salt"},
                        ]
                    },
                    "iterations": 1,
                }
            }
        },
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": pkce.CC_METHOD["S256"]}},
            }
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                        },
                        "access_token": {},
                        "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"]},
                    },
                    "expires_in": 43200,
                }
            },
        },
        # The browser sign-in: idpyoidc's NoAuthn signs the fixture user in at once (no page to fill in).
        "authentication": {
            "anon": {
                "acr": INTERNETPROTOCOLPASSWORD,
                "class": "idpyoidc.server.user_authn.user.NoAuthn",
                "kwargs": {"user": fixtures.USER_ID},
            }
        },
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": fixtures.USERS}},
        "login_hint_lookup": {"class": "idpyoidc.server.login_hint.LoginHintLookup"},
        "preference": {
            "grant_types_supported": [
                "authorization_code",
                "refresh_token",
                "urn:openid:params:grant-type:ciba",
            ],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
        },
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "private_path": os.path.join(VAR, "keys", "cookie_jwks.json"),
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ],
                    "read_only": False,
                },
                "name": {"session": "oidc_op", "register": "oidc_op_rp", "session_management": "sman"},
            },
        },
        "template_dir": "templates",
        "endpoint": {
            "provider_config": {
                "path": ENDPOINTS["provider_config"],
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": ENDPOINTS["authorization"],
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                    "request_uri_parameter_supported": True,
                },
            },
            "pushed_authorization": {
                "path": ENDPOINTS["pushed_authorization"],
                "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                "kwargs": {"client_authn_method": CLIENT_AUTHN, "ttl": 60},
            },
            "token": {
                "path": ENDPOINTS["token"],
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {"client_authn_method": CLIENT_AUTHN},
            },
            "userinfo": {
                "path": ENDPOINTS["userinfo"],
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {},
            },
            "token_revocation": {
                "path": ENDPOINTS["token_revocation"],
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": CLIENT_AUTHN},
            },
            "backchannel_authentication": {
                "path": ENDPOINTS["backchannel_authentication"],
                "class": "idpyoidc.server.oidc.backchannel_authentication.BackChannelAuthentication",
                "kwargs": {"client_authn_method": CLIENT_AUTHN, "expires_in": 120, "interval": 1},
            },
        },
    }


class CorrectedCIBATokenHelper(CIBATokenHelper):
    """Hosting-glue correction of idpyoidc 5.0.0's CIBA token helper, for `fixtures.CORRECTED_CIBA_CLIENTS` only.

    idpyoidc's `CIBATokenHelper.post_parse_request` looks for the approval among the grants the user has for the
    client, comparing their full session keys ("user;;client;;grant") with the request's bare grant id: it always
    counts the request's own grant and builds a session path from its key, which nothing finds (the PKCE add-on
    then answers `invalid_grant` "Unknown access grant"), or, once any other grant exists, answers `invalid_request`
    "More then one authentication found"; and its `process_request` reads a `branch_id` its `_get_session_info`
    does not set. It never issues tokens.

    Here the approval is the grant the test control created for this `auth_req_id`; before it exists the answer
    is idpyoidc's own ("No authentication found", not `authorization_pending`). Token minting, the client check and
    every answer after that are idpyoidc's. Other clients get idpyoidc's helper unchanged.
    """

    def post_parse_request(self, request, client_id="", **kwargs):
        if client_id not in fixtures.CORRECTED_CIBA_CLIENTS:
            return super().post_parse_request(request, client_id, **kwargs)
        context = self.endpoint.upstream_get("context")
        if request.get("auth_req_id") not in context.session_manager.auth_req_id_map:
            return self.error_cls(error="invalid_grant", error_description="Unknown auth_req_id")
        approval = context.ciba_approvals.pop(request["auth_req_id"], None)
        if approval is None:
            return self.error_cls(error="invalid_request", error_description="No authentication found")
        request["_session_path"] = list(context.session_manager.decrypt_session_id(approval))
        request["_session_id"] = approval
        return request

    def _get_session_info(self, request, session_manager):
        info, grant = super()._get_session_info(request, session_manager)
        info["branch_id"] = request["_session_id"]
        return info, grant


def pkce_skipping_corrected_ciba(request, client_id, context, **kwargs):
    """Hosting-glue correction of idpyoidc 5.0.0's PKCE add-on, for `fixtures.CORRECTED_CIBA_CLIENTS` only.

    The add-on's `post_token_parse` runs on every token request that is not a refresh, token exchange or client
    credentials request, and looks its `code` up: a CIBA request has none, so it is refused with `invalid_grant`
    "Unknown access grant". Here CIBA requests of the corrected clients skip it; everything else goes through it.
    """
    if client_id in fixtures.CORRECTED_CIBA_CLIENTS and request.get("grant_type") == CIBA_GRANT:
        return request
    return pkce.post_token_parse(request, client_id, context, **kwargs)


class Provider:
    """The idpyoidc server and the WSGI application around it."""

    def __init__(self, issuer):
        self.issuer = issuer
        self.server = Server(OPConfiguration(conf=configuration(issuer), base_path=HERE), cwd=HERE)
        self.context = self.server.context
        self.context.cdb = {client_id: fixtures.client(client_id) for client_id in fixtures.CLIENT_IDS}
        self.endpoints = {path: self.server.get_endpoint(name) for name, path in ENDPOINTS.items()}
        token = self.server.get_endpoint("token")
        token.grant_type_helper[CIBA_GRANT] = CorrectedCIBATokenHelper(token)
        token.post_parse_request = [
            pkce_skipping_corrected_ciba if step is pkce.post_token_parse else step for step in token.post_parse_request
        ]
        # auth_req_id -> the session (grant) the test control created when it approved that request.
        self.context.ciba_approvals = {}
        # idpyoidc's session manager is a plain dict store: one request at a time.
        self.lock = threading.Lock()
        # The CIBA requests the test control approved once (approving again would add a grant each time).
        self.spent = set()

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "").lstrip("/")
        method = environ.get("REQUEST_METHOD", "GET")
        with self.lock:
            try:
                if path == "jwks":
                    status, headers, body = self.jwks()
                elif path == "test-only/ciba/approve" and method == "POST":
                    status, headers, body = self.approve_ciba(environ)
                elif path in self.endpoints:
                    status, headers, body = self.serve(self.endpoints[path], environ)
                else:
                    status, headers, body = 404, [("Content-Type", "text/plain")], b"not found"
            except Exception as error:  # an answer, never a dropped connection; no secret is in the text
                # The type and the frames, not the message, which may hold a value from the request.
                log.error("unhandled %s at /%s:\n%s", type(error).__name__, path,
                          "".join(traceback.format_tb(error.__traceback__)))
                status, headers, body = json_answer(
                    500, {"error": "server_error", "error_description": type(error).__name__}
                )
        start_response(f"{status} {STATUS_TEXT.get(status, 'Status')}", headers)
        return [body]

    def jwks(self):
        return json_answer(200, self.context.keyjar.export_jwks())

    def serve(self, endpoint, environ):
        """Parse, process and answer one request the way idpyoidc's endpoints expect to be driven."""
        method = environ.get("REQUEST_METHOD", "GET")
        http_info = {
            "headers": {
                key[5:].replace("_", "-").lower(): value
                for key, value in environ.items()
                if key.startswith("HTTP_") and key != "HTTP_COOKIE"
            },
            "method": method,
            "url": self.issuer + environ.get("PATH_INFO", ""),
        }
        if environ.get("CONTENT_TYPE"):
            http_info["headers"]["content-type"] = environ["CONTENT_TYPE"]
        if method == "GET":
            arguments = dict(parse_qsl(environ.get("QUERY_STRING", "")))
        else:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            arguments = dict(parse_qsl(environ["wsgi.input"].read(length).decode()))
        try:
            request = endpoint.parse_request(arguments, http_info=http_info)
        except ClientAuthenticationError as error:
            return json_answer(401, {"error": "invalid_client", "error_description": str(error)})
        except Exception as error:
            # idpyoidc raises for some bad requests (a spent or unknown request_uri is a ValueError); answered as
            # idpyoidc's example Flask provider does: 400 invalid_request with the exception's text.
            # Other exceptions (a KeyError for an unknown auth_req_id) would echo the value: their type only.
            text = str(error) if isinstance(error, ValueError) else type(error).__name__
            return json_answer(400, {"error": "invalid_request", "error_description": text})
        if isinstance(request, ResponseMessage) and "error" in request:
            return json_answer(400, request.to_dict())
        args = endpoint.process_request(request, http_info=http_info)
        if isinstance(args, ResponseMessage) and "error" in args:
            return json_answer(400, args.to_dict())
        if "http_response" in args:  # the pushed authorization endpoint's answer (RFC 9126: 201 Created)
            return json_answer(201, args["http_response"])
        if isinstance(endpoint, BackChannelAuthentication):
            # Its class declares a urlencoded answer placed in a redirect URL, so idpyoidc's do_response fails
            # (KeyError 'return_uri'); CIBA Core 1.0 section 7.3 asks for a JSON body, written here.
            return json_answer(200, args["response_args"])
        info = endpoint.do_response(request=request, **args)
        headers = [(str(k), str(v)) for k, v in info.get("http_headers", [])]
        placement = info.get("response_placement", endpoint.response_placement)
        if placement == "url":
            return 302, headers + [("Location", info["response"])], b""
        body = info["response"]
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        return info.get("response_code", 200), headers, body.encode() if isinstance(body, str) else body

    def approve_ciba(self, environ):
        """TEST ONLY. Approves pending CIBA requests for one user, as their authentication device would.

        Form fields: `login_hint`, naming the user as the CIBA request did, and optionally `binding_message`,
        approving only the requests that showed it. Approval is what idpyoidc's own CIBA test
        (`tests/x_test_ciba_01_backchannel_auth.py`, disabled upstream) does: a second session (grant) for the same
        user and client, with an authentication event. It is recorded for `CorrectedCIBATokenHelper`; idpyoidc's
        own helper looks for it among the user's grants. Answers the binding messages approved, never an id.
        Loopback only: the whole server listens on 127.0.0.1.
        """
        length = int(environ.get("CONTENT_LENGTH") or 0)
        form = dict(parse_qsl(environ["wsgi.input"].read(length).decode()))
        try:
            user_id = self.context.login_hint_lookup(form.get("login_hint", ""))
        except KeyError:
            user_id = None
        if not user_id:
            return json_answer(404, {"error": "unknown_user"})
        manager = self.context.session_manager
        approved = []
        for auth_req_id, session_id in list(manager.auth_req_id_map.items()):
            owner, client_id, _ = manager.decrypt_session_id(session_id)
            request = manager.get_grant(session_id).authorization_request
            message = request.get("binding_message")
            if owner != user_id or auth_req_id in self.context.ciba_approvals or auth_req_id in self.spent:
                continue
            if "binding_message" in form and message != form["binding_message"]:
                continue
            approval = manager.create_session(create_authn_event(user_id), request, user_id, client_id=client_id)
            self.context.ciba_approvals[auth_req_id] = approval
            self.spent.add(auth_req_id)
            approved.append(message)
        return json_answer(200, {"approved": len(approved), "binding_messages": approved})


STATUS_TEXT = {200: "OK", 201: "Created", 302: "Found", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
               500: "Internal Server Error"}


def json_answer(status, value):
    return status, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], json.dumps(value).encode()


def main():
    port = int(sys.argv[1])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # idpyoidc logs whole requests and token responses at debug: keep its loggers above that.
    logging.getLogger("idpyoidc").setLevel(logging.WARNING)
    import waitress

    waitress.serve(Provider(f"http://127.0.0.1:{port}"), host="127.0.0.1", port=port, threads=4)


if __name__ == "__main__":
    main()
