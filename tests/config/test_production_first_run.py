"""The production first run as the README's steps take it, in processes of their own: from an empty database
to a signed-in operator and a signed-in company admin, with styles, and mail through a real SMTP server.

Configuration is `.env.example` sourced by bash (as the non-Docker steps do) with this machine's values on
top; the migrate step is docker-compose.yml's own `migrate` command; then `collectstatic`, gunicorn with
production settings, and `tenant_create`. Requests carry `X-Forwarded-Proto: https`, as the TLS proxy in
front of gunicorn sets it. Cookies are HTTPS-only in production, so they are kept by hand here.
"""

from __future__ import annotations

import html
import os
import re
import secrets
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path

import httpx
import psycopg
import pytest
import yaml

from tests.fixtures.network import free_loopback_port
from tests.fixtures.processes import RedisServer, test_database_url

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_HOST = "radar.localhost"
COMPANY_HOST = "firma.radar.localhost"
PASSWORD = "Kr3ftig-genug-2026"


def _env_example() -> dict[str, str]:
    """What a shell has after `set -a; . ./.env.example`: only the file's own variables."""
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail; set -a; . ./.env.example; set +a; env -0"],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        check=True,
    )
    names = {
        line.split("=", 1)[0]
        for line in (ROOT / ".env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    }
    pairs = (item.split("=", 1) for item in result.stdout.decode().split("\0") if "=" in item)
    return {name: value for name, value in pairs if name in names}


@pytest.fixture
def database():
    server = test_database_url().rsplit("/", 1)[0]
    name = f"tr_firstrun_{secrets.token_hex(4)}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{server}/{name}"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def redis(tmp_path):
    server = RedisServer(directory=tmp_path)
    server.start()
    yield server
    server.stop()


class Browser:
    """Requests to gunicorn as the TLS proxy forwards them, with the cookies of one host."""

    def __init__(self, port: int, host: str):
        self.base, self.host, self.cookies = f"http://127.0.0.1:{port}", host, SimpleCookie()

    def request(self, method: str, path: str, data: dict | None = None) -> httpx.Response:
        headers = {"Host": self.host, "X-Forwarded-Proto": "https"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{key}={morsel.value}" for key, morsel in self.cookies.items())
        if method == "POST":
            headers["Origin"] = f"https://{self.host}"
        response = httpx.request(method, self.base + path, headers=headers, data=data, timeout=60)
        for header in response.headers.get_list("set-cookie"):
            self.cookies.load(header)
        return response

    def form(self, path: str, fields: dict) -> httpx.Response:
        """GET the form (following redirects on this host), then POST it with its CSRF token."""
        page = self.request("GET", path)
        while page.status_code == 302:
            path = page.headers["location"].removeprefix(f"https://{self.host}")
            page = self.request("GET", path)
        assert page.status_code == 200, page.text[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        return self.request("POST", path, {"csrfmiddlewaretoken": token, **fields})

    def styles_load(self, page: httpx.Response) -> None:
        stylesheets = re.findall(r'<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"', page.text) + re.findall(
            r'<link[^>]+href="([^"]+\.css)"', page.text
        )
        assert stylesheets, "the page links no stylesheet"
        for href in set(stylesheets):
            response = self.request("GET", html.unescape(href))
            assert response.status_code == 200 and response.headers["content-type"].startswith("text/css"), href


def _manage(env: dict, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def _link(smtp_server, recipient: str, pattern: str) -> str:
    message = next(m for m in reversed(smtp_server.messages) if m["To"] == recipient)
    return re.search(pattern, message.get_content()).group(0)


@pytest.fixture
def gunicorn_port(request):
    processes = []

    def start(env: dict) -> int:
        port = free_loopback_port()
        command = [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application"]
        process = subprocess.Popen(
            [*command, "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "120"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        processes.append(process)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()
            try:
                if (
                    httpx.get(
                        f"http://127.0.0.1:{port}/healthz", headers={"Host": PUBLIC_HOST, "X-Forwarded-Proto": "https"}
                    ).status_code
                    == 200
                ):
                    return port
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise AssertionError("gunicorn did not answer")

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=30)


def test_from_an_empty_database_to_a_signed_in_operator_and_company_admin(
    database, redis, smtp_server, gunicorn_port, tmp_path
):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))},
        **_env_example(),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": f"{PUBLIC_HOST},.{PUBLIC_HOST}",
        "DATABASE_URL": database,
        "REDIS_URL": redis.url,
        "SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=",
        "TENDER_RADAR_PUBLIC_HOST": PUBLIC_HOST,
        "TENDER_RADAR_OPERATOR_EMAIL": "ops@radar.example",
        "EMAIL_URL": f"smtp://{smtp_server.host}:{smtp_server.port}?starttls=off",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "TENANT_MULTIPROCESSING_MAX_PROCESSES": "2",
    }
    assert env["DEFAULT_FROM_EMAIL"] == "Tender Radar <radar@radar.example>"  # sourced from .env.example

    checked = _manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # docker-compose.yml's migrate step, as it runs there: migrate every schema, then platform_init.
    migrate = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["migrate"]["command"]
    first_run = subprocess.run(migrate, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert first_run.returncode == 0, first_run.stdout[-3000:] + first_run.stderr[-3000:]
    operator_link = _link(smtp_server, "ops@radar.example", rf"https://{PUBLIC_HOST}/admin/passwort/\S+/")
    assert operator_link not in first_run.stdout + first_run.stderr and "not shown here" in first_run.stdout
    collected = _manage(env, "collectstatic", "--noinput")
    assert collected.returncode == 0, collected.stderr
    port = gunicorn_port(env)

    operator = Browser(port, PUBLIC_HOST)
    chosen = operator.form(
        operator_link.removeprefix(f"https://{PUBLIC_HOST}"), {"new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert chosen.status_code == 302 and chosen.headers["location"] == "/admin/login/"
    signed_in = operator.form("/admin/login/?next=/admin/", {"username": "ops@radar.example", "password": PASSWORD})
    assert signed_in.status_code == 302, signed_in.text[:500]
    console = operator.request("GET", "/admin/")
    assert console.status_code == 200 and "ops@radar.example" in console.text
    operator.styles_load(console)

    created = _manage(
        env,
        "tenant_create",
        "--name",
        "Firma GmbH",
        "--schema",
        "firma",
        "--domain",
        COMPANY_HOST,
        "--admin-email",
        "chefin@firma.example",
    )
    assert created.returncode == 0, created.stdout + created.stderr
    admin_link = _link(smtp_server, "chefin@firma.example", rf"https://{COMPANY_HOST}/konto/einladung/\S+/")
    assert admin_link not in created.stdout + created.stderr and f"https://{COMPANY_HOST}/" in created.stdout

    admin = Browser(port, COMPANY_HOST)
    chosen = admin.form(
        admin_link.removeprefix(f"https://{COMPANY_HOST}"), {"new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert chosen.status_code == 302, chosen.text[:500]
    signed_in = admin.form("/konto/anmelden/", {"username": "chefin@firma.example", "password": PASSWORD})
    assert signed_in.status_code == 302, signed_in.text[:500]
    portal = admin.request("GET", "/")
    assert portal.status_code == 200 and "chefin@firma.example" in portal.text
    admin.styles_load(portal)

    # A first login whose mail cannot go out: each command fails, prints no link, leaves nothing half-made.
    unreachable = {**env, "EMAIL_URL": f"smtp://127.0.0.1:{free_loopback_port()}?starttls=off&timeout=5"}
    failed = _manage(unreachable, "platform_init", "--operator-email", "second@radar.example")
    assert failed.returncode != 0 and "Could not mail the one-time password link" in failed.stderr
    assert "/admin/passwort/" not in failed.stdout + failed.stderr
    failed = _manage(
        unreachable,
        "tenant_create",
        "--name",
        "Zweite GmbH",
        "--schema",
        "zweite",
        "--domain",
        f"zweite.{PUBLIC_HOST}",
        "--admin-email",
        "chef@zweite.example",
    )
    assert failed.returncode != 0 and "removed again" in failed.stderr
    assert "/konto/einladung/" not in failed.stdout + failed.stderr
    assert admin.request("GET", "/").status_code == 200  # the first company is untouched
    with psycopg.connect(database) as check:
        assert check.execute("SELECT count(*) FROM accounts_tenant WHERE schema_name = 'zweite'").fetchone() == (0,)
