"""DTVP's public list in the tender table: the CX id merges an entry with the DÖE notice citing it;
teasers and drift are on the run record."""

from __future__ import annotations

import pytest

from kernel.network import Fetcher
from sources.adapters.dtvp import notice_record, parse_list_page
from sources.adapters.html import parse_html
from sources.models import FetchRun, FetchRunStatus, Source
from sources.registry import validate_source_settings
from sources.services import source_poll
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.sources.adapters.test_dtvp import CATEGORY, DATA, HUMBOLDT, DtvpSite


@pytest.fixture
def site(httpserver) -> DtvpSite:
    return DtvpSite(httpserver)


@pytest.fixture
def dtvp(db, site) -> Source:
    source = Source.objects.get(key="dtvp")
    source.settings = site.settings()
    source.save()
    return source


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def test_a_list_row_and_the_doe_notice_citing_its_cx_id_are_one_tender(db) -> None:
    listing = parse_list_page(
        parse_html((DATA / "category_72000000-5_page1.html").read_bytes()),
        page_url=f"https://dtvp.de/ausschreibungen/cpv/{CATEGORY}/",
        label="page 1",
    )
    [row] = [row for row in listing.rows if row.project_id == HUMBOLDT]
    doe = eforms_record(LEGACY_EFORMS)
    assert doe.portal_references == (f"cosinex:{HUMBOLDT}",)
    notices_ingest(records=[notice_record(source="dtvp", row=row)], use_fingerprint=False)
    notices_ingest(records=[doe], use_fingerprint=False)
    assert Tender.objects.count() == 1
    doe_source = TenderSource.objects.get(source="doe")
    assert doe_source.merge_rule == MergeRule.PORTAL_REFERENCE
    assert doe_source.tender_id == TenderSource.objects.get(source="dtvp", source_notice_id=HUMBOLDT).tender_id


def test_a_poll_merges_the_entry_into_the_doe_tender_and_shows_the_teasers(dtvp) -> None:
    created = notices_ingest(records=[eforms_record(LEGACY_EFORMS)], use_fingerprint=False).created
    run = poll(dtvp)
    # Partial: the blurred teaser is named in missing (its notice was not read), never dropped silently.
    assert run.status == FetchRunStatus.PARTIAL, run.error
    assert (run.fetched, run.new) == (4, 3)
    assert any("blurred teaser" in line for line in run.missing)
    assert run.layout == "articles"
    assert run.yield_report[0]["skipped"] == {"blurred teaser (members only)": 1, "teaser without a notice link": 1}
    crawled = TenderSource.objects.get(source="dtvp", source_notice_id=HUMBOLDT)
    assert (crawled.tender_id, crawled.merge_rule) == (created[0], MergeRule.PORTAL_REFERENCE)
    assert Tender.objects.count() == 4


def test_an_unknown_layout_is_a_blocked_run_with_a_sample_never_a_crash(dtvp, site) -> None:
    site.pages[f"/ausschreibungen/cpv/{CATEGORY}/"] = "category_changed_layout.html"
    run = poll(dtvp)
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "changed_layout")
    assert run.low_yield and run.sample_page_url.endswith(f"/{CATEGORY}/")
    assert not Tender.objects.exists()


def test_the_dtvp_source_reads_the_public_list_by_default() -> None:
    # The stored DTVP Source names its Center host; on DTVP the public list is the default.
    settings = validate_source_settings(adapter="cosinex", settings={"base_url": "https://www.dtvp.de/Center"})
    assert settings["list_source"] == "auto"
    assert settings["public_list_url"] == "https://dtvp.de/ausschreibungen/cpv"
    assert CATEGORY in settings["public_categories"]
    portal = validate_source_settings(
        adapter="cosinex", settings={"base_url": "https://www.dtvp.de/Center", "list_source": "portal"}
    )
    assert "public_list_url" not in portal
    other = validate_source_settings(
        adapter="cosinex", settings={"base_url": "https://vergabe.niedersachsen.de/Satellite"}
    )
    assert "public_list_url" not in other
