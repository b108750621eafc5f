"""iCalendar (RFC 5545) text for the deadline feed, written by hand: escaping, UTC times, line folding.

Each tender is one VEVENT with a stable UID (``tender-<id>@<host>``) and a
SEQUENCE derived from the tender's ``changed_at``, so when a deadline moves the
calendar client updates the existing event instead of adding a second one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

PRODUCT_ID = "-//Tender Radar//Fristen//DE"
EVENT_LENGTH = timedelta(minutes=30)
_SEQUENCE_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
_MAX_OCTETS = 75


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    start: datetime  # aware
    summary: str
    description: str
    url: str
    location: str
    last_modified: datetime  # aware


def event_uid(tender_id: int, host: str) -> str:
    return f"tender-{tender_id}@{host}"


def sequence_for(changed_at: datetime) -> int:
    """A non-negative integer that grows with every change of the tender (seconds since 2020)."""
    return max(0, int((changed_at - _SEQUENCE_EPOCH).total_seconds()))


def escape_text(value: str) -> str:
    """TEXT value escaping (RFC 5545 §3.3.11): backslash, semicolon, comma, newlines."""
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    # Other control characters are not allowed in TEXT; drop them rather than break the feed.
    return "".join(ch for ch in value if ch == "\t" or ord(ch) >= 32 and ord(ch) != 127)


def fold_line(line: str) -> str:
    """Fold a content line into chunks of at most 75 octets (RFC 5545 §3.1), never splitting a UTF-8 character."""
    chunks: list[str] = []
    current, size = "", 0
    limit = _MAX_OCTETS
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            chunks.append(current)
            current, size = "", 0
            limit = _MAX_OCTETS - 1  # continuation lines start with one space
        current += char
        size += width
    chunks.append(current)
    return "\r\n ".join(chunks)


def _utc(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _event_lines(event: CalendarEvent, *, stamp: datetime) -> list[str]:
    lines = [
        "BEGIN:VEVENT",
        f"UID:{escape_text(event.uid)}",
        f"DTSTAMP:{_utc(stamp)}",
        f"DTSTART:{_utc(event.start)}",
        f"DTEND:{_utc(event.start + EVENT_LENGTH)}",
        f"LAST-MODIFIED:{_utc(event.last_modified)}",
        f"SEQUENCE:{sequence_for(event.last_modified)}",
        f"SUMMARY:{escape_text(event.summary)}",
    ]
    if event.description:
        lines.append(f"DESCRIPTION:{escape_text(event.description)}")
    if event.location:
        lines.append(f"LOCATION:{escape_text(event.location)}")
    if event.url:
        lines.append(f"URL:{event.url}")
    lines += [
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "TRIGGER:-P1D",
        f"DESCRIPTION:{escape_text(event.summary)}",
        "END:VALARM",
        "END:VEVENT",
    ]
    return lines


def calendar_text(*, name: str, events: Iterable[CalendarEvent], now: datetime) -> str:
    """The whole VCALENDAR with CRLF line endings."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODUCT_ID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape_text(name)}",
        "X-WR-TIMEZONE:Europe/Berlin",
        "REFRESH-INTERVAL;VALUE=DURATION:PT6H",
    ]
    for event in events:
        lines += _event_lines(event, stamp=now)
    lines.append("END:VCALENDAR")
    return "".join(fold_line(line) + "\r\n" for line in lines)
