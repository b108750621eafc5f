"""The operator console shows, per source, the list layout last seen and the yield of recent runs."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from sources.models import FetchRun, Source
from sources.selectors import source_health_list


def page(rows_seen: int, parsed: int, layout: str) -> dict:
    return {"page": "p", "layout": layout, "rows_seen": rows_seen, "parsed": parsed, "rejected": {}}


def test_layout_last_seen_and_recent_yields_per_source(operator_client, django_assert_max_num_queries):
    source = Source.objects.get(key="vergabe-landbw")
    now = timezone.now()
    FetchRun.objects.create(
        source=source, started_at=now - timedelta(hours=3), status="succeeded", fetched=50, layout="table-6",
        yield_report=[page(25, 25, "table-6"), page(25, 25, "table-6")],
    )  # fmt: skip
    FetchRun.objects.create(
        source=source, started_at=now - timedelta(hours=2), status="blocked", error_reason="changed_layout",
        layout="table-5", yield_report=[page(25, 0, "table-5")], sample_page=b"<html>",
    )  # fmt: skip
    FetchRun.objects.create(
        source=source, started_at=now - timedelta(hours=1), status="blocked", error_reason="blocked"
    )
    with django_assert_max_num_queries(1):
        health = source_health_list().get(key="vergabe-landbw")
        assert health.last_layout == "table-5"
        assert [(r["status"], r["layout"]) for r in health.recent_yields] == [
            ("blocked", ""),
            ("blocked", "table-5"),
            ("succeeded", "table-6"),
        ]
    listing = operator_client.get("/admin/sources/source/").content.decode()
    assert "Layout zuletzt" in listing and "Tabelle, 5 Spalten" in listing
    assert "0/25 (blockiert)" in listing and "50/50 (erfolgreich)" in listing  # states in German words
    run = FetchRun.objects.get(source=source, error_reason="changed_layout")
    detail = operator_client.get(f"/admin/sources/fetchrun/{run.pk}/change/").content.decode()
    assert "&lt;html&gt;" in detail  # the sample page, escaped


def test_the_browser_only_state_is_shown_in_words(operator_client):
    source = Source.objects.get(key="dtvp")
    FetchRun.objects.create(
        source=source, started_at=timezone.now(), status="blocked", error_reason="browser_only", error="kein Token"
    )
    listing = operator_client.get("/admin/sources/source/").content.decode()
    assert "nicht unterstützt: Ergebnisliste nur im Browser" in listing


def test_mailboxes_whose_latest_check_failed_are_named_on_the_mail_source(
    operator_client, django_assert_max_num_queries
):
    mail = Source.objects.get(key="mail")
    now = timezone.now()

    def check(scope: str, status: str, minutes_ago: int) -> None:
        FetchRun.objects.create(
            source=mail, trigger="mailbox", scope=scope, status=status, started_at=now - timedelta(minutes=minutes_ago)
        )

    check("alpha", "failed", 30)
    check("alpha", "succeeded", 20)  # alpha recovered
    check("beta", "succeeded", 15)
    check("beta", "failed", 10)  # beta's latest check failed
    check("beta", "running", 1)  # a check under way does not hide the failure
    check("gamma", "failed", 8)  # a tenant deleted since: no longer checked, not listed
    check("delta", "succeeded", 5)  # the newest run of the source is fine
    with django_assert_max_num_queries(1):
        health = source_health_list().get(key="mail")
        assert health.last_run_status == "succeeded"
        assert health.failing_mailboxes == ["beta"]
    listing = operator_client.get("/admin/sources/source/").content.decode()
    assert "Postfach fehlerhaft: beta" in listing and "gamma" not in listing
