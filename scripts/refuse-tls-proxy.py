#!/usr/bin/env python3
"""A loopback TCP proxy to PostgreSQL that refuses TLS, as a server without TLS does: it answers the client's
SSLRequest (and GSSENCRequest) with 'N' and then pipes the plain connection through.

Usage: scripts/refuse-tls-proxy.py UPSTREAM_PORT
Prints the port it listens on (127.0.0.1, chosen by the kernel) on one line, then serves until killed.
For the test of PostgresSessionStore.encryptionWarning(); nothing but the standard library.
"""
import socket
import struct
import sys
import threading

NEGOTIATION_CODES = {80877103, 80877104}  # SSLRequest, GSSENCRequest


def pipe(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, upstream_port):
    try:
        while True:
            head = client.recv(8, socket.MSG_PEEK | socket.MSG_WAITALL)
            if len(head) < 8:
                client.close()
                return
            length, code = struct.unpack("!ii", head)
            if length == 8 and code in NEGOTIATION_CODES:
                client.recv(8)
                client.sendall(b"N")
                continue
            break
        upstream = socket.create_connection(("127.0.0.1", upstream_port))
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


def main():
    upstream_port = int(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, upstream_port), daemon=True).start()


if __name__ == "__main__":
    main()
