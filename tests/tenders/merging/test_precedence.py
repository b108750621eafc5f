"""Source precedence per field, conflicts and lineage when a tender is compiled (pure, no database).

The official notice is the real DÖE eForms notice of the MPI für extraterrestrische Physik
(tests/data/doe); the weaker records are variations built here, as a feed item, a portal list row
or a detail page of the same procedure would state it.
"""

from __future__ import annotations

import random
from datetime import datetime
from decimal import Decimal

from kernel.records import Award, AwardStatus, NoticeKind
from kernel.vocabulary.provenance import MAIL_VERSION, Origin, origin_of
from kernel.vocabulary.time_zone import BERLIN
from tenders.merging import compile_tender
from tests.factories.records import NoticeRecordFactory, eforms_record

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
LATER = datetime(2026, 9, 18, 9, 0, tzinfo=BERLIN)  # after the DÖE notice of 14.09.


def _official():
    return eforms_record()


def _feed(**overrides):
    values = {
        "source": "vergabe_rss",
        "source_notice_id": "rss-1",
        "origin": Origin.FEED,
        "title": "Integral Field Unit MICADO - Lieferung",
        "submission_deadline": datetime(2026, 9, 28, 10, 0, tzinfo=BERLIN),
        "postal_code": "70173",
        "town": "Stuttgart",
        "bundesland": "Bayern",
        "published_at": LATER,
        "cpv_codes": ("30200000",),
        "questions_deadline": datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN),
        "estimated_value": None,
        "buyer_name": "Max-Planck-Institut für extraterrestrische Physik (MPE)",
    }
    return NoticeRecordFactory(**(values | overrides))


def _field_source(state, name):
    refs = state.field_sources["refs"]
    return refs[state.field_sources["fields"][name]]


def test_a_newer_feed_item_changes_none_of_the_fields_the_official_notice_states():
    official = _official()
    state = compile_tender([official, _feed()], now=NOW)
    assert state.title == official.title == "MICADO Integral Field Unit II"
    assert state.submission_deadline == official.submission_deadline
    assert (state.postal_code, state.town, state.bundesland) == ("85748", "Garching", "Bayern")
    assert state.buyer_name == official.buyer_name
    assert state.cpv_codes == official.cpv_codes  # a weaker source adds no CPV code either
    assert state.published_at == official.published_at


def test_a_feed_item_fills_the_fields_the_official_notice_leaves_empty():
    official = _official()
    assert official.questions_deadline is None and official.estimated_value is None
    state = compile_tender([official, _feed(estimated_value=Decimal("120000"))], now=NOW)
    assert state.questions_deadline == datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    assert state.estimated_value == Decimal("120000")
    assert _field_source(state, "questions_deadline")["source"] == "vergabe_rss"
    assert _field_source(state, "estimated_value")["origin"] == "feed"


def test_each_disagreement_is_recorded_with_both_values_and_both_sources():
    official = _official()
    state = compile_tender([official, _feed()], now=NOW)
    by_field = {c["field"]: c for c in state.conflicts}
    assert set(by_field) == {"title", "submission_deadline", "postal_code", "town"}  # Bayern agrees
    deadline = by_field["submission_deadline"]
    assert deadline["chosen"] == official.submission_deadline.isoformat()
    assert datetime.fromisoformat(deadline["value"]) == datetime(2026, 9, 28, 10, 0, tzinfo=BERLIN)
    refs = state.field_sources["refs"]
    assert refs[deadline["ref"]] | {"published_at": None} == {
        "source": "vergabe_rss",
        "notice_id": "rss-1",
        "version": "01",
        "kind": "contract_notice",
        "origin": "feed",
        "published_at": None,
    }
    assert refs[deadline["chosen_ref"]]["source"] == "doe"
    assert refs[deadline["chosen_ref"]]["origin"] == "official"


def test_lineage_names_the_notice_version_of_every_shown_value():
    official = _official()
    change = official.replace(version="02", published_at=LATER)
    state = compile_tender([official, change, _feed()], now=NOW)
    for name in ("title", "submission_deadline", "buyer_name", "town", "cpv_codes", "documents_url"):
        assert _field_source(state, name) == {
            "source": "doe",
            "notice_id": official.source_notice_id,
            "version": "02",
            "kind": "contract_notice",
            "origin": "official",
            "published_at": LATER.isoformat(),
        }, name


def test_agreeing_sources_record_no_conflict_even_shortened_or_by_day_only():
    official = _official()
    feed = _feed(
        title="MICADO Integral Field Unit …",
        submission_deadline=datetime(2026, 10, 20, 0, 0, tzinfo=BERLIN),  # the day only
        postal_code="85748",
        town="garching",
    )
    assert compile_tender([official, feed], now=NOW).conflicts == ()


