"""The ingest service on real fixture notices: fields, versions, merging, idempotency."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection

from kernel.records import Deadline, NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import MergeRule, Tender, TenderSource, TenderVersion
from tenders.services import notices_ingest
from tests.factories.records import (
    OCDS_3LOTS,
    OCDS_AUFHEBUNG,
    OCDS_AWARD,
    TED_CN_MINIMAL,
    NoticeRecordFactory,
    eforms_record,
    ocds_records,
)

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def _snapshot():
    return (
        list(Tender.objects.order_by("id").values_list("id", "title", "submission_deadline", "status", "content_hash")),
        list(TenderSource.objects.order_by("id").values_list("tender_id", "source", "source_notice_id", "merge_rule")),
        list(
            TenderVersion.objects.order_by("id").values_list("tender_id", "source_notice_id", "version", "content_hash")
        ),
    )


@pytest.mark.django_db
def test_real_eforms_notice_becomes_a_complete_tender():
    delta = notices_ingest(records=[eforms_record()], now=NOW, use_fingerprint=False)
    assert len(delta.created) == 1
    tender = Tender.objects.get(pk=delta.created[0])
    assert tender.procedure_id
    assert tender.submission_deadline == datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN)
    assert tender.submission_deadline.astimezone(BERLIN).hour == 12
    assert tender.bundesland == "Bayern"
    assert tender.status == "active"
    assert tender.cpv_divisions and all(len(code) == 8 for code in tender.cpv_codes)
    assert any(ref.startswith("netserver:54321-Tender-1a09ee5f4b7") for ref in tender.portal_references)
    source = tender.sources.get()
    assert (source.source, source.merge_rule, source.latest_version) == ("doe", MergeRule.NEW, "01")
    assert tender.versions.count() == 1


@pytest.mark.django_db
def test_the_same_export_three_times_gives_the_same_rows():
    records = [eforms_record(), *ocds_records(OCDS_3LOTS), *ocds_records(OCDS_AWARD)]
    first = notices_ingest(records=records, now=NOW, use_fingerprint=False)
    before = _snapshot()
    for _ in range(2):
        again = notices_ingest(records=records, now=NOW, use_fingerprint=False)
        assert again.created == () and again.changed == {} and again.unchanged == len(records)
    assert _snapshot() == before
    assert len(first.created) == 3


@pytest.mark.django_db
def test_a_notice_seen_again_marks_its_source_and_never_rewrites_its_tender():
    # A rewritten tender row costs PostgreSQL a new search vector; a sighting is the source link's fact.
    records = [eforms_record(), *ocds_records(OCDS_3LOTS)]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, xmin::text FROM tenders_tender")
        written = dict(cursor.fetchall())
    later = NOW + timedelta(days=1)
    notices_ingest(records=records, now=later, use_fingerprint=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, xmin::text FROM tenders_tender")
        assert dict(cursor.fetchall()) == written
    assert set(TenderSource.objects.values_list("last_seen_at", flat=True)) == {later}
    from tenders.selectors import tender_export_iter

    assert {t["last_seen_at"] for t in tender_export_iter()} == {later.isoformat()}
    assert len(list(tender_export_iter(since=later))) == len(written)
    assert list(tender_export_iter(since=later + timedelta(seconds=1))) == []


@pytest.mark.usefixtures("committed")
def test_concurrent_ingests_of_one_export_do_not_duplicate():
    records = [eforms_record(), *ocds_records(OCDS_3LOTS), *ocds_records(OCDS_AWARD)]
    start = threading.Barrier(3)  # all three ingests begin together, so they really overlap

    def run():
        try:
            start.wait(timeout=30)
            return notices_ingest(records=records, now=NOW, use_fingerprint=False)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=3) as pool:
        deltas = list(pool.map(lambda _: run(), range(3)))
    assert sum(len(d.created) for d in deltas) == 3
    assert Tender.objects.count() == 3
    assert TenderSource.objects.count() == 3
    assert TenderVersion.objects.count() == 3


@pytest.mark.django_db
def test_correction_02_supersedes_01_even_when_01_arrives_later():
    original = eforms_record()
    correction = original.replace(version="02", submission_deadline=datetime(2026, 10, 27, 12, 0, tzinfo=BERLIN))
    notices_ingest(records=[correction], now=NOW, use_fingerprint=False)
    notices_ingest(records=[original], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert tender.submission_deadline == datetime(2026, 10, 27, 12, 0, tzinfo=BERLIN)
    assert sorted(tender.versions.values_list("version", flat=True)) == ["01", "02"]
    assert tender.sources.get().latest_version == "02"


@pytest.mark.django_db
def test_change_notice_moves_the_deadline_and_reports_it():
    original = eforms_record()
    notices_ingest(records=[original], now=NOW, use_fingerprint=False)
    change = original.replace(
        source_notice_id="aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
        kind=NoticeKind.CHANGE,
        referenced_notice_ids=(f"{original.source_notice_id}-01",),
        submission_deadline=datetime(2026, 11, 3, 10, 0, tzinfo=BERLIN),
    )
    delta = notices_ingest(records=[change], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert delta.created == ()
    assert delta.changed[tender.pk]["submission_deadline"][1].startswith("2026-11-03T10:00")
    assert tender.submission_deadline == datetime(2026, 11, 3, 10, 0, tzinfo=BERLIN)
    assert tender.sources.count() == 2


@pytest.mark.django_db
def test_unsuccessful_award_closes_the_tender_as_cancelled():
    (aufhebung,) = ocds_records(OCDS_AUFHEBUNG)
    tender_notice = aufhebung.replace(
        source_notice_id="11111111-2222-3333-4444-555555555555",
        kind=NoticeKind.CONTRACT_NOTICE,
        status="active",
        published_at=datetime(2026, 7, 1, tzinfo=BERLIN),
    )
    notices_ingest(records=[tender_notice], now=NOW, use_fingerprint=False)
    delta = notices_ingest(records=[aufhebung], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert tender.status == "cancelled"
    assert delta.changed[tender.pk]["status"][1] == "cancelled"


@pytest.mark.django_db
def test_award_with_supplier_closes_the_tender_as_awarded():
    (award,) = ocds_records(OCDS_AWARD)
    notices_ingest(records=[award], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert tender.status == "awarded"
    assert tender.suppliers


@pytest.mark.django_db
def test_doe_and_ted_copies_of_one_procedure_merge_into_one_tender_with_two_sources():
    doe = eforms_record(TED_CN_MINIMAL, source="doe")
    ted = eforms_record(TED_CN_MINIMAL, source="ted").replace(source_notice_id="123456-2026")
    notices_ingest(records=[doe], now=NOW, use_fingerprint=False)
    delta = notices_ingest(records=[ted], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert delta.created == ()
    assert sorted(tender.sources.values_list("source", "merge_rule")) == [
        ("doe", MergeRule.NEW),
        ("ted", MergeRule.PROCEDURE_ID),
    ]


@pytest.mark.django_db
def test_netserver_record_joins_the_doe_notice_that_links_it():
    notices_ingest(records=[eforms_record()], now=NOW, use_fingerprint=False)
    oid = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
    portal = NoticeRecordFactory(
        source="tender24",
        source_notice_id=oid,
        title="Anderer Titel auf dem Portal",
        buyer_name="Max-Planck-Institut",
        url=f"https://www.tender24.de/NetServer/PublicationControllerServlet?function=Detail&TOID={oid}&Category=InvitationToTender",
    )
    notices_ingest(records=[portal], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert sorted(tender.sources.values_list("source", "merge_rule")) == [
        ("doe", MergeRule.NEW),
        ("tender24", MergeRule.PORTAL_REFERENCE),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("use_fingerprint", "expected_tenders"), [(False, 2), (True, 1)])
def test_fingerprint_rule_only_runs_when_enabled(use_fingerprint, expected_tenders):
    portal = NoticeRecordFactory(source="tender24", title="Winterdienst Stadtgebiet Nord 2026/2027")
    elsewhere = NoticeRecordFactory(
        source="service-bund", title="Winterdienst Stadtgebiet Nord 2026/2027", estimated_value=None, cpv_codes=()
    )
    notices_ingest(records=[portal], now=NOW, use_fingerprint=use_fingerprint)
    notices_ingest(records=[elsewhere], now=NOW, use_fingerprint=use_fingerprint)
    assert Tender.objects.count() == expected_tenders
    if expected_tenders == 1:
        assert TenderSource.objects.get(source="service-bund").merge_rule == MergeRule.FINGERPRINT


@pytest.mark.django_db
def test_fingerprint_gate_follows_the_number_of_active_sources():
    """The caller decides the rule from the Source table (``sources.selectors``); the ingest never reads it."""
    from sources.models import Source
    from sources.selectors import fingerprint_rule_enabled

    Source.objects.update(is_active=False)
    Source.objects.filter(key="tender24").update(is_active=True)
    first = NoticeRecordFactory(source="tender24", title="Reinigung Rathaus und Bürgerbüro 2027")
    second = NoticeRecordFactory(source="service-bund", title="Reinigung Rathaus und Bürgerbüro 2027")
    notices_ingest(records=[first], now=NOW, use_fingerprint=fingerprint_rule_enabled())
    notices_ingest(records=[second], now=NOW, use_fingerprint=fingerprint_rule_enabled())
    assert Tender.objects.count() == 2  # one active source: the rule stays off

    Source.objects.filter(key="service-bund").update(is_active=True)
    third = NoticeRecordFactory(source="vergabe-landbw", title="Reinigung Rathaus und Bürgerbüro 2027")
    notices_ingest(records=[third], now=NOW, use_fingerprint=fingerprint_rule_enabled())
    assert Tender.objects.count() == 2
    assert TenderSource.objects.get(source="vergabe-landbw").merge_rule == MergeRule.FINGERPRINT


@pytest.mark.django_db
def test_fingerprint_candidates_leave_out_tenders_that_already_have_the_records_source():
    """A buyer reusing one title every year: a new notice of the same portal is compared with none of them."""
    from tenders.resolution import keys_of
    from tenders.services.ingest_reads import merge_lookups

    title = "Unterhaltsreinigung Rathaus"
    yearly = [
        NoticeRecordFactory(source="tender24", title=title, submission_deadline=datetime(year, 3, 1, 12, tzinfo=BERLIN))
        for year in (2024, 2025, 2026)
    ]
    for record in yearly:  # one portal never publishes one tender twice: three tenders
        notices_ingest(records=[record], now=NOW, use_fingerprint=True)
    elsewhere = NoticeRecordFactory(source="dtvp", title=title, submission_deadline=None, estimated_value=None)
    notices_ingest(records=[elsewhere], now=NOW, use_fingerprint=True)
    tender_ids = sorted(Tender.objects.values_list("id", flat=True))
    assert len(tender_ids) == 3  # the dtvp notice, without deadline or value, joined the oldest of them

    next_year = NoticeRecordFactory(source="tender24", title=title)
    from_bund = NoticeRecordFactory(source="service-bund", title=title)
    keys = [keys_of(next_year), keys_of(from_bund)]
    lookups, _ = merge_lookups(records=[next_year, from_bund], keys=keys, use_fingerprint=True)
    fp = keys[0].fingerprint
    assert lookups.by_fingerprint.get((fp, "tender24"), []) == []
    bund = lookups.by_fingerprint[(fp, "service-bund")]
    assert [c.tender_id for c in bund] == tender_ids  # oldest first
    assert bund[0].sources == frozenset({"tender24", "dtvp"})
    assert TenderSource.objects.get(source="dtvp").tender_id == tender_ids[0]


@pytest.mark.django_db
def test_no_false_merge_of_two_tenders_of_the_same_buyer():
    roof = NoticeRecordFactory(source="tender24", title="Sanierung Grundschule Nord – Dacharbeiten")
    windows = NoticeRecordFactory(source="dtvp", title="Sanierung Grundschule Nord – Fensterarbeiten")
    same_title_other_deadline = NoticeRecordFactory(
        source="service-bund",
        title="Sanierung Grundschule Nord – Dacharbeiten",
        submission_deadline=datetime(2027, 3, 1, 12, 0, tzinfo=BERLIN),
    )
    other_value = NoticeRecordFactory(
        source="vergabe-landbw", title="Sanierung Grundschule Nord – Dacharbeiten", estimated_value=Decimal("9000000")
    )
    notices_ingest(records=[roof, windows, same_title_other_deadline, other_value], now=NOW, use_fingerprint=True)
    assert Tender.objects.count() == 4


@pytest.mark.django_db
def test_ted_search_result_joins_the_doe_notice_it_names():
    """TED's v3 search result carries the eForms notice id (DÖE's notice uuid) as notice-identifier."""
    import json

    from sources.parsers.ted_json import parse_ted_notice
    from tests.factories.records import DATA

    doe = eforms_record()
    (ted_obj, _) = json.loads(
        (DATA / "ted" / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json").read_text()
    )
    ted_obj = {**ted_obj, "notice-identifier": doe.source_notice_id}
    ted = parse_ted_notice(ted_obj)
    notices_ingest(records=[doe], now=NOW, use_fingerprint=False)
    notices_ingest(records=[ted], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert sorted(tender.sources.values_list("source", "merge_rule")) == [
        ("doe", MergeRule.NEW),
        ("ted", MergeRule.NOTICE_REFERENCE),
    ]


@pytest.mark.django_db
def test_a_hostile_notice_does_not_fail_its_batch():
    """PostgreSQL stores neither NUL nor lone surrogates; one notice carrying them must not sink the others."""
    hostile = NoticeRecordFactory(
        source_notice_id="54321-Tender-\x00evil", url="https://x.example/\ud800", payload={"raw": "\x00"}
    )
    fine = NoticeRecordFactory()
    delta = notices_ingest(records=[hostile, fine], now=NOW, use_fingerprint=False)
    assert len(delta.created) == 2
    source = TenderSource.objects.get(source_notice_id="54321-Tender-evil")
    assert source.url == "https://x.example/?"
    assert source.versions.get().record["payload"] == {"raw": ""}
    again = notices_ingest(records=[hostile, fine], now=NOW, use_fingerprint=False)
    assert again.unchanged == 2 and again.created == ()


@pytest.mark.django_db
def test_over_long_identifiers_do_not_fail_their_batch():
    long = NoticeRecordFactory(source_notice_id="x" * 500, ocid="o" * 500, procedure_id="p" * 500, version="9" * 30)
    delta = notices_ingest(records=[long, NoticeRecordFactory()], now=NOW, use_fingerprint=False)
    assert len(delta.created) == 2
    again = notices_ingest(records=[long], now=NOW, use_fingerprint=False)
    assert again.unchanged == 1


@pytest.mark.django_db
def test_amounts_the_value_column_refuses_are_left_out():
    records = [
        NoticeRecordFactory(title="Negativer Wert Dachdeckerarbeiten", estimated_value=Decimal("-5")),
        NoticeRecordFactory(title="Kein Wert Dachdeckerarbeiten", estimated_value=Decimal("NaN")),
        NoticeRecordFactory(title="Riesiger Wert Dachdeckerarbeiten", estimated_value=Decimal("1E+20")),
    ]
    delta = notices_ingest(records=records, now=NOW, use_fingerprint=False)
    assert len(delta.created) == 3
    assert set(Tender.objects.values_list("estimated_value", flat=True)) == {None}


@pytest.mark.django_db
def test_placeholder_dates_from_any_adapter_are_dropped_not_fatal():
    far = datetime(9999, 12, 31, 23, 59, tzinfo=UTC)  # a placeholder; in Berlin time it would be year 10000
    record = NoticeRecordFactory(title="Platzhalterfrist Dachdeckerarbeiten", submission_deadline=far)
    delta = notices_ingest(records=[record], now=NOW, use_fingerprint=True)
    tender = Tender.objects.get(pk=delta.created[0])
    assert tender.submission_deadline is None and tender.status == "active"


@pytest.mark.django_db
def test_a_description_too_big_for_the_search_vector_is_cut_not_fatal():
    # Distinct words, so the German search vector would pass PostgreSQL's 1 MB limit if stored whole.
    huge = " ".join(f"Leistung{n:07d}" for n in range(200_000))
    record = NoticeRecordFactory(title="Riesige Beschreibung Dachdeckerarbeiten", description=huge)
    delta = notices_ingest(records=[record], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get(pk=delta.created[0])
    assert len(tender.description) == 50_000 and tender.description.endswith("…")
    assert Tender.objects.filter(search_vector="Leistung0000001").exists()


@pytest.mark.django_db
def test_a_refused_amount_is_not_reported_as_a_change_later():
    # Stored as "no value"; the compiled state must agree, or every recompile would report a value change.
    record = NoticeRecordFactory(title="Riesenwert Dachdeckerarbeiten", estimated_value=Decimal("1E+20"))
    notices_ingest(records=[record], now=NOW, use_fingerprint=False)
    moved = record.replace(version="02", submission_deadline=record.submission_deadline + timedelta(days=7))
    delta = notices_ingest(records=[moved], now=NOW, use_fingerprint=False)
    [changes] = delta.changed.values()
    assert set(changes) == {"submission_deadline"}


@pytest.mark.django_db
def test_a_moved_teilnahmefrist_or_contract_start_alone_is_a_tracked_change_for_the_hand_off():
    # The team board's dated items: a notice moving only one of them must still reach every tenant's matching.
    first = datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    offer = Deadline(kind="angebotsfrist", at=datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN))
    record = NoticeRecordFactory(
        title="Winterdienst", deadlines=(Deadline(kind="teilnahmefrist", at=first), offer), contract_start=None
    )
    notices_ingest(records=[record], now=NOW, use_fingerprint=False)
    moved = record.replace(
        version="02", deadlines=(Deadline(kind="teilnahmefrist", at=first + timedelta(days=7)), offer)
    )
    delta = notices_ingest(records=[moved], now=NOW, use_fingerprint=False)
    [changes] = delta.changed.values()
    assert set(changes) == {"deadlines"}
    assert [d["at"] for d in changes["deadlines"][0] if d["kind"] == "teilnahmefrist"] == [first.isoformat()]
    assert [d["at"] for d in changes["deadlines"][1] if d["kind"] == "teilnahmefrist"] == [
        (first + timedelta(days=7)).isoformat()
    ]
    started = moved.replace(version="03", contract_start=datetime(2027, 1, 4).date())
    delta = notices_ingest(records=[started], now=NOW, use_fingerprint=False)
    assert list(delta.changed.values()) == [{"contract_start": [None, "2027-01-04"]}]
    assert notices_ingest(records=[started.replace(version="04")], now=NOW, use_fingerprint=False).changed == {}


@pytest.mark.django_db
def test_portal_lookups_go_through_their_index_on_a_table_without_statistics():
    """A fresh table (or one grown within an import) has no statistics: the lookup still uses the GIN index."""
    from tenders.resolution import keys_of
    from tenders.services.ingest_reads import merge_lookups

    notices_ingest(records=[eforms_record()], now=NOW, use_fingerprint=False)
    oid = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
    portal = NoticeRecordFactory(source="tender24", source_notice_id=oid, portal_references=(f"netserver:{oid}",))
    plans: list[str] = []

    def explained(execute, sql, params, many, context):
        if "portal_references" in sql and "&&" in sql:
            raw = context["cursor"].cursor  # the driver's cursor: not through this wrapper again
            raw.execute("EXPLAIN " + sql, params)
            plans.append(" ".join(row[0] for row in raw.fetchall()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(explained):
        lookups, _ = merge_lookups(records=[portal], keys=[keys_of(portal)], use_fingerprint=False)
    with connection.cursor() as cursor:
        cursor.execute("SHOW enable_seqscan")
        assert cursor.fetchone()[0] == "on"  # reset for the rest of the ingest
    assert lookups.by_portal_reference == {f"netserver:{oid}": Tender.objects.get().id}
    assert plans and all("tender_portal_refs_gin" in plan for plan in plans), plans
