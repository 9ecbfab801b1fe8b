#!/usr/bin/env python3
"""A loopback TCP proxy to PostgreSQL for the SessionKitServer tests. Nothing but the standard library.

Usage: scripts/postgres-proxy.py UPSTREAM_PORT [LOSE_COMMIT_PATTERN]
Prints the port it listens on (127.0.0.1, chosen by the kernel) on one line, then serves until killed.

- It refuses TLS, as a server without TLS does: it answers the client's SSLRequest (and GSSENCRequest) with 'N',
  then pipes the plain connection through (for the test of PostgresSessionStore.encryptionWarning()).
- With LOSE_COMMIT_PATTERN, it loses one commit after its statement was answered, as a server shut down at the
  wrong moment does. In the extended query protocol (PostgresNIO's, for every statement), a statement outside a
  transaction block is committed when the server reads the Sync message that follows it, after it has sent the
  statement's rows and CommandComplete; a server stopped in between (`pg_ctl restart -m fast` in the middle of a
  renewal storm) has answered the statement, and rolls it back. So the first statement bound whose SQL contains
  the pattern has its Sync held back (a Flush goes instead, so that the server sends its answer); once the server
  has answered it (CommandComplete or an error), that answer goes to the client and both connections are closed,
  and the server never commits it.
"""
import socket
import struct
import sys
import threading

NEGOTIATION_CODES = {80877103, 80877104}  # SSLRequest, GSSENCRequest
fired = threading.Lock()  # taken by the one statement whose commit is lost


def read_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_message(sock):
    """One typed message: (type, whole message bytes)."""
    head = read_exact(sock, 5)
    length = struct.unpack("!i", head[1:5])[0]
    return head[:1], head + read_exact(sock, length - 4)


def cstring(body, start):
    end = body.index(b"\0", start)
    return body[start:end].decode("utf-8", "replace"), end + 1


class Connection:
    def __init__(self, client, upstream, pattern):
        self.client = client
        self.upstream = upstream
        self.pattern = pattern
        self.statements = {}
        self.armed = False
        self.lock = threading.Lock()

    def close(self):
        for end in (self.client, self.upstream):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                end.close()
            except OSError:
                pass

    def from_client(self):
        try:
            # The startup message has no type byte.
            head = read_exact(self.client, 4)
            length = struct.unpack("!i", head)[0]
            self.upstream.sendall(head + read_exact(self.client, length - 4))
            while True:
                kind, message = read_message(self.client)
                body = message[5:]
                if kind == b"P":
                    name, rest = cstring(body, 0)
                    sql, _ = cstring(body, rest)
                    self.statements[name] = sql
                elif kind == b"B":
                    _, rest = cstring(body, 0)
                    statement, _ = cstring(body, rest)
                    sql = self.statements.get(statement, "")
                    if self.pattern is not None and self.pattern in sql and fired.acquire(blocking=False):
                        # Before the Bind goes on: the statement's answer comes after it.
                        with self.lock:
                            self.armed = True
                elif kind == b"S" and self.armed:
                    # A Flush instead: the server sends what it has (it holds its answers until a Sync or a
                    # Flush), and waits for the Sync, with the statement answered and not committed.
                    self.upstream.sendall(b"H\x00\x00\x00\x04")
                    continue
                self.upstream.sendall(message)
        except (OSError, EOFError, ValueError):
            pass
        finally:
            if not self.armed:
                self.close()

    def from_upstream(self):
        try:
            while True:
                kind, message = read_message(self.upstream)
                self.client.sendall(message)
                with self.lock:
                    armed = self.armed
                if armed and kind in (b"C", b"E"):
                    break
        except (OSError, EOFError):
            pass
        finally:
            self.close()


def serve(client, upstream_port, pattern):
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
    connection = Connection(client, upstream, pattern)
    threading.Thread(target=connection.from_client, daemon=True).start()
    threading.Thread(target=connection.from_upstream, daemon=True).start()


def main():
    upstream_port = int(sys.argv[1])
    pattern = sys.argv[2] if len(sys.argv) > 2 else None
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, upstream_port, pattern), daemon=True).start()


if __name__ == "__main__":
    main()
