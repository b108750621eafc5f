"""The hand-off end to end, with real processes: manage.py, Celery workers and a Redis broker that goes away."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db.models import Count
from django_tenants.utils import schema_context

from kernel.vocabulary.statuses import TenderStatus
from notifications.models import Delivery, TenderMatch
from sources.models import FetchRun
from tenders.handoff import deltas_dispatch
from tenders.models import Tender, TenderDelta
from tests.notifications.alerts.helpers import saved_search, settle, smtp_to, user, wait_for

EXPORTS = Path(__file__).resolve().parents[2] / "data" / "doe" / "exports"
OCDS_DAY = EXPORTS / "2026-09-14_ocds.zip"

pytestmark = pytest.mark.usefixtures("committed")


def _matchable_tenders() -> set[int]:
    """Every open tender: the searches below have no filters and are active since long ago; awarded, cancelled
    and expired tenders are left out of alerts unless a search names those statuses (tenders.filters.effective_filters)."""
    return set(Tender.objects.filter(status=TenderStatus.ACTIVE).values_list("pk", flat=True))


def _matches(schema: str) -> list[tuple[int, int]]:
    with schema_context(schema):
        return list(TenderMatch.objects.values_list("saved_search_id", "tender_id"))


def test_an_ingest_from_a_management_command_reaches_matching(processes, committed_tenants):
    alpha, beta = committed_tenants
    with schema_context("alpha"):
        saved_search(user(alpha.member_email), name="alles")
    with schema_context("beta"):
        saved_search(user(beta.member_email), name="alles")
    processes.worker()

    result = processes.manage("ingest", "doe", "--file", str(OCDS_DAY))
    assert result.returncode == 0, result.stderr
    assert "succeeded" in result.stdout and "not matched" not in result.stdout + result.stderr

    expected = _matchable_tenders()
    assert expected
    for schema in ("alpha", "beta"):
        wait_for(lambda schema=schema: len(_matches(schema)) == len(expected), what=f"matches in {schema}")
        assert {tender for _search, tender in _matches(schema)} == expected
    wait_for(lambda: deltas_dispatch().completed or not TenderDelta.objects.filter(completed_at=None).exists())
    assert not TenderDelta.objects.filter(completed_at=None).exists()


def test_a_broker_down_at_commit_leaves_the_run_succeeded_and_every_match_is_made_once_later(
    processes, committed_tenants, smtp_server
):
    alpha, _beta = committed_tenants
    with schema_context("alpha"):
        smtp_to(smtp_server)
        search = saved_search(user(alpha.member_email), name="alles", instant_alert=True)

    processes.broker.stop()
    result = processes.manage("ingest", "doe", "--file", str(OCDS_DAY))
    assert result.returncode == 0, result.stderr
    run = FetchRun.objects.get(trigger="file")
    assert run.status == "succeeded" and run.new > 0
    assert TenderDelta.objects.filter(completed_at=None).count() >= 1
    assert _matches("alpha") == []

    processes.broker.start()
    processes.worker()
    # What beat's "tenders: dispatch pending deltas" does every minute; run twice, as two ticks would.
    assert "alpha" in deltas_dispatch().sent
    deltas_dispatch()
    expected = _matchable_tenders()
    wait_for(lambda: len(_matches("alpha")) == len(expected), what="matches after the broker came back")
    settle("alpha")
    deltas_dispatch()  # a third dispatch finds alpha done
    settle("alpha")

    with schema_context("alpha"):
        duplicates = TenderMatch.objects.values("saved_search", "tender").annotate(n=Count("id")).filter(n__gt=1)
        assert not duplicates.exists()
        assert {tender for _search, tender in _matches("alpha")} == expected
        assert Delivery.objects.filter(saved_search=search).count() == 1
    assert len(smtp_server.messages) == 1
