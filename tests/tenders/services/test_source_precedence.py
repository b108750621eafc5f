"""A feed item merged into an official tender, end to end: the stored tender, the page, the API and the console.

The official notice is the real DÖE eForms notice of the MPI für extraterrestrische Physik (tests/data/doe),
whose documents link names the NetServer tender; the feed item is built here as a Land's RSS feed states the
same procedure (its link carries the same TenderOID), with another title, an earlier deadline and another place -
the case a user met in the demo, where the feed item renamed the tender and moved its deadline.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender, TenderDelta
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory, eforms_record
from tests.fixtures.tenants import operator_sign_in
from tests.notifications.api.conftest import make_api_caller

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
FEED_DEADLINE = datetime(2026, 9, 28, 10, 0, tzinfo=BERLIN)


def _feed_item(official):
    return NoticeRecordFactory(
        source="vergabe_rss",
        source_notice_id="rss-micado",
        origin=Origin.FEED,
        portal_references=official.portal_references,  # the item's link names the same NetServer tender
        title="Integral Field Unit MICADO - Lieferung und Montage",
        buyer_name=official.buyer_name,
        submission_deadline=FEED_DEADLINE,
        postal_code="70173",
        town="Stuttgart",
        bundesland="Bayern",
        cpv_codes=("30200000",),
        estimated_value=Decimal("480000"),
        published_at=datetime(2026, 9, 18, 9, 0, tzinfo=BERLIN),
    )


@pytest.fixture
def alpha_api(alpha):
    return make_api_caller(alpha, alpha.member_email)


@pytest.fixture
def merged(db):
    official = eforms_record()
    notices_ingest(records=[official], now=NOW, use_fingerprint=False)
    delta = notices_ingest(records=[_feed_item(official)], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    return official, tender, delta


def test_the_feed_item_merges_and_changes_none_of_the_official_fields(merged):
    official, tender, delta = merged
    assert tender.sources.count() == 2
    assert tender.title == official.title
    assert tender.submission_deadline == official.submission_deadline
    assert (tender.postal_code, tender.town) == ("85748", "Garching")
    assert tender.cpv_codes == list(official.cpv_codes)
    # The only tracked change is the gap it filled (the official notice states no value): no renamed pipeline
    # card, no moved deadline, so no alert about either.
    assert delta.changed == {tender.pk: {"estimated_value": [None, "480000"]}}
    handed_off = [changes for delta in TenderDelta.objects.all() for changes in delta.changed.values()]
    assert all(set(changes) == {"estimated_value"} for changes in handed_off)
    assert tender.estimated_value == Decimal("480000.00")


def test_the_disagreements_are_stored_with_both_values_and_both_sources(merged):
    official, tender, _ = merged
    conflicts = {c["field"]: c for c in tender.conflicts}
    assert set(conflicts) == {"title", "submission_deadline", "postal_code", "town"}
    refs = tender.field_sources["refs"]
    assert refs[conflicts["town"]["ref"]]["source"] == "vergabe_rss"
    assert conflicts["town"]["value"] == "Stuttgart"
    assert conflicts["town"]["chosen"] == "Garching"
    assert refs[conflicts["town"]["chosen_ref"]]["source"] == "doe"
    lineage = {name: refs[index]["source"] for name, index in tender.field_sources["fields"].items()}
    assert lineage["title"] == lineage["submission_deadline"] == "doe"
    assert lineage["estimated_value"] == "vergabe_rss"


def test_the_conflict_closes_when_the_feed_agrees_again(merged):
    official, tender, _ = merged
    agreeing = _feed_item(official).replace(
        version="02",
        title=official.title,
        submission_deadline=official.submission_deadline,
        postal_code="85748",
        town="Garching",
    )
    notices_ingest(records=[agreeing], now=NOW, use_fingerprint=False)
    tender.refresh_from_db()
    assert tender.conflicts == []


def test_the_tender_page_names_sources_and_shows_the_other_statement(alpha_client, merged):
    _, tender, _ = merged
    html = alpha_client.get(f"/ausschreibung/{tender.pk}/").content.decode()
    assert 'data-testid="conflict-submission_deadline"' in html
    assert "abweichende Angabe bei" in html
    assert "28.09.2026 10:00" in html  # the feed's deadline, beside the official one
    assert 'data-testid="field-sources"' in html
    assert "amtliche Bekanntmachung" in html and "RSS-Feed" in html
    assert 'data-testid="source-submission_deadline"' in html
    # One row per source version, the official one first, naming the fields taken from it.
    rows = html.split('data-testid="field-sources"')[1].split("</table>")[0].split("<tr data-origin=")[1:]
    assert [row.split('"')[1] for row in rows] == ["official", "feed"]
    assert "Angebotsfrist" in rows[0] and "Geschätzter Wert" in rows[1] and "Angebotsfrist" not in rows[1]


def test_the_api_says_where_each_value_came_from(alpha_api, merged):
    _, tender, _ = merged
    body = alpha_api.get(f"/api/v1/tenders/{tender.pk}/").json()
    assert body["fields_source"]["submission_deadline"]["source"] == "doe"
    assert body["fields_source"]["submission_deadline"]["origin"] == "official"
    assert body["fields_source"]["estimated_value"]["origin"] == "feed"
    deadline = next(c for c in body["conflicts"] if c["field"] == "submission_deadline")
    assert deadline["source"]["source"] == "vergabe_rss"
    assert datetime.fromisoformat(deadline["value"]) == FEED_DEADLINE
    assert deadline["chosen_source"]["origin"] == "official"


def test_the_console_lists_open_conflicts_by_field(public_client, merged):
    _, tender, _ = merged
    operator_sign_in(public_client)
    page = public_client.get("/admin/tenders/tenderconflict/").content.decode()
    assert f"#{tender.pk} " in page
    assert "Angebotsfrist" in page and "28.09.2026 10:00" in page
    by_field = public_client.get("/admin/tenders/tenderconflict/", {"feld": "submission_deadline"}).content.decode()
    assert f"#{tender.pk} " in by_field
    assert (
        f"#{tender.pk} "
        not in public_client.get("/admin/tenders/tenderconflict/", {"feld": "buyer_name"}).content.decode()
    )
    detail = public_client.get(f"/admin/tenders/tender/{tender.pk}/change/").content.decode()
    assert "Herkunft der Angaben" in detail and "vergabe_rss" in detail
