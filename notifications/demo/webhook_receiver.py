"""The demo's webhook receiver: a real HTTP server on 127.0.0.1 that files every POST it gets, as it arrived.

Like the mail catcher: the demo tenant's webhook points here, events go out through the
product's normal signed delivery, and the portal's "Webhook-Empfang (lokal)" page reads the
files back and checks each signature the way a partner would. Nothing leaves the machine.

Each request becomes one JSON file (``<time>-<random>.json``): when it arrived, the URL it was
sent to, every header and the raw body (base64, so the bytes checked are the bytes received).
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024  # far above any event the product sends; a larger request is refused


class _Receiver(BaseHTTPRequestHandler):
    server_version = "TenderRadarDemoReceiver/1.0"
    folder: Path  # set on the subclass made per server

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY_BYTES:
            self.send_error(413 if length > MAX_BODY_BYTES else 411)
            return
        body = self.rfile.read(length)
        record = {
            "received_at": time.time(),
            "url": f"http://{self.headers.get('Host', '')}{self.path}",
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": base64.b64encode(body).decode("ascii"),
        }
        name = f"{time.time_ns()}-{secrets.token_hex(4)}.json"
        temporary = self.folder / f".{name}"
        temporary.write_text(json.dumps(record), encoding="utf-8")
        temporary.rename(self.folder / name)  # readers never see half a file
        self.send_response(204)
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        self.send_error(405, explain="POST webhook events here; read them under Webhook-Empfang (lokal).")

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - http.server's signature
        logger.debug("webhook receiver: " + format, *args)


class WebhookReceiver:
    """``stop()`` ends the server thread."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread) -> None:
        self._server, self._thread = server, thread
        self.port = server.server_address[1]

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def webhook_receiver_start(*, folder: Path, port: int, host: str = "127.0.0.1") -> WebhookReceiver:
    """Start the receiver in a background thread (OSError when the port is taken)."""
    folder.mkdir(parents=True, exist_ok=True)
    handler = type("DemoReceiver", (_Receiver,), {"folder": folder})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="demo-webhook-receiver", daemon=True)
    thread.start()
    return WebhookReceiver(server, thread)
