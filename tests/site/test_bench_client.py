"""bench/load.py's request counters (the benchmark is not run by the suite, but the
figures it prints must come from the requests it made): against a tiny local HTTP
server, the ping ceiling counts the answers it got."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


class _Ping(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    served = 0
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = b'{"ok": true}' if self.path == "/api/ping/" else b"{}"
        self.send_response(200 if self.path == "/api/ping/" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.path == "/api/ping/":
            with _Ping.lock:
                _Ping.served += 1

    def log_message(self, *args: object) -> None:
        pass


def test_the_ping_ceiling_counts_the_answers_the_server_gave():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ping)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        _Ping.served = 0
        seconds = 0.3
        rate = load.ping_ceiling(server.server_address[1], 2, seconds)
    finally:
        server.shutdown()
        server.server_close()
    assert _Ping.served > 0
    # The rate is the answers counted over the clients' run (a little over ``seconds``).
    assert 0.5 * _Ping.served / seconds < rate <= _Ping.served / seconds
