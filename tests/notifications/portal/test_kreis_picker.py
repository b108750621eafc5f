"""The Kreis picker: suggestions by name, key or NUTS-3 code, as an htmx fragment for signed-in users."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.fixtures.tenants import PUBLIC_HOST


def _keys(html: str) -> list[str]:
    return re.findall(r'data-pick-value="(\d{5})"', html)


@pytest.mark.django_db
def test_suggests_kreise_by_name_key_or_nuts_code(alpha_client):
    html = alpha_client.get("/kreise/", {"term": "München"}).content.decode()
    assert _keys(html) == ["09162", "09184"]
    assert 'data-pick-label="München, Landkreis"' in html and "09184 · DE21H" in html
    assert _keys(alpha_client.get("/kreise/", {"term": "DE212"}).content.decode()) == ["09162"]
    assert _keys(alpha_client.get("/kreise/", {"term": "0916"}).content.decode()) == ["09161", "09162", "09163"]


@pytest.mark.django_db
def test_input_is_bounded_and_output_escaped(alpha_client):
    html = alpha_client.get("/kreise/", {"term": "<script>alert(1)</script>"}).content.decode()
    assert "Kein Landkreis und keine kreisfreie Stadt gefunden." in html and "<script>" not in html
    long_term = alpha_client.get("/kreise/", {"term": "München " * 5000})
    assert long_term.status_code == 200  # cut to 100 characters, still a search
    assert "09162" in _keys(long_term.content.decode())
    assert alpha_client.get("/kreise/").content.decode().strip() == ""
    assert len(_keys(alpha_client.get("/kreise/", {"term": "0"}).content.decode())) == 10
    assert alpha_client.post("/kreise/", {"term": "München"}).status_code == 405


@pytest.mark.django_db
def test_requires_sign_in_on_the_tenant_host(alpha, beta, alpha_client, beta_client):
    assert Client(HTTP_HOST=alpha.host).get("/kreise/", {"term": "München"}).status_code == 302
    # A session is one tenant's: alpha's cookie means nothing on beta's host.
    stranger = Client(HTTP_HOST=beta.host)
    stranger.cookies = alpha_client.cookies
    assert stranger.get("/kreise/", {"term": "München"}).status_code == 302
    assert _keys(beta_client.get("/kreise/", {"term": "München"}).content.decode()) == ["09162", "09184"]
    assert Client(HTTP_HOST=PUBLIC_HOST).get("/kreise/", {"term": "München"}).status_code == 404
