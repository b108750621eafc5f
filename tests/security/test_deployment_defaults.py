"""F6 replay: the shipped deployment files agree on who is the client, so sign-in throttling holds.

docker-compose.yml publishes gunicorn directly. Trusting one proxy there (the old
``DJANGO_TRUSTED_PROXY_COUNT=1``) made every guess's fresh ``X-Forwarded-For`` a new "address":
25 failed sign-ins, none locked. With the count the files ship, the one real address is locked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
PROXY_IMAGES = ("nginx", "caddy", "traefik", "haproxy", "envoy")


def _env_example() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def _proxy_services(compose: dict) -> list[str]:
    """Services that stand in front of gunicorn: a proxy image, or anything but web publishing a port."""
    found = []
    for name, service in compose["services"].items():
        image = str(service.get("image", "")).lower()
        if any(proxy in image for proxy in PROXY_IMAGES) or (name != "web" and service.get("ports")):
            found.append(name)
    return found


def shipped_proxy_count() -> int:
    return int(_env_example()["DJANGO_TRUSTED_PROXY_COUNT"])


def test_env_example_and_compose_file_agree_on_the_proxies_in_front():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    proxies = _proxy_services(compose)
    if not proxies:
        assert compose["services"]["web"].get("ports"), "gunicorn is published directly"
        assert shipped_proxy_count() == 0, "no proxy in docker-compose.yml: trust no X-Forwarded-For"
    else:
        assert shipped_proxy_count() == len(proxies)


def test_the_detector_sees_a_proxy_in_front():
    with_proxy = {"services": {"web": {}, "edge": {"image": "nginx:1.27", "ports": ["443:443"]}}}
    assert _proxy_services(with_proxy) == ["edge"]
    assert _proxy_services({"services": {"web": {"ports": ["8000:8000"]}, "redis": {"image": "redis:7"}}}) == []


def _guess_with_fresh_forwarded_for(host: str, times: int = 25) -> None:
    attacker = Client(HTTP_HOST=host, REMOTE_ADDR="198.51.100.7")
    for number in range(times):
        attacker.post(
            "/konto/anmelden/",
            {"username": f"niemand{number}@alpha.example", "password": "falsch"},
            HTTP_X_FORWARDED_FOR=f"203.0.113.{number + 1}",
        )


def _sign_in_from_the_attackers_address(alpha):
    from tests.fixtures.tenants import TENANT_PASSWORD

    return Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7").post(
        "/konto/anmelden/", {"username": alpha.admin_email, "password": TENANT_PASSWORD}
    )


@pytest.mark.django_db
def test_with_the_shipped_count_fresh_forwarded_for_values_lock_the_one_real_address(alpha, settings):
    # Production's view of the client (the proxy SSL header is production's too); the count as shipped.
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXY_COUNT = shipped_proxy_count()
    _guess_with_fresh_forwarded_for(alpha.host)
    assert _sign_in_from_the_attackers_address(alpha).status_code == 429


@pytest.mark.django_db
def test_the_old_count_of_one_without_a_proxy_let_every_guess_pick_its_address(alpha, settings):
    # The attack as found: what the test above guards against, so it cannot pass by accident.
    settings.TRUSTED_PROXY_COUNT = 1
    _guess_with_fresh_forwarded_for(alpha.host)
    assert _sign_in_from_the_attackers_address(alpha).status_code == 302
