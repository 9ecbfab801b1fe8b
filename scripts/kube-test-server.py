#!/usr/bin/env python3
"""A stand-in Kubernetes API server on loopback for sessionctl's kubectl tests.

Serves https with a self-signed certificate for 127.0.0.1 that it makes with openssl: kubectl sends a kubeconfig
user's credentials (an exec plugin's token too) only over TLS. Answers just what `kubectl get pods` needs: the discovery documents `/api`, `/apis` and `/api/v1` (the legacy,
unaggregated form, which kubectl falls back to), `/version`, and `GET /api/v1/namespaces/default/pods` with an
empty PodList. Every request must carry an `Authorization` header (else 401, which is what makes kubectl run its
credential plugin again); its value is appended, one line per request, to the --log file. The log holds bearer
tokens: point it at a test's temporary folder only.

Usage: kube-test-server.py --port-file FILE --log FILE --cert-file FILE
Writes the certificate (PEM; the kubeconfig's certificate-authority) to --cert-file and its key beside it, binds
127.0.0.1 on a free port and writes the port to --port-file; stops on SIGTERM. The standard library and the openssl
command.
"""

import argparse
import http.server
import json
import ssl
import subprocess
import sys
import threading

import loopback_serve

API_VERSIONS = {
    "kind": "APIVersions",
    "versions": ["v1"],
    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
}
API_GROUPS = {"kind": "APIGroupList", "apiVersion": "v1", "groups": []}
CORE_RESOURCES = {
    "kind": "APIResourceList",
    "groupVersion": "v1",
    "resources": [
        {
            "name": "pods",
            "singularName": "pod",
            "namespaced": True,
            "kind": "Pod",
            "verbs": ["get", "list", "watch"],
            "shortNames": ["po"],
        }
    ],
}
VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-sessionkit-test",
    "platform": "linux/amd64",
}
PODS = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}
ROUTES = {
    "/api": API_VERSIONS,
    "/apis": API_GROUPS,
    "/api/v1": CORE_RESOURCES,
    "/version": VERSION,
    "/api/v1/namespaces/default/pods": PODS,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True, help="a file to append each request's Authorization header to")
    parser.add_argument("--cert-file", required=True, help="where to write the server's certificate (PEM)")
    args = parser.parse_args()
    key_file = args.cert_file + ".key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", key_file, "-out", args.cert_file],
        check=True, capture_output=True)
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *_):
            pass

        def answer(self, status, document):
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            authorization = self.headers.get("Authorization")
            with lock, open(args.log, "a") as log:
                log.write((authorization or "none") + "\n")
            if not authorization:
                self.answer(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 401,
                                  "reason": "Unauthorized", "message": "Unauthorized"})
                return
            path = self.path.partition("?")[0].rstrip("/")
            document = ROUTES.get(path)
            if document is None:
                self.answer(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
                                  "reason": "NotFound", "message": "not served by the test server: " + path})
                return
            self.answer(200, document)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    loopback_serve.serve(server, args.port_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
