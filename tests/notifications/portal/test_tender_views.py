"""The detail page (every field, sources with reasons, history) and triage on it, in the list and the pipeline."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone, translation
from django_tenants.utils import schema_context

from kernel.records import Lot, NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from notifications.models import Triage
from notifications.portal.services import triage_set
from tenders.models import TenderSource
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


@pytest.fixture
def merged(db) -> int:
    """One tender from two portals (same procedure id) whose deadline moved in a second version."""
    now = timezone.now()
    deadline = (now + timedelta(days=9)).astimezone(BERLIN).replace(hour=12, minute=0, second=0, microsecond=0)
    first = NoticeRecordFactory(
        source="doe",
        source_notice_id="merge-doe-1",
        procedure_id="VgV-2026-0815",
        title="Neubau Feuerwehrgerätehaus Musterstadt",
        description="Rohbau- und Ausbauarbeiten.\nZweite Zeile <script>alert(1)</script>",
        buyer_name="Stadt Musterstadt",
        buyer_id="DE-12345",
        procedure_type="open",
        estimated_value=Decimal("1234567.89"),
        submission_deadline=deadline,
        questions_deadline=deadline - timedelta(days=5),
        documents_url="https://www.evergabe-online.de/tenderdocuments.html?id=815",
        url="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=merge-doe-1",
        lots=(Lot(lot_id="LOT-0001", title="Rohbau", cpv_codes=("45223220",), estimated_value=Decimal("800000")),),
        published_at=now - timedelta(days=2),
    )
    notices_ingest(records=[first], now=now - timedelta(hours=2), use_fingerprint=False)
    second_portal = first.replace(source="ted", source_notice_id="merge-ted-1", url="javascript:alert(1)")
    moved = first.replace(version="02", kind=NoticeKind.CHANGE, submission_deadline=deadline + timedelta(days=7))
    notices_ingest(records=[second_portal, moved], now=now - timedelta(hours=1), use_fingerprint=False)
    return TenderSource.objects.get(source="doe", source_notice_id="merge-doe-1").tender_id


def test_detail_shows_every_field(alpha_client, merged):
    response = alpha_client.get(f"/ausschreibung/{merged}/")
    assert response.status_code == 200
    html = response.content.decode()
    for text in (
        "Neubau Feuerwehrgerätehaus Musterstadt",
        "Stadt Musterstadt",
        "DE-12345",
        "Offenes Verfahren",
        "1.234.567,89 €",
        "80331 München, Bayern",
        "45261210",
        "Rohbau",
        "800.000 €",
        "Frist für Bieterfragen",
        "VgV-2026-0815",
    ):
        assert text in html, text
    assert "LOT-0001" not in html  # the only lot: its id tells the reader nothing
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "Zweite Zeile" in html


def test_deadline_with_time_and_days_left(alpha_client, merged):
    tender = alpha_client.get(f"/ausschreibung/{merged}/").context["tender"]
    html = alpha_client.get(f"/ausschreibung/{merged}/").content.decode()
    local = tender.submission_deadline.astimezone(BERLIN)
    assert f"{local.day}. " in html and "12:00" in html
    days = (local.date() - timezone.now().astimezone(BERLIN).date()).days
    assert f"in {days} Tagen" in html


def test_sources_with_safe_links_and_merge_reasons(alpha_client, merged):
    html = alpha_client.get(f"/ausschreibung/{merged}/").content.decode()
    sources = html[html.index('data-testid="sources"') :]
    sources = sources[: sources.index("</table>")]
    assert "gleiche Verfahrens-ID (ContractFolderID)" in sources
    assert "neu angelegt" in sources
    assert (
        '<a href="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=merge-doe-1" target="_blank" '
        'rel="noopener noreferrer">' in sources
    )
    assert "javascript:" not in html
    assert "merge-ted-1" in sources  # shown, just not as a link
    assert re.search(
        r'href="https://www.evergabe-online.de/tenderdocuments.html\?id=815"[^>]*rel="noopener noreferrer"', html
    )


def test_history_says_what_changed_when(alpha_client, merged):
    response = alpha_client.get(f"/ausschreibung/{merged}/")
    history = response.context["history"]
    assert [entry["version"].version for entry in history][0] == "02"
    change = history[0]["changes"][0]
    assert change.field == "submission_deadline"
    assert change.new - change.old == timedelta(days=7)
    html = response.content.decode()
    assert "Angebotsfrist:" in html and "Änderungsbekanntmachung" in html


def test_unknown_tender_is_404(alpha_client, db):
    assert alpha_client.get("/ausschreibung/987654/").status_code == 404


def test_triage_on_the_detail_page_via_htmx(alpha, alpha_client, alpha_member, merged):
    response = alpha_client.post(
        f"/ausschreibung/{merged}/bewertung/",
        {"status": "pruefung", "note": "Referenzen prüfen"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "Gespeichert." in html
    assert '<option value="pruefung" selected>' in html
    with schema_context(alpha.schema_name):
        triage = Triage.objects.get(user=alpha_member, tender_id=merged)
    assert (triage.status, triage.note) == ("pruefung", "Referenzen prüfen")
    detail = alpha_client.get(f"/ausschreibung/{merged}/").content.decode()
    assert "Referenzen prüfen" in detail


def test_compact_triage_from_the_list_keeps_the_note(alpha, alpha_client, alpha_member, merged):
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=merged, status="interessant", note="Chef fragen")
    response = alpha_client.post(
        f"/ausschreibung/{merged}/bewertung/", {"status": "beworben", "compact": "1"}, headers={"HX-Request": "true"}
    )
    assert 'class="triage compact"' in response.content.decode()
    with schema_context(alpha.schema_name):
        triage = Triage.objects.get(user=alpha_member, tender_id=merged)
    assert (triage.status, triage.note) == ("beworben", "Chef fragen")
    listing = alpha_client.get("/suche/", {"q": "Feuerwehrgerätehaus"}).content.decode()
    assert '<option value="beworben" selected>' in listing


def test_triage_without_htmx_redirects_back(alpha_client, merged):
    response = alpha_client.post(
        f"/ausschreibung/{merged}/bewertung/", {"status": "interessant", "next": "/suche/?q=Neubau"}
    )
    assert response.status_code == 302 and response["Location"] == "/suche/?q=Neubau"
    evil = alpha_client.post(
        f"/ausschreibung/{merged}/bewertung/", {"status": "interessant", "next": "https://evil.example/"}
    )
    assert evil["Location"] == f"/ausschreibung/{merged}/"


def test_invalid_triage_is_rejected(alpha, alpha_client, alpha_member, merged):
    response = alpha_client.post(
        f"/ausschreibung/{merged}/bewertung/", {"status": "egal"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and "error" in response.content.decode()
    assert alpha_client.post("/ausschreibung/987654/bewertung/", {"status": "neu"}).status_code == 404
    with schema_context(alpha.schema_name):
        assert not Triage.objects.filter(user=alpha_member).exists()


def test_triage_is_per_user(alpha, alpha_client, alpha_admin_client, alpha_member, alpha_admin, merged):
    alpha_client.post(f"/ausschreibung/{merged}/bewertung/", {"status": "abgelehnt"})
    alpha_admin_client.post(f"/ausschreibung/{merged}/bewertung/", {"status": "beworben"})
    with schema_context(alpha.schema_name):
        assert Triage.objects.get(user=alpha_member).status == "abgelehnt"
        assert Triage.objects.get(user=alpha_admin).status == "beworben"


def test_triage_of_one_tenant_is_invisible_to_another(alpha, beta, alpha_client, beta_client, merged):
    alpha_client.post(f"/ausschreibung/{merged}/bewertung/", {"status": "interessant", "note": "Alpha intern"})
    html = beta_client.get(f"/ausschreibung/{merged}/").content.decode()
    assert "Alpha intern" not in html
    assert beta_client.get("/suche/", {"triage": "interessant"}).context["page"].paginator.count == 0
    with schema_context(beta.schema_name):
        assert not Triage.objects.exists()


def test_pipeline_groups_by_status(alpha, alpha_client, alpha_member, merged, corpus):
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=merged, status="pruefung")
        triage_set(user=alpha_member, tender_id=corpus["muell"], status="pruefung")
        triage_set(user=alpha_member, tender_id=corpus["bauarbeit"], status="beworben")
    response = alpha_client.get("/pipeline/")
    columns = {status: [row.tender_id for row in rows] for status, _label, rows in response.context["columns"]}
    assert list(columns) == ["neu", "interessant", "pruefung", "abgelehnt", "beworben"]
    assert columns["pruefung"] == [merged, corpus["muell"]]  # nearest deadline first
    assert columns["beworben"] == [corpus["bauarbeit"]]
    assert columns["neu"] == []


def test_empty_pipeline_says_what_to_do(alpha_client, db):
    html = alpha_client.get("/pipeline/").content.decode()
    assert "Noch nichts bewertet" in html


def test_anonymous_cannot_triage(alpha, merged):
    response = Client(HTTP_HOST=alpha.host).post(f"/ausschreibung/{merged}/bewertung/", {"status": "neu"})
    assert response.status_code == 302


def test_nuts_codes_are_shown_with_their_names(alpha_client, db):
    record = NoticeRecordFactory(source_notice_id="nuts-1", nuts_codes=("DE212", "DEA23", "AT130", "DE2X9"))
    notices_ingest(records=[record], now=timezone.now(), use_fingerprint=False)
    tender_id = TenderSource.objects.get(source_notice_id="nuts-1").tender_id
    html = alpha_client.get(f"/ausschreibung/{tender_id}/").content.decode()
    cell = re.search(r'<dd data-testid="nuts">(.*?)</dd>', html).group(1)
    assert cell.split("<br>") == [
        "DE212 – München, Kreisfreie Stadt",
        "DEA23 – Köln, Kreisfreie Stadt",
        "AT130 – Österreich",
        "DE2X9",  # no such Kreis: the code alone, not a guessed region
    ]
    with translation.override("de"):  # the English request must not leave English active for later tests
        alpha_client.post("/sprache/", {"language": "en", "next": "/"})
        html = alpha_client.get(f"/ausschreibung/{tender_id}/").content.decode()
    cell = re.search(r'<dd data-testid="nuts">(.*?)</dd>', html).group(1)
    assert "DE212 – München, Kreisfreie Stadt" in cell and "AT130 – Austria" in cell


@pytest.fixture
def raw_values(db) -> int:
    """A DÖE notice the way eForms states it: UUID id, ISO duration, alpha-3 country, one lot, a portal link."""
    from kernel.records import Deadline

    now = timezone.now()
    deadline = (now + timedelta(days=20)).astimezone(BERLIN).replace(hour=10, minute=0, second=0, microsecond=0)
    record = NoticeRecordFactory(
        source="doe",
        source_notice_id="3f6f1c1e-9d2b-4c57-8a4e-0b1f2c3d4e5f",
        publication_number="615938-2026",
        title="Wartung der Lüftungsanlagen",
        description="Wartung der Lüftungsanlagen",
        contract_duration="P48M",
        country="FRA",
        legal_basis="eu-2014-24",
        contract_nature="services",
        submission_deadline=deadline,
        deadlines=(Deadline(kind="angebotsfrist", at=deadline, lot_id="LOT-0000"),),
        lots=(Lot(lot_id="LOT-0000", title="Wartung", cpv_codes=("50700000",)),),
        portal_references=("netserver:54321-Tender-18c4e2f1a7b-3f2a1b0c9d8e7f6a",),
        url="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=3f6f1c1e",
        published_at=now - timedelta(days=1),
    )
    notices_ingest(records=[record], now=now, use_fingerprint=False)
    return TenderSource.objects.get(source="doe", source_notice_id=record.source_notice_id).tender_id


def test_raw_notice_values_are_shown_as_people_say_them(alpha_client, raw_values):
    html = alpha_client.get(f"/ausschreibung/{raw_values}/").content.decode()
    assert "48 Monate" in html and "P48M" not in html
    assert "(Frankreich)" in html and "(FRA)" not in html
    assert "Richtlinie 2014/24/EU" in html and "Dienstleistung" in html
    assert "LOT-0000" not in html  # one lot: its id says nothing
    assert "3f6f1c1e-9d2b" not in html  # no UUID as a notice's name
    assert "615938-2026 ↗" in html
    assert "Portal-Verweise" not in html and "netserver:" not in html
    assert "Vergabeplattform Vergabe@Net (NetServer) (54321-Tender-" in html
    assert 'data-testid="description"' not in html  # the description only repeats the title


def test_raw_notice_values_in_english_mode(alpha_client, raw_values):
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    html = alpha_client.get(f"/ausschreibung/{raw_values}/").content.decode()
    assert "48 months" in html and "(France)" in html
    assert "Directive 2014/24/EU" in html and "Richtlinie" not in html
    assert "Services" in html and "Dienstleistung" not in html
    assert "Submission deadline" in html
