"""Pure presentation rules: deadline wording, change history, chart geometry, link safety, filter summary."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from django.utils import translation

from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.formatting import (
    change_lines,
    daily_chart,
    deadline_distance,
    external_url,
    filters_summary,
    notice_kind_label,
)
from tenders.filters import TenderFilters

NOW = datetime(2026, 11, 30, 22, 30, tzinfo=BERLIN)


def test_deadline_distance_counts_berlin_calendar_days():
    with translation.override("de"):
        assert deadline_distance(NOW + timedelta(minutes=20), now=NOW).text == "heute"
        # 01:00 the next day is "morgen" although fewer than 24 hours away.
        assert deadline_distance(datetime(2026, 12, 1, 1, 0, tzinfo=BERLIN), now=NOW).text == "morgen"
        later = deadline_distance(datetime(2026, 12, 5, 12, 0, tzinfo=BERLIN), now=NOW)
        assert (later.text, later.urgency) == ("in 5 Tagen", "soon")
        assert deadline_distance(NOW + timedelta(days=2), now=NOW).urgency == "urgent"
        assert deadline_distance(NOW + timedelta(days=30), now=NOW).urgency == "later"
        past = deadline_distance(NOW - timedelta(minutes=1), now=NOW)
        assert (past.text, past.urgency) == ("abgelaufen", "past")
    assert deadline_distance(None, now=NOW) is None


def test_deadline_distance_in_english():
    with translation.override("en"):
        assert deadline_distance(datetime(2026, 12, 5, 12, 0, tzinfo=BERLIN), now=NOW).text == "in 5 days"
        assert deadline_distance(datetime(2026, 12, 1, 9, 0, tzinfo=BERLIN), now=NOW).text == "tomorrow"


def test_change_lines_label_and_type_values():
    changes = {
        "submission_deadline": ["2026-10-20T12:00:00+02:00", "2026-10-27T12:00:00+01:00"],
        "estimated_value": ["100000", "120000.50"],
        "status": ["active", "cancelled"],
        "title": ["Alt", "Neu"],
    }
    with translation.override("de"):
        lines = {line.field: line for line in change_lines(changes)}
    assert lines["submission_deadline"].kind == "datetime"
    assert lines["submission_deadline"].new == datetime(2026, 10, 27, 12, 0, tzinfo=BERLIN)
    assert lines["submission_deadline"].label == "Angebotsfrist"
    assert (lines["estimated_value"].kind, lines["estimated_value"].new) == ("money", Decimal("120000.50"))
    assert (lines["status"].old, lines["status"].new) == ("laufend", "aufgehoben")
    assert (lines["title"].kind, lines["title"].new) == ("text", "Neu")


def test_change_lines_survive_malformed_history():
    lines = change_lines({"submission_deadline": ["kaputt", None], "title": "not a pair", "x": [1, 2, 3]})
    assert [(line.field, line.kind, line.old) for line in lines] == [("submission_deadline", "text", "kaputt")]
    assert change_lines(None) == []


def test_notice_kind_labels():
    with translation.override("de"):
        assert notice_kind_label("change") == "Änderungsbekanntmachung"
        assert notice_kind_label("something-new") == "something-new"


def test_every_procedure_type_has_a_translatable_label_equal_to_the_shared_one():
    from kernel.vocabulary.procedures import PROCEDURE_TYPES
    from notifications.portal.formatting import PROCEDURE_TYPE_LABELS, procedure_type_text

    assert set(PROCEDURE_TYPE_LABELS) == set(PROCEDURE_TYPES)
    with translation.override("de"):
        assert {code: str(label) for code, label in PROCEDURE_TYPE_LABELS.items()} == PROCEDURE_TYPES
    with translation.override("en"):
        assert procedure_type_text("open") == "Open procedure"
        assert procedure_type_text("") == ""


def test_external_url_allows_only_absolute_http_links():
    assert (
        external_url("https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5")
        == "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5"
    )
    assert external_url("http://example.org/x") == "http://example.org/x"
    for hostile in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,x",
        "//evil.example",
        "/relative",
        "",
        None,
    ):
        assert external_url(hostile) == ""


def test_daily_chart_fills_missing_days_and_scales_to_the_peak():
    end = date(2026, 11, 29)
    chart = daily_chart({end: 10, end - timedelta(days=1): 5, end - timedelta(days=40): 99}, end=end, days=30)
    assert len(chart.bars) == 30
    assert chart.bars[0].day == end - timedelta(days=29) and chart.bars[-1].day == end
    assert (chart.max_count, chart.total) == (10, 15)
    assert chart.bars[-1].height == chart.height and chart.bars[-1].y == 0
    assert chart.bars[-2].height == chart.height / 2
    assert chart.bars[0].height == 0 and chart.bars[0].y == chart.height
    assert chart.bars[1].x > chart.bars[0].x
    assert chart.bars[-1].x + chart.bars[-1].width <= chart.width


def test_daily_chart_keeps_small_days_visible_and_handles_no_data():
    end = date(2026, 11, 29)
    chart = daily_chart({end: 1000, end - timedelta(days=3): 1}, end=end, days=30)
    assert chart.bars[-4].height >= 1
    empty = daily_chart({}, end=end)
    assert empty.total == 0 and all(bar.height == 0 for bar in empty.bars)


def test_filters_summary_is_readable():
    filters = TenderFilters(
        q="Straßenbau",
        cpv=("45", "90911200", "4521"),
        bundesland=("Bayern", "Hessen"),
        status=("active",),
        published_since=date(2026, 9, 1),
    )
    with translation.override("de"):
        summary = dict(filters_summary(filters))
    assert summary == {
        "Suchbegriffe": "Straßenbau",
        "CPV": "45 – Bauarbeiten; 90911200 – Gebäudereinigung; 4521 – Bauleistungen im Hochbau",
        "Bundesland": "Bayern, Hessen",
        "Veröffentlicht seit": "01.09.2026",
        "Status": "laufend",
    }


def test_filters_summary_names_kreise_and_says_the_radius_in_one_line():
    filters = TenderFilters(kreis=("09162", "09184"), umkreis_plz="70173", umkreis_km=80)
    with translation.override("de"):
        summary = filters_summary(filters)
    assert summary == [
        ("Kreis", "München, Kreisfreie Stadt; München, Landkreis"),
        ("Umkreis", "80 km um PLZ 70173"),
    ]
