#!/usr/bin/env python3
"""A scripted OAuth 2.0 / OpenID Connect provider on loopback, for tests of what a client does with what a
provider says (hostile text, missing endpoints) that the emulator, which behaves, never says.

It serves a discovery document, a token endpoint, a device-authorization endpoint and a revocation endpoint.
Their answers come from a JSON file that the test writes and may rewrite between runs (it is read again for
every request):

    {
      "omit": ["revocation_endpoint", "device_authorization_endpoint"],  # left out of the discovery document
      "token": {"status": 400, "body": {"error": "...", "error_description": "..."}},
      "device": {"status": 200, "body": {"device_code": "...", "user_code": "...", ...}}
    }

Without "token", a token request gets a Bearer access token (a new one each time) with a refresh token and no ID
token; without "device", a device-authorization request gets 400 invalid_request; a revocation answers 200.

Usage: provider-stand-in.py --answers FILE --port-file FILE
Binds 127.0.0.1 on a free port, writes the port to FILE; the issuer is http://127.0.0.1:PORT/. Stops on SIGTERM.
Standard library only.
"""

import argparse
import http.server
import itertools
import json
import sys

import loopback_serve


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", required=True, help="the JSON file of scripted answers")
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    serial = itertools.count(1)

    def answers():
        try:
            with open(args.answers, encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *_):
            pass

        def issuer(self):
            return "http://127.0.0.1:%d/" % self.server.server_address[1]

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def scripted(self, name, default):
            scripted = answers().get(name)
            if scripted is None:
                self.answer(*default)
            else:
                self.answer(scripted.get("status", 200), scripted.get("body", {}))

        def do_GET(self):
            if self.path != "/.well-known/openid-configuration":
                self.answer(404, {"error": "not_found"})
                return
            issuer = self.issuer()
            document = {
                "issuer": issuer,
                "authorization_endpoint": issuer + "authorize",
                "token_endpoint": issuer + "oauth/token",
                "device_authorization_endpoint": issuer + "oauth/device/code",
                "revocation_endpoint": issuer + "oauth/revoke",
                "userinfo_endpoint": issuer + "userinfo",
                "jwks_uri": issuer + ".well-known/jwks.json",
                "response_types_supported": ["code"],
                "grant_types_supported": [
                    "authorization_code", "refresh_token", "password",
                    "urn:ietf:params:oauth:grant-type:device_code",
                ],
                "token_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": ["openid", "profile", "email", "offline_access"],
            }
            for name in answers().get("omit", []):
                document.pop(name, None)
            self.answer(200, document)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            if self.path == "/oauth/token":
                tokens = {
                    "access_token": "stand-in-access-%d" % next(serial),
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "refresh_token": "stand-in-refresh",
                    "scope": "openid offline_access",
                }
                self.scripted("token", (200, tokens))
            elif self.path == "/oauth/device/code":
                self.scripted("device", (400, {"error": "invalid_request"}))
            elif self.path == "/oauth/revoke":
                self.answer(200, {})
            else:
                self.answer(404, {"error": "not_found"})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    loopback_serve.serve(server, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
