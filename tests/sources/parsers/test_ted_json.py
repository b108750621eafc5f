"""TED Search API v3 results -> NoticeRecord: the two saved real notices, request building, hostile input."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from sources.parsers.ted_json import TedParseError, parse_ted_notice, parse_ted_search_response, pick_language

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "ted"
    / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json"
)
CEST = timezone(timedelta(hours=2))


@pytest.fixture(scope="module")
def notices() -> list[dict]:
    return json.loads(FIXTURE.read_bytes())


@pytest.fixture(scope="module")
def records():
    records, token, errors = parse_ted_search_response(FIXTURE.read_bytes())
    assert (token, errors) == (None, [])  # the fixture is a bare array: no envelope, no token
    return {record.source_notice_id: record for record in records}


class TestContractNotice:
    def test_identity_and_kind(self, records):
        record = records["479730-2026"]
        assert (record.source, record.version) == ("ted", "01")
        assert record.kind is NoticeKind.CONTRACT_NOTICE
        assert record.status is TenderStatus.ACTIVE
        assert record.procedure_id is None  # no procedure-identifier in the saved result
        assert record.ocid is None
        assert record.referenced_notice_ids == ("f97b0751-7d7b-485d-98a9-fc089091040f",)
        assert record.url == "https://ted.europa.eu/de/notice/-/detail/479730-2026"

    def test_texts(self, records):
        record = records["479730-2026"]
        assert record.title == "Bewachung Henning-von-Tresckow-Kaserne"
        assert record.description == "Bewachung Henning-von-Tresckow-Kaserne"
        assert record.buyer_name == "Bundeswehr-Dienstleistungszentrum Berlin"
        assert record.buyer_id == ""

    def test_classification_and_place(self, records):
        record = records["479730-2026"]
        assert record.procedure_type == "restricted"
        assert record.cpv_codes == ("79713000",)
        assert record.nuts_codes == ("DE40E",)  # "DEU" entries of place-of-performance dropped
        assert record.bundesland == "Brandenburg"
        assert (record.postal_code, record.town, record.country) == ("14548", "Schwielowsee", "DEU")
        assert (record.estimated_value, record.currency) == (None, "")

    def test_dates(self, records):
        record = records["479730-2026"]
        assert record.published_at == datetime(2026, 7, 13, tzinfo=CEST)
        assert record.published_at.tzinfo is not None
        # restricted procedure: only a request (Teilnahmeantrag) deadline, a date without time: the whole
        # day counts (23:59, as for eForms and every other source), not the midnight that starts it
        assert record.submission_deadline == datetime(2026, 8, 10, 23, 59, tzinfo=CEST)
        assert [(d.kind, d.at) for d in record.deadlines] == [
            ("teilnahmefrist", datetime(2026, 8, 10, 23, 59, tzinfo=CEST))
        ]
        assert record.questions_deadline is None

    def test_lots_and_links(self, records):
        record = records["479730-2026"]
        assert [(lot.lot_id, lot.title) for lot in record.lots] == [
            ("LOT-0000", "Bewachung Henning-von-Tresckow-Kaserne")
        ]
        assert record.documents_url == "https://www.evergabe-online.de/tenderdetails.html?id=874855"
        assert record.portal_references == ()
        assert record.suppliers == ()
        assert record.payload["notice_type"] == "cn-standard"


class TestAwardNotice:
    def test_identity_and_kind(self, records):
        record = records["291981-2026"]
        assert record.kind is NoticeKind.AWARD
        assert record.status is TenderStatus.AWARDED
        assert record.suppliers == ("Wach- und Werkschutz Kurt Strube GmbH", "AWD-Gebäudedienste")
        assert record.referenced_notice_ids == ("af71f166-d087-4d7d-9f51-5e55337411c4",)
        assert record.url == "https://ted.europa.eu/de/notice/-/detail/291981-2026"

    def test_fields(self, records):
        record = records["291981-2026"]
        assert record.title == (
            "UNESCO Welterbstätten Worms - Alter jüdischer Friedhof, Synagoge und Synagogenbezirk"
            " - Stellung Sicherheitspersonal und Reinigung"
        )
        assert record.buyer_name == "Stadtverwaltung Worms, Abt. 6.4 Zentrale Ausschreibungsstelle und Dienste"
        assert record.procedure_type == "open"
        assert record.cpv_codes == ("79713000", "90910000")
        assert record.nuts_codes == ("DEB39",)
        assert record.bundesland == "Rheinland-Pfalz"
        assert (record.postal_code, record.town, record.country) == ("67547", "Worms", "DEU")
        assert record.published_at == datetime(2026, 4, 29, tzinfo=CEST)
        assert record.submission_deadline is None
        assert record.estimated_value is None  # tender-value is the awarded value, not an estimate
        assert record.documents_url == ""

    def test_lots_by_index(self, records):
        lots = records["291981-2026"].lots
        assert [(lot.lot_id, lot.title) for lot in lots] == [
            ("LOT-0001", "Synagoge Sicherheitspers."),
            ("LOT-0002", "Friedhof Sicherheitspers."),
            ("LOT-0003", "Reinigung Friedhof"),
        ]
        assert all(lot.cpv_codes == () for lot in lots)


class TestLanguage:
    def test_german_preferred_over_english(self):
        value = {"eng": "Germany – Guard services", "deu": "Deutschland – Bewachungsdienste"}
        assert pick_language(value) == "Deutschland – Bewachungsdienste"
        assert pick_language({"ENG": ["a"], "DEU": ["b", "c"]}) == "b"
        assert pick_language({"fra": "x", "eng": ["y"]}) == "y"
        assert pick_language({"fra": ["x"]}) == "x"
        assert pick_language({"eng": "y"}, preferred=("fra",)) == "y"

    def test_shapes(self):
        assert pick_language("  plain  ") == "plain"
        assert pick_language(["", "  ", "second"]) == "second"
        assert pick_language({"deu": [], "eng": "en"}) == "en"
        assert pick_language({}) == ""
        assert pick_language(None) == ""
        assert pick_language(42) == "42"
        assert pick_language({"deu": {"nested": "x"}}) == ""

    def test_notice_title_fallback_is_german(self, notices):
        notice = copy.deepcopy(notices[0])
        del notice["title-proc"]
        record = parse_ted_notice(notice)
        assert record.title == "Deutschland – Bewachungsdienste – Bewachung Henning-von-Tresckow-Kaserne"


class TestFieldsNotInFixture:
    def test_tender_deadline_value_procedure_change(self, notices):
        notice = copy.deepcopy(notices[0])
        notice.update(
            {
                "deadline-receipt-tender-date-lot": ["2026-09-02+02:00", "2026-09-01+02:00"],
                "deadline-receipt-tender-time-lot": ["10:00:00+02:00", "12:00:00+02:00"],
                "estimated-value-proc": "1250000.50",
                "estimated-value-cur-proc": "EUR",
                "procedure-identifier": "e2530ce2-555c-4a3f-81f1-0bf04a1ee9a5",
                "change-notice-version-identifier": ["83790896-0cd3-4adf-9c41-07420c702431-01"],
                "document-url-lot": ["https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents"],
                "notice-type": "corr",
            }
        )
        record = parse_ted_notice(notice)
        assert record.submission_deadline == datetime(2026, 9, 1, 12, 0, tzinfo=CEST)  # earliest lot
        assert (record.estimated_value, record.currency) == (Decimal("1250000.50"), "EUR")
        assert record.procedure_id == "e2530ce2-555c-4a3f-81f1-0bf04a1ee9a5"
        assert record.referenced_notice_ids == (
            "f97b0751-7d7b-485d-98a9-fc089091040f",
            "83790896-0cd3-4adf-9c41-07420c702431",
        )
        assert record.kind is NoticeKind.CHANGE
        assert record.documents_url == "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents"
        assert record.portal_references == ("cosinex:CXP4Y9PRGS5",)

    def test_lot_estimates_summed(self):
        notice = {
            "publication-number": "1-2026",
            "estimated-value-lot": [100, "200.25"],
            "estimated-value-cur-lot": ["EUR", "EUR"],
            "identifier-lot": ["LOT-1", "LOT-2"],
        }
        record = parse_ted_notice(notice)
        assert (record.estimated_value, record.currency) == (Decimal("300.25"), "EUR")
        assert [lot.estimated_value for lot in record.lots] == [Decimal(100), Decimal("200.25")]
        assert record.url == "https://ted.europa.eu/de/notice/-/detail/1-2026"  # no links: constructed

    @pytest.mark.parametrize(
        ("notice_type", "form_type", "kind"),
        [
            ("pin-only", "planning", NoticeKind.PRIOR_INFORMATION),
            ("cn-social", "competition", NoticeKind.CONTRACT_NOTICE),
            ("can-modif", "cont-modif", NoticeKind.CHANGE),  # a contract modification, not an award
            ("veat", "dir-awa-pre", NoticeKind.AWARD),
            ("cn-standard", "change", NoticeKind.CHANGE),
            ("", "result", NoticeKind.AWARD),
            ("", "", NoticeKind.CONTRACT_NOTICE),
        ],
    )
    def test_kinds(self, notice_type, form_type, kind):
        notice = {"publication-number": "1-2026", "notice-type": notice_type, "form-type": form_type}
        assert parse_ted_notice(notice).kind is kind


class TestEnvelopeAndHostile:
    def test_envelope_with_token(self, notices):
        data = json.dumps({"notices": notices, "totalNoticeCount": 2, "iterationNextToken": "abc", "timedOut": False})
        records, token, errors = parse_ted_search_response(data.encode())
        assert ([r.source_notice_id for r in records], token, errors) == (["479730-2026", "291981-2026"], "abc", [])

    def test_timed_out_is_reported(self, notices):
        data = json.dumps({"notices": notices[:1], "totalNoticeCount": 9, "timedOut": True}).encode()
        records, token, errors = parse_ted_search_response(data)
        assert (len(records), token) == (1, None)
        assert errors == ["TED search timed out: this page may be incomplete"]

    def test_empty_token_is_none(self):
        assert parse_ted_search_response(b'{"notices": [], "iterationNextToken": ""}') == ([], None, [])
        assert parse_ted_search_response(b'\xef\xbb\xbf{"notices": [], "iterationNextToken": null}') == ([], None, [])

    @pytest.mark.parametrize(
        "data", [b"{oops", b"null", b"42", b'"x"', b"", b'{"notices": null}', b'{"notices": {"a": 1}}', b"{}"]
    )
    def test_unusable_page_raises(self, data):
        with pytest.raises(TedParseError):
            parse_ted_search_response(data)

    def test_bad_notice_becomes_error_entry(self, notices):
        broken = {"publication-number": "999-2026", "notice-type": {"x": 1}, "links": None, "buyer-name": 5}
        page = [
            notices[0],
            None,
            "x",
            {"notice-title": {"deu": "no number"}},
            {
                "publication-number": ["123-2026"],
                "classification-cpv": "79713000",
                "place-of-performance": {"a": 1},
                "publication-date": {"a": 1},
                "links": [],
                "identifier-lot": {"a": 1},
                "title-lot": 3,
                "deadline-receipt-tender-date-lot": ["garbage"],
                "deadline-receipt-tender-time-lot": 7,
                "estimated-value-proc": ["x"],
                "winner-name": {"deu": [None, 3]},
            },
            broken,
        ]
        records, token, errors = parse_ted_search_response(json.dumps(page).encode())
        assert [r.source_notice_id for r in records] == ["479730-2026", "123-2026", "999-2026"]
        hostile = records[1]
        assert hostile.cpv_codes == ("79713000",) and hostile.nuts_codes == ()
        assert hostile.published_at is None and hostile.submission_deadline is None
        assert hostile.estimated_value is None and hostile.suppliers == ("3",)
        assert token is None
        assert len(errors) == 3
        assert errors[0].startswith("TED notice #1:") and "TedParseError" in errors[0]
        assert errors[2].startswith("TED notice #3:") and "publication-number" in errors[2]

    def test_parse_ted_notice_rejects_non_objects(self):
        with pytest.raises(TedParseError):
            parse_ted_notice([])  # type: ignore[arg-type]
        with pytest.raises(TedParseError, match="publication-number"):
            parse_ted_notice({"publication-number": None})
