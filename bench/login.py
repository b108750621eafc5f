"""Sign-in: the POST of the portal's and the console's login forms, at the product's password hashing.

Setup (not timed): the public tenant on ``localhost`` with an operator, and one tenant on
``login.localhost`` with its first admin. Hashing is the settings' (``accounts.hashers``: Django's
pbkdf2_sha256 at Django's 1,000,000 iterations); this benchmark never lowers it.

Timed: ``--n`` (default 10) POSTs of each form through the whole middleware stack (Django's test
client: no network), each from a fresh client (a first sign-in: new session, CSRF cookie from the
form page), alternating with the same POST under Django's own ``PBKDF2PasswordHasher`` (hashlib),
the hasher before ``accounts.hashers``. Reported per form and hasher: median wall time, median CPU
time of this process (what the sign-in costs without other processes competing for the cores),
and how many password hashes one sign-in computed (one is the floor: the check itself).
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager

from django.contrib.auth import hashers
from django.test import Client, override_settings

PASSWORD = "Bench-Passwort-2026"
HASHLIB = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]


@contextmanager
def _counted_hashes():
    """Counts PBKDF2 computations (checks and new hashes alike): every one goes through ``encode``."""
    calls = []
    originals = {}
    for hasher_class in {type(hasher) for hasher in hashers.get_hashers()} | {hashers.PBKDF2PasswordHasher}:
        if "encode" in vars(hasher_class):
            originals[hasher_class] = vars(hasher_class)["encode"]

    def counting(original):
        def encode(self, *args, **kwargs):
            calls.append(type(self).__name__)
            return original(self, *args, **kwargs)

        return encode

    for hasher_class, original in originals.items():
        hasher_class.encode = counting(original)
    try:
        yield calls
    finally:
        for hasher_class, original in originals.items():
            hasher_class.encode = original


def _sign_in(*, host: str, path: str, username: str) -> tuple[float, float, int]:
    client = Client(HTTP_HOST=host)
    client.get(path)  # the form page first, as a browser does (CSRF cookie)
    with _counted_hashes() as calls:
        wall, cpu = time.perf_counter(), time.process_time()
        response = client.post(path, {"username": username, "password": PASSWORD})
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if response.status_code != 302:
        raise AssertionError(f"sign-in at {host}{path} answered {response.status_code}")
    return wall, cpu, len(calls)


def _summary(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    return (
        statistics.median(wall for wall, _, _ in runs),
        statistics.median(cpu for _, cpu, _ in runs),
        max(count for _, _, count in runs),
    )


def run(*, n: int | None) -> None:
    from accounts.services import operator_ensure, public_tenant_ensure, tenant_create

    count = n or 10
    public_tenant_ensure(domain="localhost")
    operator_ensure(email="operator@localhost", password=PASSWORD)
    tenant_create(
        name="Login Bench",
        schema_name="login_bench",
        domain="login.localhost",
        admin_email="admin@login.localhost",
        admin_password=PASSWORD,
    )
    result = []
    for label, host, path, username in (
        ("portal", "login.localhost", "/konto/anmelden/", "admin@login.localhost"),
        ("console", "localhost", "/admin/login/", "operator@localhost"),
    ):
        current, before = [], []
        for _ in range(count):
            current.append(_sign_in(host=host, path=path, username=username))
            with override_settings(PASSWORD_HASHERS=HASHLIB):
                before.append(_sign_in(host=host, path=path, username=username))
        for name, runs in (("current", current), ("hashlib", before)):
            wall, cpu, hashes = _summary(runs)
            print(f"{label} {name}: median {wall:.3f} s wall, {cpu:.3f} s CPU over {count} sign-ins, {hashes} hash(es)")
            result.append(
                f"{label}_{name}_median_s={wall:.3f} {label}_{name}_cpu_s={cpu:.3f} {label}_{name}_hashes={hashes}"
            )
    print("RESULT login " + " ".join(result))
