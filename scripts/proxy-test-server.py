#!/usr/bin/env python3
"""An HTTP proxy on loopback in front of a provider behind a private certificate authority, for the tests of
`--ca-file`, SSL_CERT_FILE, HTTPS_PROXY and NO_PROXY.

It makes, with the openssl command, a private certificate authority (--folder/ca.pem) and a certificate for one made-up
host name (--host, e.g. idp.test) that the authority signs. As a proxy it answers:
- `CONNECT HOST:443`: 200, then it speaks TLS with that certificate and relays the plain bytes to the backend
  (127.0.0.1:--backend, e.g. the emulator started with `--public-issuer https://HOST/`): the client sees a provider
  at https://HOST/ whose certificate only the private authority vouches for.
- an absolute-form request `METHOD http://HOST/...`: forwarded to the backend as one request, answer relayed.
Any other host is refused with 502: the name resolves nowhere else, so a request that reaches HOST went through here.
With --user and --password it asks for Proxy-Authorization (Basic) and refuses others with 407. It appends one line
per request to --log ("CONNECT idp.test:443", "POST http://idp.test/oauth/token", "407 ..."), never a header value.

Usage: proxy-test-server.py --port-file FILE --log FILE --folder DIR --host NAME --backend PORT [--user U --password P]
Binds 127.0.0.1 on a free port, writes it to --port-file and stops on SIGTERM. The standard library and openssl.
"""

import argparse
import base64
import select
import socket
import socketserver
import ssl
import subprocess
import sys
import threading

import loopback_serve


def make_certificates(folder, host):
    """A private authority and a certificate for `host` that it signs; returns (certificate, key) paths."""

    def openssl(*arguments):
        subprocess.run(["openssl", *arguments], check=True, capture_output=True)

    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *curve, "-days", "1", "-subj", "/CN=SessionKit Test Private CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout", folder + "/ca.key", "-out", folder + "/ca.pem")
    openssl("req", "-new", *curve, "-subj", "/CN=" + host, "-keyout", folder + "/host.key",
            "-out", folder + "/host.csr")
    with open(folder + "/host.ext", "w") as f:
        f.write("subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\n" % host)
    openssl("x509", "-req", "-in", folder + "/host.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key",
            "-CAcreateserial", "-days", "1", "-extfile", folder + "/host.ext", "-out", folder + "/host.pem")
    return folder + "/host.pem", folder + "/host.key"


def relay(one, other):
    """Copies bytes both ways until either side closes; `one` may be a TLS socket with buffered bytes."""
    sockets = [one, other]
    while True:
        ready = [one] if isinstance(one, ssl.SSLSocket) and one.pending() else []
        if not ready:
            ready, _, _ = select.select(sockets, [], [], 120)
            if not ready:
                return
        for source in ready:
            target = other if source is one else one
            try:
                data = source.recv(65536)
            except (ConnectionError, ssl.SSLError, OSError):
                return
            if not data:
                return
            target.sendall(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--backend", type=int, required=True)
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()
    certificate, key = make_certificates(args.folder, args.host)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    expected = None
    if args.user is not None:
        expected = "Basic " + base64.b64encode(("%s:%s" % (args.user, args.password or "")).encode()).decode()
    lock = threading.Lock()

    def log(line):
        with lock, open(args.log, "a") as f:
            f.write(line + "\n")

    class Handler(socketserver.StreamRequestHandler):
        def answer(self, status, reason, extra=""):
            self.wfile.write(("HTTP/1.1 %d %s\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n"
                              % (status, reason, extra)).encode())

        def handle(self):
            head = self.rfile.readline(8192).decode("latin-1").rstrip("\r\n")
            fields = []
            while True:
                line = self.rfile.readline(8192).decode("latin-1")
                if line in ("\r\n", "\n", ""):
                    break
                fields.append(line.rstrip("\r\n"))
            parts = head.split(" ")
            if len(parts) != 3:
                return
            method, target, _ = parts
            named = {}
            for field in fields:
                name, _, value = field.partition(":")
                named[name.strip().lower()] = value.strip()
            if expected is not None and named.get("proxy-authorization") != expected:
                log("407 " + method + " " + target)
                self.answer(407, "Proxy Authentication Required", 'Proxy-Authenticate: Basic realm="test"\r\n')
                return
            if method == "CONNECT":
                self.tunnel(target)
            elif target.startswith("http://"):
                self.forward(method, target, fields, named)
            else:
                self.answer(400, "Bad Request")

        def tunnel(self, target):
            host, _, port = target.rpartition(":")
            log("CONNECT " + target)
            if host != args.host or port != "443":
                self.answer(502, "Bad Gateway")
                return
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            try:
                tls = context.wrap_socket(self.connection, server_side=True)
            except (ssl.SSLError, OSError):
                log("TLS refused by the client")
                return
            try:
                backend = socket.create_connection(("127.0.0.1", args.backend))
            except OSError:
                log("backend unreachable")
                return
            with backend:
                relay(tls, backend)

        def forward(self, method, target, fields, named):
            rest = target[len("http://"):]
            authority, slash, path = rest.partition("/")
            log(method + " " + target)
            if authority.split(":")[0] != args.host:
                self.answer(502, "Bad Gateway")
                return
            body = self.rfile.read(int(named.get("content-length", "0") or "0"))
            kept = [f for f in fields if f.split(":")[0].strip().lower()
                    not in ("proxy-authorization", "proxy-connection", "connection")]
            request = "%s /%s HTTP/1.1\r\n%s\r\nConnection: close\r\n\r\n" % (method, path, "\r\n".join(kept))
            try:
                backend = socket.create_connection(("127.0.0.1", args.backend))
            except OSError:
                log("backend unreachable")
                self.answer(502, "Bad Gateway")
                return
            with backend:
                backend.sendall(request.encode("latin-1") + body)
                while True:
                    data = backend.recv(65536)
                    if not data:
                        break
                    self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    loopback_serve.serve(server, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
