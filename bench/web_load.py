"""Load over loopback for ``bench.web``: requests with the host and proxy headers, a real sign-in, bounded clients.

Each client sends its next request when the last one answered (a closed loop), so the load is bounded by the
clients, as people waiting on pages are.
"""

from __future__ import annotations

import http.client
import re
import threading
import time
from urllib.parse import urlencode

HOST = "web.localhost"
PASSWORD = "Bench-Passwort-2026"


def request(port: int, method: str, path: str, headers: dict, body: bytes | None = None):
    connection_ = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection_.request(
            method, path, body=body, headers={"Host": f"{HOST}:{port}", "X-Forwarded-Proto": "https", **headers}
        )
        response = connection_.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection_.close()


def _cookies(headers, jar: dict) -> dict:
    for name, value in headers:
        if name.lower() == "set-cookie":
            pair = value.split(";", 1)[0]
            key, _, val = pair.partition("=")
            jar[key.strip()] = val.strip()
    return jar


def _cookie_header(jar: dict) -> str:
    return "; ".join(f"{k}={v}" for k, v in jar.items())


def sign_in(port: int, email: str) -> str:
    """A session cookie from a real POST of the portal's login form."""
    status, headers, body = request(port, "GET", "/konto/anmelden/", {})
    jar = _cookies(headers, {})
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    if status != 200 or token is None:
        raise SystemExit(f"login form answered {status}")
    form = urlencode({"username": email, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1).decode()})
    status, headers, _ = request(
        port,
        "POST",
        "/konto/anmelden/",
        {
            "Cookie": _cookie_header(jar),
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": f"https://{HOST}:{port}",
            "Referer": f"https://{HOST}:{port}/konto/anmelden/",
        },
        form.encode(),
    )
    jar = _cookies(headers, jar)
    if status != 302 or "sessionid" not in jar:
        raise SystemExit(f"sign-in of {email} answered {status}")
    return _cookie_header(jar)


def drive(port: int, requests: list[tuple[str, dict]], *, clients: int, seconds: float) -> tuple[float, float, int]:
    """(requests/s, p95 ms, failures): each client sends its next request when the last one answered."""
    from bench.search import percentile  # the other benches' nearest-rank p95, so figures compare

    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(offset: int) -> None:
        index = offset
        mine, failed = [], 0
        while time.monotonic() < stop_at:
            path, headers = requests[index % len(requests)]
            index += clients
            started = time.perf_counter()
            try:
                status, _, _ = request(port, "GET", path, headers)
            except OSError:
                status = 0
            mine.append(time.perf_counter() - started)
            failed += status != 200
        with lock:
            latencies.extend(mine)
            failures[0] += failed

    began = time.monotonic()
    threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    p95 = percentile(latencies, 0.95) * 1000 if latencies else float("nan")
    return len(latencies) / elapsed, p95, failures[0]