def test_a_portal_detail_page_outranks_a_newer_list_row_and_the_newest_detail_wins():
    detail = NoticeRecordFactory(origin=Origin.PORTAL_DETAIL, title="Neubau Kita Sonnenschein", published_at=LATER)
    row = detail.replace(
        origin=Origin.PORTAL_LIST, title="Neubau Kita Sonnensch…", published_at=datetime(2026, 9, 19, tzinfo=BERLIN)
    )
    assert compile_tender([row, detail], now=NOW).title == "Neubau Kita Sonnenschein"
    corrected = detail.replace(version="02", title="Neubau Kita Sonnenschein, 2. Bauabschnitt")
    state = compile_tender([row, detail, corrected], now=NOW)
    assert state.title == "Neubau Kita Sonnenschein, 2. Bauabschnitt"
    assert state.conflicts == ()  # the shortened row agrees; an older version of the same source is no conflict


def test_the_result_does_not_depend_on_the_order_the_notices_arrive_in():
    records = [_official(), _feed(), _feed(source="other_rss", source_notice_id="x", title="Anderer Titel")]
    expected = compile_tender(records, now=NOW)
    for seed in range(5):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        state = compile_tender(shuffled, now=NOW)
        assert state == expected
        assert state.content_hash() == expected.content_hash()


def test_an_official_award_notice_keeps_its_title_over_a_feed_contract_notice():
    award = _official().replace(kind=NoticeKind.AWARD, version="01", source_notice_id="can-1")
    state = compile_tender([award, _feed()], now=NOW)
    assert state.title == "MICADO Integral Field Unit II"


def test_mail_records_fill_gaps_and_raise_no_conflicts():
    mail = _feed(version=MAIL_VERSION, origin=Origin.MAIL, source="tender24")
    state = compile_tender([_official(), mail], now=NOW)
    assert state.title == "MICADO Integral Field Unit II"
    assert state.conflicts == ()


def test_records_stored_without_an_origin_are_ranked_by_source_and_version():
    assert origin_of(NoticeRecordFactory(source="doe")) is Origin.OFFICIAL
    assert origin_of(NoticeRecordFactory(source="ted")) is Origin.OFFICIAL
    assert origin_of(NoticeRecordFactory(source="tender24")) is Origin.PORTAL_LIST
    assert origin_of(NoticeRecordFactory(source="tender24", version=MAIL_VERSION)) is Origin.MAIL
    assert origin_of(NoticeRecordFactory(source="doe", origin="feed")) is Origin.FEED


def test_one_award_row_per_lot_and_winner():
    won = Award(lot_id="LOT-0001", status=AwardStatus.AWARDED, supplier_name="Reinigung Nord GmbH", value=Decimal("10"))
    again = Award(
        lot_id="LOT-0001", status=AwardStatus.AWARDED, supplier_name="Reinigung Nord GmbH", value=Decimal("10")
    )
    other = Award(
        lot_id="LOT-0002", status=AwardStatus.AWARDED, supplier_name="Reinigung Nord GmbH", value=Decimal("5")
    )
    award = _official().replace(kind=NoticeKind.AWARD, source_notice_id="can-1", awards=(won, again, other))
    state = compile_tender([award], now=NOW)
    assert [(a["lot_id"], a["supplier_name"]) for a in state.awards] == [
        ("LOT-0001", "Reinigung Nord GmbH"),
        ("LOT-0002", "Reinigung Nord GmbH"),
    ]


def test_a_weaker_source_states_results_only_for_lots_no_stronger_one_states():
    official_award = Award(lot_id="LOT-0001", status=AwardStatus.AWARDED, supplier_name="Optik AG")
    list_award = Award(lot_id="LOT-0001", status=AwardStatus.AWARDED, supplier_name="Andere GmbH")
    list_other = Award(lot_id="LOT-0002", status=AwardStatus.AWARDED, supplier_name="Andere GmbH")
    official = _official().replace(kind=NoticeKind.AWARD, source_notice_id="can-1", awards=(official_award,))
    row = _feed(kind=NoticeKind.AWARD, origin=Origin.PORTAL_LIST, awards=(list_award, list_other))
    state = compile_tender([official, row], now=NOW)
    assert [(a["lot_id"], a["supplier_name"]) for a in state.awards] == [
        ("LOT-0001", "Optik AG"),
        ("LOT-0002", "Andere GmbH"),
    ]
