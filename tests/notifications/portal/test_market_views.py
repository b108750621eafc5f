"""Market view: Zuschlag and similar awarded contracts on the tender page, the buyer and the supplier page."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from kernel.records import Award, AwardStatus, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from tenders.market import supplier_market
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory
from tests.tenders.market_corpus import BUYER, SUPPLIER, market_corpus


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


@pytest.fixture
def corpus(db) -> dict[str, int]:
    return market_corpus()


def _csv_rows(response) -> list[list[str]]:
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")  # Excel reads UTF-8 only with a BOM
    return list(csv.reader(io.StringIO(text[1:]), delimiter=";"))


def test_supplier_page_gives_sums_per_currency_with_their_origin(alpha_client, corpus):
    page = alpha_client.get("/markt/bieter/", {"name": SUPPLIER}).content.decode()
    totals = " ".join(page.split('data-testid="market-totals"')[1].split("</table>")[0].split())
    assert 'Zuschlagswert (EUR)</td><td>3</td><td><span class="amount">171.000,10 €' in totals
    assert 'Zuschlagswert (PLN)</td><td>1</td><td><span class="amount">14.500.000 PLN' in totals
    assert "Ohne Wert</td><td>1</td>" in totals and "Schätzwert" not in totals
    for tender_id in (corpus["Brücke Görlitz"], corpus["Schule Zittau"]):
        assert f'href="/ausschreibung/{tender_id}/"' in page  # every row links to its tender


def test_buyer_page_labels_estimates_and_never_mixes_them_into_award_sums(alpha_client, corpus):
    page = alpha_client.get("/markt/vergabestelle/", {"name": BUYER}).content.decode()
    totals = " ".join(page.split('data-testid="market-totals"')[1].split("</table>")[0].split())
    assert 'Zuschlagswert (EUR)</td><td>4</td><td><span class="amount">321.000,10 €' in totals
    assert 'Schätzwert (EUR)</td><td>2</td><td><span class="amount">540.000 €' in totals
    assert 'Schätzwert (PLN)</td><td>1</td><td><span class="amount">2.000.000 PLN' in totals
    assert page.count('data-testid="market-origin">Schätzwert') == 3


def test_market_csv_lists_the_award_rows_and_the_same_totals(alpha_client, corpus):
    response = alpha_client.get("/markt/bieter/export.csv", {"name": "hochbau weber"})
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="markt-bieter-hochbau-weber-gmbh-')
    rows = _csv_rows(response)
    assert rows[0] == ["ID", "Veröffentlicht", "Titel", "Auftraggeber", "Los", "Bieter", "Wert", "Währung",
                       "Herkunft", "Link"]  # fmt: skip
    blank = rows.index([])
    lines, totals = rows[1:blank], rows[blank + 1 :]
    assert len(lines) == 7  # one per lot won, the repeated one once; Schule Zittau's lot without a value
    sums: dict[str, Decimal] = {}
    for line in lines:
        if line[8] == "Zuschlagswert":
            sums[line[7]] = sums.get(line[7], Decimal(0)) + Decimal(line[6].replace(",", "."))
        assert line[9].startswith("http://") and line[9].endswith(f"/ausschreibung/{line[0]}/")
    summary = supplier_market(name=SUPPLIER)
    assert totals[0] == ["Herkunft", "Währung", "Ausschreibungen", "Summe", "Median"]
    assert totals[1:] == [
        ["Zuschlagswert", t.currency, str(t.tenders), f"{t.total:.2f}".replace(".", ","), f"{t.median:.2f}".replace(".", ",")]
        for t in summary.totals
    ] + [["Ohne Wert", "", "1", "", ""]]  # fmt: skip
    assert {currency: f"{value:.2f}" for currency, value in sums.items()} == {
        t.currency: f"{t.total:.2f}" for t in summary.totals
    }


def test_buyer_csv_marks_estimates(alpha_client, corpus):
    rows = _csv_rows(alpha_client.get("/markt/vergabestelle/export.csv", {"name": BUYER}))
    estimates = [(line[2], line[6], line[7]) for line in rows if len(line) == 10 and line[8] == "Schätzwert"]
    assert sorted(estimates) == [
        ("Most Zgorzelec", "2000000,00", "PLN"),
        ("Radweg Neiße", "40000,00", "EUR"),
        ("Schule Zittau", "500000,00", "EUR"),
    ]


def test_market_pages_and_csv_cost_the_same_few_statements(alpha_client, corpus, django_assert_max_num_queries):
    for path in ("/markt/bieter/", "/markt/bieter/export.csv", "/markt/vergabestelle/"):
        # The supplier page also asks the tenant's watch list whether the supplier is on it.
        with django_assert_max_num_queries(9 if path == "/markt/bieter/" else 8):
            assert alpha_client.get(path, {"name": SUPPLIER}).status_code == 200
