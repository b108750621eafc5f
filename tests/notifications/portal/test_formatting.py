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


def test_deadline_wording_follows_the_language_it_is_asked_in_each_time():
    # The wording is kept per language and day count: a German page after an English one stays German.
    deadline = datetime(2026, 12, 5, 12, 0, tzinfo=BERLIN)
    for language, expected in [("en", "in 5 days"), ("de", "in 5 Tagen"), ("en", "in 5 days")]:
        with translation.override(language):
            assert deadline_distance(deadline, now=NOW).text == expected
    with translation.override("en"):
        assert deadline_distance(NOW - timedelta(days=3), now=NOW).text == "expired"
    with translation.override("de"):
        assert deadline_distance(NOW - timedelta(days=3), now=NOW).text == "abgelaufen"


def test_amounts_are_written_as_djangos_number_format_writes_them():
    from django.utils.formats import number_format
    from django.utils.html import format_html

    from notifications.templatetags.portal_format import money

    def django_money(value, currency):
        amount = Decimal(str(value))
        places = 0 if amount == amount.to_integral_value() else 2
        number = number_format(amount, decimal_pos=places, use_l10n=True, force_grouping=True)
        symbol = {"EUR": "€"}.get(currency.upper())
        english = symbol and translation.get_language().startswith("en")
        text = f"{symbol}{number}" if english else f"{number} {symbol or currency.upper()}"
        return format_html('<span class="amount">{}</span>', text)

    values = [0, 7, 999, 1000, 1200000, Decimal("1234567.891"), Decimal("0.004"), Decimal("-2500.5"), 10**15, 12.5]
    for language in ("de", "en", "de"):
        with translation.override(language):
            for value in values:
                for currency in ("EUR", "chf", "<b>&"):
                    assert money(value, currency) == django_money(value, currency), (language, value, currency)
    with translation.override("en"):
        assert money(Decimal("1234567.5")) == '<span class="amount">€1,234,567.50</span>'


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


def test_iso_durations_in_words_in_both_languages():
    from notifications.portal.formatting import duration_text

    with translation.override("de"):
        assert duration_text("P48M") == "48 Monate"
        assert duration_text("P540D") == "540 Tage"
        assert duration_text("P4Y") == "4 Jahre"
        assert duration_text("P2Y6M") == "2 Jahre 6 Monate"
        assert duration_text("P1Y1M1D") == "1 Jahr 1 Monat 1 Tag"
        assert duration_text("p3w") == "3 Wochen"
        assert duration_text("PT36H") == "36 Stunden"
    with translation.override("en"):
        assert duration_text("P48M") == "48 months"
        assert duration_text("P540D") == "540 days"
        assert duration_text("P2Y6M") == "2 years 6 months"
        assert duration_text("P1Y") == "1 year"


def test_durations_that_are_no_iso_duration_stay_as_they_came():
    from notifications.portal.formatting import duration_text

    assert duration_text("48 Monate") == "48 Monate"
    assert duration_text("") == duration_text(None) == duration_text("P0D") == ""
    assert duration_text("P") == "P"  # not a duration: no designator at all


def test_vocabulary_labels_in_the_active_language():
    from notifications.portal.formatting import contract_nature_text, deadline_text, legal_basis_text

    with translation.override("de"):
        assert legal_basis_text("eu-2014-24") == "Richtlinie 2014/24/EU"
        assert legal_basis_text("vgv") == "VgV"
        assert contract_nature_text("works") == "Bauleistung"
        assert deadline_text("teilnahmefrist") == "Teilnahmefrist"
    with translation.override("en"):
        assert legal_basis_text("eu-2014-24") == "Directive 2014/24/EU"
        assert legal_basis_text("eu-2009-81") == "Directive 2009/81/EC"
        assert legal_basis_text("vob-a-eu") == "VOB/A-EU"  # a name, the same in English
        assert contract_nature_text("services") == "Services"
        assert deadline_text("angebotsfrist") == "Submission deadline"
        assert legal_basis_text("") == contract_nature_text("") == deadline_text("") == ""


