"""CSRF: a tenant host trusts its own origin only; another tenant's pages cannot post into it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.test import Client

from tests.fixtures.tenants import _client_for


def _signed_in_with_csrf(test_tenant) -> tuple[Client, str]:
    client = _client_for(test_tenant, test_tenant.member_email)
    client.handler.enforce_csrf_checks = True
    page = client.get("/pipeline/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    return client, token


def test_a_post_from_another_tenants_origin_is_refused(alpha, beta):
    client, token = _signed_in_with_csrf(alpha)
    forged = client.post("/kalender/neuer-link/", {"csrfmiddlewaretoken": token}, HTTP_ORIGIN=f"http://{beta.host}")
    assert forged.status_code == 403
    own = client.post("/kalender/neuer-link/", {"csrfmiddlewaretoken": token}, HTTP_ORIGIN=f"http://{alpha.host}")
    assert own.status_code == 200


def test_no_trusted_origin_wildcard_in_settings_or_example():
    assert not any("*" in origin for origin in settings.CSRF_TRUSTED_ORIGINS)
    example = (Path(settings.BASE_DIR) / ".env.example").read_text(encoding="utf-8")
    assert not re.search(r"^DJANGO_CSRF_TRUSTED_ORIGINS=.*\*", example, re.MULTILINE)


def test_production_settings_refuse_a_wildcard_origin():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "k3v9-" + "x7Qp2mZr8LwT4nYb6Hc1Jd5Fg0Sa9Ue3Vi7Ok2Pl6Rm" * 2,
        "DJANGO_ALLOWED_HOSTS": "radar.example,.radar.example",
        "DATABASE_URL": "postgres://radar:secret@db.internal:5432/tender_radar",
        "REDIS_URL": "redis://cache.internal:6379/0",
        "SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://*.radar.example",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "must not contain wildcards" in result.stderr
