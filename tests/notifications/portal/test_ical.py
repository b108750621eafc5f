"""The deadline feed: RFC 5545 escaping, folding at 75 octets, stable UIDs, growing SEQUENCE (icalendar writes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from icalendar import Calendar

from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.ical import CalendarEvent, calendar_text, event_uid, sequence_for


def test_sequence_grows_with_changed_at():
    first = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)
    assert sequence_for(first + timedelta(seconds=1)) == sequence_for(first) + 1
    assert sequence_for(datetime(2000, 1, 1, tzinfo=UTC)) == 0


def _event(**overrides) -> CalendarEvent:
    values = {
        "uid": event_uid(42, "alpha.localhost"),
        "start": datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN),
        "summary": "Frist: Straßenbau, Los 1; B 12",
        "description": "Staatliches Bauamt\nhttps://alpha.localhost/ausschreibung/42/",
        "url": "https://alpha.localhost/ausschreibung/42/",
        "location": "94032 Passau",
        "last_modified": datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN),
    }
    return CalendarEvent(**{**values, **overrides})


def test_calendar_text_is_a_valid_publish_calendar():
    now = datetime(2026, 9, 21, 6, 0, tzinfo=UTC)
    text = calendar_text(name="Tender Radar – Fristen", events=[_event()], now=now)
    assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    assert text.endswith("END:VCALENDAR\r\n")
    assert "\n" not in text.replace("\r\n", "")
    unfolded = text.replace("\r\n ", "")
    assert "UID:tender-42@alpha.localhost\r\n" in unfolded
    assert "DTSTART:20261020T100000Z\r\n" in unfolded  # 12:00 in Berlin (CEST) is 10:00 UTC
    assert "DTEND:20261020T103000Z\r\n" in unfolded
    assert "DTSTAMP:20260921T060000Z\r\n" in unfolded
    assert "LAST-MODIFIED:20260920T060000Z\r\n" in unfolded
    assert f"SEQUENCE:{sequence_for(datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN))}\r\n" in unfolded
    assert "SUMMARY:Frist: Straßenbau\\, Los 1\\; B 12\r\n" in unfolded
    assert "DESCRIPTION:Staatliches Bauamt\\nhttps://alpha.localhost/ausschreibung/42/\r\n" in unfolded
    assert unfolded.count("BEGIN:VEVENT") == 1 and unfolded.count("BEGIN:VALARM") == 1


def test_moved_deadline_keeps_uid_and_raises_sequence():
    now = datetime(2026, 9, 21, 6, 0, tzinfo=UTC)
    before = calendar_text(name="x", events=[_event()], now=now).replace("\r\n ", "")
    after = calendar_text(
        name="x",
        events=[
            _event(
                start=datetime(2026, 10, 27, 12, 0, tzinfo=BERLIN), last_modified=datetime(2026, 9, 25, tzinfo=BERLIN)
            )
        ],
        now=now,
    ).replace("\r\n ", "")

    def prop(text, name):
        return next(line.split(":", 1)[1] for line in text.split("\r\n") if line.startswith(name + ":"))

    assert prop(before, "UID") == prop(after, "UID")
    assert prop(after, "DTSTART") == "20261027T110000Z"  # CET after the clock change
    assert int(prop(after, "SEQUENCE")) > int(prop(before, "SEQUENCE"))


def test_text_is_escaped_and_control_characters_dropped():
    now = datetime(2026, 9, 21, 6, 0, tzinfo=UTC)
    event = _event(summary="a;b,c\\d bell\x07 and del\x7f gone", description="Zeile 1\r\nZeile 2\nZeile 3")
    unfolded = calendar_text(name="x", events=[event], now=now).replace("\r\n ", "")
    assert "SUMMARY:a\\;b\\,c\\\\d bell and del gone\r\n" in unfolded
    assert "DESCRIPTION:Zeile 1\\nZeile 2\\nZeile 3\r\n" in unfolded
    parsed = next(iter(Calendar.from_ical(unfolded).walk("VEVENT")))
    assert str(parsed["SUMMARY"]) == "a;b,c\\d bell and del gone"
    assert str(parsed["DESCRIPTION"]) == "Zeile 1\nZeile 2\nZeile 3"


def test_folding_never_exceeds_75_octets_nor_splits_characters():
    now = datetime(2026, 9, 21, 6, 0, tzinfo=UTC)
    summary = "Straßenbau Ü " * 20
    text = calendar_text(name="x", events=[_event(summary=summary)], now=now)
    physical = text.split("\r\n")
    assert all(len(part.encode("utf-8")) <= 75 for part in physical)
    summary_lines = [i for i, part in enumerate(physical) if part.startswith("SUMMARY:")]
    assert len(summary_lines) == 1 and physical[summary_lines[0] + 1].startswith(" ")
    parsed = next(iter(Calendar.from_ical(text).walk("VEVENT")))
    assert str(parsed["SUMMARY"]) == summary


def test_a_calendar_client_reads_every_event_back():
    now = datetime(2026, 9, 21, 6, 0, tzinfo=UTC)
    events = [_event(uid=event_uid(n, "alpha.localhost")) for n in (1, 2, 3)]
    parsed = Calendar.from_ical(calendar_text(name="Tender Radar – Fristen", events=events, now=now))
    assert str(parsed["X-WR-CALNAME"]) == "Tender Radar – Fristen"
    uids = [str(event["UID"]) for event in parsed.walk("VEVENT")]
    assert uids == ["tender-1@alpha.localhost", "tender-2@alpha.localhost", "tender-3@alpha.localhost"]
    first = next(iter(parsed.walk("VEVENT")))
    assert first.decoded("DTSTART") == datetime(2026, 10, 20, 10, 0, tzinfo=UTC)
    assert next(iter(first.walk("VALARM"))).decoded("TRIGGER") == -timedelta(days=1)
