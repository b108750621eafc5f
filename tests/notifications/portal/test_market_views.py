"""Market view: Zuschlag and similar awarded contracts on the tender page, the buyer and the supplier page."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from kernel.records import Award, AwardStatus, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


def _awarded(number: int, *, supplier: str, value: str, title: str, days_ago: int):
    now = timezone.now()
    return NoticeRecordFactory(
        source="doe",
        source_notice_id=f"market-{number}",
        kind=NoticeKind.AWARD,
        status=TenderStatus.AWARDED,
        title=title,
        buyer_name="Stadt Musterstadt",
        cpv_codes=("45216121",),
        main_cpv="45216121",
        bundesland="Thüringen",
        published_at=now - timedelta(days=days_ago),
        submission_deadline=now - timedelta(days=days_ago - 30),
        awards=(
            Award(
                lot_id="LOT-0001",
                supplier_name=supplier,
                supplier_town="Erfurt",
                value=Decimal(value),
                currency="EUR",
                tenders_received=4,
                date=date(2026, 1, 15),
            ),
            Award(lot_id="LOT-0002", status=AwardStatus.NOT_AWARDED),
        ),
        suppliers=(supplier,),
    )


@pytest.fixture
def market(db) -> dict[str, int]:
    records = [
        _awarded(1, supplier="Hochbau Müller GmbH", value="2310000", title="Neubau Feuerwache Nord", days_ago=40),
        _awarded(2, supplier="Bau Schulze KG", value="1890000", title="Neubau Feuerwache Süd", days_ago=400),
        _awarded(3, supplier="Hochbau Müller GmbH", value="950000", title="Anbau Rettungswache", days_ago=800),
    ]
    notices_ingest(records=records, now=timezone.now(), use_fingerprint=False)
    return {t.title: t.pk for t in Tender.objects.all()}


def test_tender_page_shows_zuschlag_and_similar_awarded(alpha_client, market):
    page = alpha_client.get(f"/ausschreibung/{market['Neubau Feuerwache Nord']}/").content.decode()
    assert "Zuschlag" in page and "Hochbau Müller GmbH" in page and "2.310.000" in page
    assert "4 Angebote" in page and "15.01.2026" in page  # bids and award date, in German
    assert "ohne Zuschlag beendet" in page  # LOT-0002
    assert "Ähnliche vergebene Aufträge" in page
    assert "Neubau Feuerwache Süd" in page and "Bau Schulze KG" in page and "1.890.000" in page


def test_buyer_page(alpha_client, market):
    page = alpha_client.get("/markt/vergabestelle/", {"name": "stadt musterstadt"}).content.decode()
    assert "3 Ausschreibungen" in page
    assert "Hochbau Müller GmbH" in page and "(2)" in page  # won twice from this buyer
    assert "1.890.000" in page  # median award value
    assert "30 Tage" in page  # published 30 days before the deadline


def test_supplier_page(alpha_client, market):
    page = alpha_client.get("/markt/bieter/", {"name": "Hochbau Mueller"}).content.decode()
    assert "Hochbau Müller GmbH" in page
    assert "2 Ausschreibungen" in page
    assert "Stadt Musterstadt" in page and "Thüringen" in page
    assert "Neubau Feuerwache Süd" not in page


def test_unknown_supplier_is_an_empty_page(alpha_client, db):
    response = alpha_client.get("/markt/bieter/", {"name": ""})
    assert response.status_code == 200 and "0 Ausschreibungen" in response.content.decode()
