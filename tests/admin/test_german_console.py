"""The operator console reads as one language: German model and field names, states, local times."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.utils import timezone, translation

from sources.demo import demo_sample_load
from sources.models import FetchRun, Source

ENGLISH_LABELS = (
    "Started at",
    "Finished at",
    "Source notice id",
    "Schema name",
    "Is primary",
    "Created at",
    "Tender source",
    "First seen at",
    "Error reason",
    ">succeeded<",
    ">failed<",
)


def test_every_model_and_field_in_the_console_has_a_german_name():
    for model in admin.site._registry:
        if model._meta.app_label not in ("accounts", "sources", "tenders"):
            continue
        meta = model._meta
        assert str(meta.verbose_name) != meta.model_name, meta.label
        mixin_fields = {"schema_name", "domain", "tenant", "is_primary"}  # labelled in the admin classes
        for field in meta.concrete_fields:
            if field.name in mixin_fields or field.name == "id":
                continue
            assert str(field.verbose_name) != field.name.replace("_", " "), f"{meta.label}.{field.name}"
    assert apps.get_app_config("sources").verbose_name == "Quellen"


@pytest.mark.django_db
def test_console_pages_show_no_english_labels_and_local_times(operator_client):
    demo_sample_load()
    source = Source.objects.get(key="doe")
    run = FetchRun.objects.create(
        source=source, started_at=datetime(2026, 9, 15, 7, 5, tzinfo=UTC), status="failed", error="HTTP 503"
    )
    pages = [
        "/admin/",
        "/admin/accounts/tenant/",
        "/admin/accounts/domain/",
        "/admin/sources/source/",
        "/admin/sources/fetchrun/",
        f"/admin/sources/fetchrun/{run.pk}/change/",
        "/admin/sources/inboundmail/",
        "/admin/tenders/tender/",
        "/admin/tenders/tendersource/",
        "/admin/tenders/tenderversion/",
    ]
    for url in pages:
        response = operator_client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode()
        for label in ENGLISH_LABELS:
            assert label not in text, f"{url}: {label}"
    detail = operator_client.get(f"/admin/sources/fetchrun/{run.pk}/change/").content.decode()
    # The run's title names the source, the local time (07:05 UTC is 09:05 in Berlin) and the state in German.
    title = re.search(r"<h2>(.*?)</h2>", detail.split('id="content"', 1)[1], re.S)
    assert (
        "Abruf DÖE – Bekanntmachungsservice (oeffentlichevergabe.de) am 15.09.2026 09:05 – fehlgeschlagen" in detail
    ), title.group(1) if title else detail[:500]
    other = Source.objects.exclude(key="doe").order_by("key").first()
    FetchRun.objects.create(source=other, started_at=timezone.now(), status="failed", error="HTTP 503")
    listing = operator_client.get("/admin/sources/source/").content.decode()
    # The state column speaks German: "doe"'s newest run is the demo sample's, the other source's failed just now.
    states = dict(re.findall(r'field-health"><span [^>]*data-status="(\w+)" title="[^"]*">([^<]*)<', listing))
    assert (states.get("succeeded"), states.get("failed")) == ("erfolgreich", "fehlgeschlagen"), states


@pytest.mark.django_db
def test_an_english_browser_gets_the_console_in_german_not_in_two_languages(operator_client):
    """The console's own texts are German only; Django's and the models' have English translations."""
    try:
        demo_sample_load()
        for url in ("/admin/", "/admin/sources/fetchrun/", "/admin/sources/source/", "/admin/tenders/tender/"):
            response = operator_client.get(url, HTTP_ACCEPT_LANGUAGE="en")
            assert response.status_code == 200, url
            assert response["Content-Language"] == "de", url
            text = response.content.decode()
            for label in ENGLISH_LABELS:
                assert label not in text, f"{url}: {label}"
        listing = operator_client.get("/admin/sources/fetchrun/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "Quelle" in listing and "Gestartet" in listing  # the console's own column and the model's, one language
        assert operator_client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "de"
    finally:
        translation.activate(settings.LANGUAGE_CODE)  # a failed check must not leave English to the next test
