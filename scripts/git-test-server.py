#!/usr/bin/env python3
"""A git server on loopback for sessionctl's git credential helper tests.

git's own `git http-backend` (smart HTTP, clone, fetch and push) behind a small HTTP server that lets a request
through only with an access token the emulator accepts: `Authorization: Basic <user:token>` (what git sends from
a helper's username and password) or `Authorization: Bearer <token>` (git 2.46's authtype). A token is checked by
asking the emulator's `/userinfo` with it, once per token. Anything else is answered 401 with a Basic challenge,
which is what makes git ask its credential helpers.

Usage: git-test-server.py --root DIR --userinfo URL --port-file FILE [--log FILE]
Binds 127.0.0.1 on a free port and writes the port to FILE; stops on SIGTERM. Standard library only. With --log,
appends one line per request to FILE: `authorization` when it carried an Authorization header, else `none` (never
the header itself), for tests that check a forge got no credential.
"""

import argparse
import base64
import http.server
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import loopback_serve

BACKEND = "/usr/lib/git-core/git-http-backend"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True, help="the folder of the bare repositories")
    parser.add_argument("--userinfo", required=True, help="the emulator's userinfo URL")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", help="a file to note, per request, whether it carried an Authorization header")
    args = parser.parse_args()
    accepted = set()
    lock = threading.Lock()

    def token_is_valid(token):
        with lock:
            if token in accepted:
                return True
        request = urllib.request.Request(args.userinfo, headers={"Authorization": "Bearer " + token})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                valid = answer.status == 200
        except urllib.error.HTTPError:
            valid = False
        if valid:
            with lock:
                accepted.add(token)
        return valid

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *_):
            pass

        def token(self):
            header = self.headers.get("Authorization", "")
            scheme, _, value = header.partition(" ")
            if scheme.lower() == "bearer":
                return value.strip()
            if scheme.lower() == "basic":
                try:
                    _, _, password = base64.b64decode(value.strip()).decode().partition(":")
                    return password
                except ValueError:
                    return None
            return None

        def refuse(self):
            body = b"sign in\n"
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="sessionkit-git"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def note(self):
            if not args.log:
                return
            with lock, open(args.log, "a") as log:
                log.write("authorization\n" if "Authorization" in self.headers else "none\n")

        def handle_any(self):
            self.note()
            token = self.token()
            if not token or not token_is_valid(token):
                self.refuse()
                return
            path, _, query = self.path.partition("?")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "GIT_PROJECT_ROOT": args.root,
                "GIT_HTTP_EXPORT_ALL": "1",
                "REMOTE_USER": "sessionkit",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            }
            result = subprocess.run([BACKEND], input=body, env=env, capture_output=True, check=False)
            head, _, payload = result.stdout.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.split(b"\r\n"):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split(" ")[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = handle_any
        do_POST = handle_any

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    loopback_serve.serve(server, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
