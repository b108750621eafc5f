"""One German name per run code and one tone per meaning (sources.run_words)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from sources.run_words import (
    REASON_LABELS,
    reason_label,
    run_state_text,
    run_tone,
    status_label,
    trigger_label,
    yield_lines,
)
from tests.config.architecture import BASE_DIR


@pytest.fixture(autouse=True)
def _german():
    # The state words are the models' (gettext_lazy); the console and the operator digest are German.
    with translation.override("de"):
        yield


def test_tones_mean_the_same_everywhere():
    assert run_tone("succeeded") == "ok"
    assert run_tone("succeeded", low_yield=True) == "warn"  # a low yield is never green
    assert run_tone("partial") == "warn"
    assert run_tone("failed", low_yield=True) == run_tone("blocked") == "bad"
    assert run_tone("running") == run_tone("skipped") == run_tone(None) == "none"


def test_codes_become_words_and_unknown_ones_stay_visible():
    assert trigger_label("file") == "Datei (ingest --file)" and trigger_label("manual").startswith("von Hand")
    assert reason_label("dns") == "Servername nicht auflösbar (DNS)"
    assert reason_label("http_503") == "HTTP-Fehler 503 vom Server"
    assert reason_label("something_new") == "something_new" and reason_label("") == ""
    assert status_label("blocked") == "blockiert" and status_label(None) == "—"


def test_a_state_reads_as_one_phrase():
    assert run_state_text("failed", "dns") == "fehlgeschlagen: Servername nicht auflösbar (DNS)"
    assert run_state_text("blocked", "changed_layout") == "Layout geändert: Ergebniszeilen nicht mehr lesbar"
    assert run_state_text("succeeded", "", low_yield=True) == "erfolgreich · wenig Treffer"
    assert run_state_text(None) == "—"


def test_yield_lines_count_rows_read_and_rejected_per_page():
    report = [
        {"page": "a", "layout": "table-6", "rows_seen": 16, "parsed": 16},
        {"page": "b", "layout": "json", "rows_seen": 5, "parsed": 3, "details_pending": 2, "skipped": {"blurred": 4}},
    ]
    assert yield_lines(report) == [
        "Seite 1 (Tabelle, 6 Spalten): 16 Zeilen, 16 gelesen",
        "Seite 2 (JSON-Antwort): 5 Zeilen, 3 gelesen, 2 abgelehnt, 2 Detailseiten beim nächsten Lauf, "
        "4 absichtlich übergangen",
    ]
    assert yield_lines(None) == []


def test_every_reason_code_a_run_can_record_has_german_words():
    """A new ``reason="…"`` in the fetcher, an adapter or a service must get its words, or the console shows a code."""
    stated = re.compile(r"\b(?:error_)?reason\s*(?::\s*str\s*)?=\s*\"([a-z_]+)\"")
    codes = {
        code
        for package in ("kernel", "sources")
        for path in (BASE_DIR / package).rglob("*.py")
        if "migrations" not in path.parts
        for code in stated.findall(path.read_text(encoding="utf-8"))
    }
    assert {"dns", "fetch_error", "overlap", "bad_zip"} <= codes  # the scan finds the codes where they are written
    assert sorted(codes - REASON_LABELS.keys()) == []
