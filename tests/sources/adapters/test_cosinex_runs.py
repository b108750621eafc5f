"""cosinex notices in the tender table: cross-portal merge, blocked runs, open data, ``ingest --file``."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from werkzeug import Response

from kernel.network import Fetcher
from sources.models import FetchRun, FetchRunStatus, Source
from sources.services import source_poll
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.sources.adapters.test_cosinex import DATA, HUMBOLDT, LIST_PAGES, CosinexSite


@pytest.fixture
def site(httpserver) -> CosinexSite:
    return CosinexSite(httpserver)


@pytest.fixture
def dtvp(db, site) -> Source:
    source = Source.objects.get(key="dtvp")
    source.settings = site.settings()
    source.save()
    return source


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def test_the_project_a_doe_notice_links_merges_into_the_same_tender(dtvp) -> None:
    doe = eforms_record(LEGACY_EFORMS)
    assert doe.portal_references == (f"cosinex:{HUMBOLDT}",)
    created = notices_ingest(records=[doe], use_fingerprint=False).created
    run = poll(dtvp)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert run.fetched == 6
    source = TenderSource.objects.get(source="dtvp", source_notice_id=HUMBOLDT)
    assert (source.tender_id, source.merge_rule) == (created[0], MergeRule.PORTAL_REFERENCE)
    assert Tender.objects.count() == 6  # five other projects, one merged
    assert all("\ufffd" not in title for title in Tender.objects.values_list("title", flat=True))


def test_manage_py_ingest_file_merges_a_saved_list_page_the_same_way(db) -> None:
    created = notices_ingest(records=[eforms_record(LEGACY_EFORMS)], use_fingerprint=False).created
    out = StringIO()
    call_command("ingest", "dtvp", "--file", str(DATA / LIST_PAGES["2"]), stdout=out)
    run = FetchRun.objects.get(source__key="dtvp", trigger="file")
    assert run.status == FetchRunStatus.SUCCEEDED and (run.fetched, run.new) == (2, 1)
    source = TenderSource.objects.get(source="dtvp", source_notice_id=HUMBOLDT)
    assert (source.tender_id, source.merge_rule) == (created[0], MergeRule.PORTAL_REFERENCE)
    assert "succeeded" in out.getvalue()


def test_a_login_redirect_blocks_the_run(dtvp, site) -> None:
    target = "/Satellite/auth/realms/dtvp/protocol/openid-connect/auth"
    site.answer("list", "1", lambda request: Response(status=302, headers={"Location": target}))
    run = poll(dtvp)
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "blocked")
    assert "openid-connect" in run.error and not Tender.objects.exists()


def test_the_open_data_export_is_polled_conditionally(dtvp, site) -> None:
    dtvp.settings = site.settings(opendata_url=site.server.url_for("/Satellite/opendata"))
    dtvp.save()
    first = poll(dtvp)
    assert first.status == FetchRunStatus.SUCCEEDED and (first.fetched, first.new) == (1, 1)
    second = poll(dtvp)
    assert (second.status, second.fetched, second.not_modified) == (FetchRunStatus.SUCCEEDED, 0, 1)
    assert site.hits[-1][2].get("If-None-Match") == '"export-1"'
    tender = TenderSource.objects.get(source="dtvp", source_notice_id="17750180").tender
    assert f"cosinex:{HUMBOLDT}" in tender.portal_references
