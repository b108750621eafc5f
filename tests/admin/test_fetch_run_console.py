"""Fetch runs in the console: codes in German words, yields as lines, one colour per meaning, a clear "fetch now"."""

from __future__ import annotations

import re

from django.utils import timezone

from sources.models import FetchRun, Source

RAW_CODES = (">file<", ">manual<", ">dns<", "changed_layout", "browser_only", ">table-6<", '"rows_seen"', "rows seen")


def _badges(html: str) -> list[tuple[str, str]]:
    return re.findall(r'class="run-badge tone-(\w+)"[^>]*>([^<]*)<', html)


def test_the_run_list_names_triggers_reasons_and_layouts_in_german(operator_client):
    doe = Source.objects.get(key="doe")
    now = timezone.now()
    FetchRun.objects.create(source=doe, started_at=now, trigger="file", status="failed", error_reason="dns")
    FetchRun.objects.create(
        source=doe, started_at=now, trigger="manual", status="blocked", error_reason="changed_layout", layout="table-6"
    )
    FetchRun.objects.create(source=doe, started_at=now, status="succeeded", low_yield=True)
    FetchRun.objects.create(source=doe, started_at=now, status="succeeded")
    listing = operator_client.get("/admin/sources/fetchrun/").content.decode()
    for words in ("Datei (ingest --file)", "von Hand („Jetzt abrufen“)", "Zeitplan", "Tabelle, 6 Spalten"):
        assert words in listing, words
    for code in RAW_CODES:
        assert code not in listing, code
    badges = _badges(listing)
    assert ("bad", "fehlgeschlagen: Servername nicht auflösbar (DNS)") in badges
    assert ("bad", "Layout geändert: Ergebniszeilen nicht mehr lesbar") in badges
    # A low yield is amber wherever it shows, never a green tick; a plain success is green.
    assert ("warn", "erfolgreich · wenig Treffer") in badges and ("warn", "wenig Treffer") in badges
    assert ("ok", "erfolgreich") in badges
    assert "icon-yes.svg" not in listing.split('id="result_list"', 1)[1]
    # The filters offer words too (fixed choices, no DISTINCT over every run).
    assert 'href="?trigger=file"' in listing and "Nachholen früherer Tage" in listing


def test_a_runs_page_shows_its_yield_per_page_as_lines_and_the_problem_in_words(operator_client):
    run = FetchRun.objects.create(
        source=Source.objects.get(key="tender24"),
        started_at=timezone.now(),
        status="blocked",
        error_reason="changed_layout",
        error="Layout geändert auf https://tender24.example/list: 16 Ergebniszeilen gesehen, keine lesbar",
        layout="cards",
        yield_report=[
            {"page": "https://tender24.example/list?p=1", "layout": "table-6", "rows_seen": 16, "parsed": 16},
            {"page": "https://tender24.example/list?p=2", "layout": "cards", "rows_seen": 16, "parsed": 0,
             "rejected": {"no title cell among 5 cells": 16}},
        ],
        missing=["Seite 3 nicht erreicht"],
    )  # fmt: skip
    detail = operator_client.get(f"/admin/sources/fetchrun/{run.pk}/change/").content.decode()
    assert "Seite 1 (Tabelle, 6 Spalten): 16 Zeilen, 16 gelesen" in detail
    assert "Seite 2 (Karten): 16 Zeilen, 0 gelesen, 16 abgelehnt" in detail
    assert "Ursache" in detail and "Layout geändert: Ergebniszeilen nicht mehr lesbar" in detail
    assert "Technische Meldung" in detail and "16 Ergebniszeilen gesehen, keine lesbar" in detail
    assert "<li>Seite 3 nicht erreicht</li>" in detail
    for code in RAW_CODES:
        assert code not in detail, code


def test_fetch_now_is_a_styled_button_and_confirms_in_german(operator_client, django_capture_on_commit_callbacks):
    source = Source.objects.get(key="doe")
    page = operator_client.get(f"/admin/sources/source/{source.pk}/change/").content.decode()
    assert '<button type="submit" class="fetch-now-button">Jetzt abrufen</button>' in page
    with django_capture_on_commit_callbacks(execute=False):
        answer = operator_client.post(f"/admin/sources/source/{source.pk}/jetzt-abrufen/", follow=True)
    html = answer.content.decode()
    assert f"Abruf von {source.name} eingeplant." in html and "Abruf ansehen" in html
    assert "zum Abruf" not in html
    with django_capture_on_commit_callbacks(execute=False):
        FetchRun.objects.filter(source=source).update(status="succeeded")
        listing = operator_client.post(
            "/admin/sources/source/", {"action": "fetch_now", "_selected_action": [source.pk]}, follow=True
        ).content.decode()
    assert re.search(r"Abruf von <a [^>]*>DÖE[^<]*</a> eingeplant\.", listing)
