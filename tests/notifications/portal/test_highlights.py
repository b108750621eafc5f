"""Result list and tender page show why a tender matched, with autoescaping intact."""

from __future__ import annotations

import pytest
from django_tenants.utils import schema_context

from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


@pytest.fixture
def cleaning(db) -> int:
    with schema_context("public"):
        notices_ingest(
            records=[
                NoticeRecordFactory(
                    source_notice_id="hl-1",
                    title="<script>alert(1)</script> Gebäudereinigung Rathaus",
                    description="Leistungen: tägliche Unterhaltsreinigung der Büros <img src=x onerror=alert(2)>.",
                    cpv_codes=("90911200", "79713000"),
                )
            ],
            use_fingerprint=False,
        )
        return Tender.objects.get(sources__source_notice_id="hl-1").pk


def test_result_list_marks_title_snippet_and_escapes_everything(alpha_client, cleaning):
    html = alpha_client.get("/suche/", {"q": "Reinigung"}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>Gebäudereinigung</mark> Rathaus" in html
    assert "<mark>Unterhaltsreinigung</mark>" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert f"/ausschreibung/{cleaning}/?q=Reinigung" in html


def test_result_list_shows_exact_cpv_labels_and_marks_a_label_hit(alpha_client, cleaning):
    html = alpha_client.get("/suche/", {"q": "Bewachung"}).content.decode()
    assert "CPV 79713000 <mark>Bewachungsdienste</mark>" in html
    assert "CPV 90911200 Gebäudereinigung" in html  # the exact label, not a hit for "Bewachung"


def test_tender_page_marks_the_query_it_was_opened_with(alpha_client, cleaning):
    html = alpha_client.get(f"/ausschreibung/{cleaning}/", {"q": "Reinigung"}).content.decode()
    assert "<mark>Gebäudereinigung</mark>" in html
    assert "<mark>Unterhaltsreinigung</mark>" in html
    assert "<script>alert(1)" not in html
    plain = alpha_client.get(f"/ausschreibung/{cleaning}/").content.decode()
    assert "<mark>" not in plain
    assert "79713000 Bewachungsdienste" in plain


def test_a_hit_only_in_a_parent_label_is_shown_and_named_as_the_parent(alpha_client, cleaning):
    # "Detekteien" is in the group above 79713000 (the search carries it), not in its own label.
    html = alpha_client.get("/suche/", {"q": "Detekteien"}).content.decode()
    assert "CPV 79713000 Bewachungsdienste" in html
    assert "CPV 79700000 Dienstleistungen von <mark>Detekteien</mark> und Sicherheitsdiensten" in html
    assert "(übergeordnet zu 79713000)" in html
    assert "(2 CPV)" not in html  # the count is the tender's codes, not the labels shown

    page = alpha_client.get(f"/ausschreibung/{cleaning}/", {"q": "Detekteien"}).content.decode()
    assert "79700000 Dienstleistungen von <mark>Detekteien</mark> und Sicherheitsdiensten" in page
    english = alpha_client.get(
        f"/ausschreibung/{cleaning}/", {"q": "Detekteien"}, HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "(parent of 79713000)" in english
