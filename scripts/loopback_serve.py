"""What the test servers in scripts/ share: serve on the loopback port the kernel chose, say which in a file (written
whole, then renamed, so a reader never sees half a number), and stop cleanly on SIGTERM."""
import os
import signal
import threading


def serve(server, port_file):
    """Serves `server` (an http.server on 127.0.0.1 port 0) until SIGTERM, after writing its port to `port_file`."""
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()
