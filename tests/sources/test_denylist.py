"""vergabe24 and aumass are refused in code: adapters, Source rows (admin included) and runs."""

import pytest
from django.core.exceptions import ValidationError

from sources.adapters.base import Adapter
from sources.denylist import SourceDenied, denied_portal_for
from sources.models import Source
from sources.registry import register


def _adapter(type_name: str, hosts: tuple[str, ...] = ()) -> type[Adapter]:
    return type(
        f"Adapter_{type_name}",
        (Adapter,),
        {"type": type_name, "label": type_name, "known_hosts": hosts, "fetch": None, "parse_files": None},
    )


@pytest.mark.parametrize(
    ("type_name", "hosts"),
    [("vergabe24", ()), ("aumass", ()), ("generic-html", ("www.vergabe24.de",)), ("portal-x", ("aumass.de",))],
)
def test_registering_an_adapter_for_a_denied_portal_fails(type_name, hosts):
    with pytest.raises(SourceDenied, match="denylist"):
        register(_adapter(type_name, hosts))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("key", "settings"),
    [
        ("vergabe24", {}),
        ("aumass-bayern", {}),
        ("harmless", {"base_url": "https://www.vergabe24.de/suche"}),
        ("harmless2", {"allowed_hosts": ["portal.aumass.de"]}),
    ],
)
def test_saving_a_source_for_a_denied_portal_fails(key, settings):
    with pytest.raises(SourceDenied):
        Source.objects.create(key=key, name=key, adapter="netserver", settings=settings)
    assert not Source.objects.filter(key=key).exists()


@pytest.mark.django_db
def test_model_validation_reports_the_denylist_reason():
    source = Source(key="vergabe24", name="vergabe24", adapter="doe", settings={})
    with pytest.raises(ValidationError, match="untersagen automatisierten Zugriff"):
        source.full_clean()


def test_lookalike_hosts_are_not_denied():
    assert denied_portal_for(urls=["https://notvergabe24.de/x"]) is None
    assert denied_portal_for(urls=["https://www.tender24.de/NetServer/"]) is None
    assert denied_portal_for(urls=["https://sub.vergabe24.de/"]).key == "vergabe24"


@pytest.mark.django_db
def test_admin_refuses_a_denied_source_and_shows_the_denylist(public_client):
    from tests.fixtures.tenants import operator_sign_in

    operator_sign_in(public_client)
    response = public_client.post(
        "/admin/sources/source/add/",
        {
            "key": "vergabe24",
            "name": "vergabe24",
            "adapter": "doe",
            "settings": "{}",
            "is_active": "on",
            "schedule_minutes": "60",
            "politeness_seconds": "2",
            "cursor": "{}",
        },
    )
    assert response.status_code == 200
    assert "untersagen automatisierten Zugriff" in response.content.decode()
    assert not Source.objects.filter(key="vergabe24").exists()
    page = public_client.get("/admin/sources/source/denylist/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "vergabe24" in body and "aumass" in body


def test_a_denied_portal_is_found_by_the_host_a_browser_would_open():
    # Behind a backslash the URL standard (and a fetch) reaches www.vergabe24.de, whatever urllib reads.
    assert denied_portal_for(urls=["https://www.vergabe24.de\\@harmless.example/x"]) is not None
    assert denied_portal_for(urls=["www.vergabe24.de"]) is not None