def test_notices_are_named_by_publication_number_never_by_uuid():
    from notifications.portal.formatting import notice_text

    uuid = "3f6f1c1e-9d2b-4c57-8a4e-0b1f2c3d4e5f"
    assert notice_text(uuid, "615938-2024") == "615938-2024"
    assert notice_text(uuid) == ""
    assert notice_text(f"{uuid}-01") == ""
    assert notice_text("CXP4Y9PRGS5") == "CXP4Y9PRGS5"


def test_portal_references_name_their_portal():
    from notifications.portal.formatting import portal_references_shown

    with translation.override("de"):
        shown = portal_references_shown(["netserver:54321-Tender-18c", "cosinex:CXP4Y9PRGS5", "broken"])
    assert shown == [
        {"portal": "Vergabeplattform Vergabe@Net (NetServer)", "id": "54321-Tender-18c"},
        {"portal": "Vergabemarktplatz (cosinex)", "id": "CXP4Y9PRGS5"},
    ]


def test_english_dates_are_british_and_on_the_24_hour_clock():
    from django.utils.formats import date_format

    from notifications.templatetags.portal_format import when

    day = date(2026, 12, 6)
    moment = datetime(2026, 12, 6, 16, 30, tzinfo=BERLIN)
    with translation.override("en"):
        assert date_format(day, "SHORT_DATE_FORMAT") == "06/12/2026"
        assert date_format(day, "DATE_FORMAT") == "6 Dec 2026"
        assert when(moment) == "06/12/2026 16:30"
        assert when(day) == "06/12/2026"
    with translation.override("de"):
        assert date_format(day, "SHORT_DATE_FORMAT") == "06.12.2026"
        assert when(moment) == "06.12.2026 16:30"


def test_a_moved_deadline_of_the_list_is_one_dated_line_and_the_tenders_own_fields_are_not_repeated():
    before = [
        {"kind": "teilnahmefrist", "at": "2026-10-01T12:00:00+02:00", "lot_id": ""},
        {"kind": "angebotsfrist", "at": "2026-10-20T12:00:00+02:00", "lot_id": ""},
        {"kind": "fragenfrist", "at": "2026-09-20T12:00:00+02:00", "lot_id": "LOT-0002"},
    ]
    after = [
        {"kind": "teilnahmefrist", "at": "2026-10-08T12:00:00+02:00", "lot_id": ""},
        {"kind": "angebotsfrist", "at": "2026-10-27T12:00:00+01:00", "lot_id": ""},
    ]
    changes = {"submission_deadline": [before[1]["at"], after[1]["at"]], "deadlines": [before, after]}
    with translation.override("de"):
        lines = [(line.field, line.label, line.kind, line.old, line.new) for line in change_lines(changes)]
    assert lines == [
        (
            "submission_deadline",
            "Angebotsfrist",
            "datetime",
            datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN),
            datetime(2026, 10, 27, 12, 0, tzinfo=BERLIN),
        ),
        (
            "deadlines",
            "Teilnahmefrist",
            "datetime",
            datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN),
            datetime(2026, 10, 8, 12, 0, tzinfo=BERLIN),
        ),
        ("deadlines", "Fragenfrist (LOT-0002)", "datetime", datetime(2026, 9, 20, 12, 0, tzinfo=BERLIN), None),
    ]
    assert change_lines({"deadlines": ["kaputt", [{"kind": "teilnahmefrist", "at": "nie"}, "x"]]}) == []


def test_a_moved_contract_start_is_a_date_not_iso_text():
    from datetime import date

    from notifications.portal.formatting import change_lines

    [line] = change_lines({"contract_start": ["2026-10-01", "2026-11-15"]})
    assert (line.label, line.kind, line.old, line.new) == (
        "Ausführungsbeginn",
        "datetime",
        date(2026, 10, 1),
        date(2026, 11, 15),
    )
    [broken] = change_lines({"contract_start": ["demnächst", None]})
    assert (broken.kind, broken.old, broken.new) == ("text", "demnächst", None)
