"""NetServer layouts end to end: runs record layout and yield, drift blocks, DÖE links merge, saved pages ingest."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from kernel.network import Fetcher
from kernel.vocabulary.time_zone import BERLIN
from sources.models import FetchRun, FetchRunStatus, Source
from sources.parsers.eforms import parse_eforms
from sources.services import source_poll
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import MPI_EFORMS
from tests.sources.adapters.test_netserver_layouts import (
    DARMSTADT,
    HESSEN,
    LANDBW,
    STREUSALZ,
    SUESSEN,
    VARIANTS,
    WEILHEIM,
    WEILHEIM_TENDER_OID,
    VariantSite,
)

MICADO = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"


def source_on(site: VariantSite, key: str, **settings) -> Source:
    source = Source.objects.get(key=key)
    source.settings = {"base_url": site.base_url, "allowed_hosts": ["localhost"], "page_size": 3, **settings}
    source.save()
    return source


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def doe_notice_linking(tender_oid: str):
    """The real DÖE eForms-DE notice, its NetServer link pointed at ``tender_oid`` on vergabe.landbw.de."""
    xml = MPI_EFORMS.read_bytes().replace(MICADO.encode(), tender_oid.encode())
    xml = xml.replace(b"www.tender24.de", b"vergabe.landbw.de")
    record = parse_eforms(xml, source="doe")
    assert f"netserver:{tender_oid}" in record.portal_references
    return record


def test_a_five_cell_run_records_layout_and_yield_and_stores_legal_basis(db, httpserver) -> None:
    site = VariantSite(httpserver, LANDBW)
    run = poll(source_on(site, "vergabe-landbw", max_details=0))
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert run.fetched == 3 and run.layout == "table-5"
    assert run.yield_report[0]["layout"] == "table-5"
    assert (run.yield_report[0]["rows_seen"], run.yield_report[0]["parsed"]) == (3, 3)
    assert run.sample_page is None
    tender = TenderSource.objects.get(source="vergabe-landbw", source_notice_id=WEILHEIM).tender
    assert tender.legal_basis == "vob-a" and tender.procedure_type == "public_tender"
    assert tender.submission_deadline.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") == "22.12.2026 23:59"


def test_a_run_rejecting_more_than_the_threshold_ends_blocked_with_the_alarm_and_a_sample(db, httpserver) -> None:
    site = VariantSite(httpserver, LANDBW)
    # Two of the three rows lose their title cell (class and header): 67 % rejected.
    site.results = site.results.replace(b"<th>Ausschreibung</th>", b"<th></th>")
    site.results = site.results.replace(b'<td class="tender">Lieferung', b'<td class="x">Lieferung')
    site.results = site.results.replace(b'<td class="tender">Planung', b'<td class="x">Planung')
    run = poll(source_on(site, "vergabe-landbw", max_details=0))
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "changed_layout")
    assert run.low_yield is True
    assert "2 von 3 Ergebniszeilen abgelehnt (67 %, Grenze 20 %)" in run.error
    assert bytes(run.sample_page) == site.results
    assert run.yield_report[0]["rejected"] == {"no title cell among 5 cells": 2}
    # What could be read is kept.
    assert TenderSource.objects.filter(source="vergabe-landbw", source_notice_id=WEILHEIM).exists()
    assert not TenderSource.objects.filter(source_notice_id__in=[STREUSALZ, SUESSEN]).exists()


def test_a_doe_notice_linking_the_tender_oid_merges_with_the_crawled_five_cell_tender(db, httpserver) -> None:
    created = notices_ingest(records=[doe_notice_linking(WEILHEIM_TENDER_OID)], use_fingerprint=False).created
    site = VariantSite(httpserver, LANDBW)
    run = poll(source_on(site, "vergabe-landbw"))
    assert run.status == FetchRunStatus.PARTIAL, run.error  # two rows have no detail page on the test host
    crawled = TenderSource.objects.get(source="vergabe-landbw", source_notice_id=WEILHEIM)
    assert crawled.tender_id == created[0]
    assert crawled.merge_rule == MergeRule.PORTAL_REFERENCE
    assert set(crawled.tender.sources.values_list("source", flat=True)) == {"doe", "vergabe-landbw"}
    assert f"netserver:{WEILHEIM_TENDER_OID}" in crawled.tender.portal_references
    assert Tender.objects.count() == 3


@pytest.mark.parametrize(
    ("key", "files", "expected_ids", "layout"),
    [
        ("vergabe-landbw", [LANDBW], {WEILHEIM, STREUSALZ, SUESSEN}, "table-5"),
        ("vergabe-hessen", [HESSEN, f"hessen_detail_{DARMSTADT}.html"], None, "cards"),
        ("vergabe-autobahn", ["autobahn_results_6cells_utf8.html"], None, "table-6"),
    ],
)
def test_manage_py_ingest_file_reads_each_layout(db, key, files, expected_ids, layout) -> None:
    out = StringIO()
    call_command("ingest", key, "--file", *(str(VARIANTS / f) for f in files), stdout=out)
    run = FetchRun.objects.get(source__key=key, trigger="file")
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert run.fetched >= 2 and run.fetched == run.new and run.failed == 0
    assert run.layout == layout
    stored = set(TenderSource.objects.filter(source=key).values_list("source_notice_id", flat=True))
    if expected_ids:
        assert stored == expected_ids
    if key == "vergabe-hessen":
        darmstadt = TenderSource.objects.get(source=key, source_notice_id=DARMSTADT).tender
        assert darmstadt.cpv_codes == ["90919200"] and darmstadt.legal_basis == "uvgo"
        assert darmstadt.submission_deadline.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") == "14.12.2026 23:59"
