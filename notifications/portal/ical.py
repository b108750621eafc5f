"""iCalendar (RFC 5545) feed of deadlines, written with the ``icalendar`` library.

The library does the format (TEXT escaping, UTC date-times, folding at 75 octets without
splitting a UTF-8 character, CRLF); this module decides the content. Each tender is one
VEVENT with a stable UID (``tender-<id>@<host>``) and a SEQUENCE derived from the tender's
``changed_at``, so when a deadline moves the calendar client updates the existing event
instead of adding a second one. Times are written in UTC, so no VTIMEZONE is needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from icalendar import Alarm, Calendar, Event

PRODUCT_ID = "-//Tender Radar//Fristen//DE"
EVENT_LENGTH = timedelta(minutes=30)
REMINDER_BEFORE = timedelta(days=1)
REFRESH_INTERVAL = timedelta(hours=6)
_SEQUENCE_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    start: datetime  # aware
    summary: str
    description: str
    url: str
    location: str
    last_modified: datetime  # aware
    # The person's alarm choice (their reminder days); empty: one alarm REMINDER_BEFORE.
    alarms: tuple[timedelta, ...] = ()


def event_uid(tender_id: int, host: str) -> str:
    return f"tender-{tender_id}@{host}"


def card_item_uid(card_id: int, item_key: str, host: str) -> str:
    """One event per dated item of a card; stable when the deadline moves (the event moves, it is not added)."""
    return f"card-{card_id}-{item_key}@{host}"


def sequence_for(changed_at: datetime) -> int:
    """A non-negative integer that grows with every change of the tender (seconds since 2020)."""
    return max(0, int((changed_at - _SEQUENCE_EPOCH).total_seconds()))


def plain_text(value: str) -> str:
    """Scraped text without the control characters RFC 5545 TEXT forbids (newlines and tabs stay).

    The library escapes what TEXT allows (backslash, semicolon, comma, newline) but passes other
    control characters through, which would break the feed for strict clients.
    """
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(ch for ch in value if ch in "\t\n" or ord(ch) >= 32 and ord(ch) != 127)


def _event(event: CalendarEvent, *, stamp: datetime) -> Event:
    component = Event()
    component.add("uid", plain_text(event.uid))
    component.add("dtstamp", stamp.astimezone(UTC))
    component.add("dtstart", event.start.astimezone(UTC))
    component.add("dtend", (event.start + EVENT_LENGTH).astimezone(UTC))
    component.add("last-modified", event.last_modified.astimezone(UTC))
    component.add("sequence", sequence_for(event.last_modified))
    component.add("summary", plain_text(event.summary))
    if event.description:
        component.add("description", plain_text(event.description))
    if event.location:
        component.add("location", plain_text(event.location))
    if event.url:
        component.add("url", event.url)
    for before in event.alarms or (REMINDER_BEFORE,):
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("trigger", -before)
        alarm.add("description", plain_text(event.summary))
        component.add_component(alarm)
    return component


def calendar_text(*, name: str, events: Iterable[CalendarEvent], now: datetime) -> str:
    """The whole VCALENDAR with CRLF line endings."""
    calendar = Calendar()
    calendar.add("version", "2.0")
    calendar.add("prodid", PRODUCT_ID)
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", plain_text(name))
    calendar.add("x-wr-timezone", "Europe/Berlin")
    calendar.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
    for event in events:
        calendar.add_component(_event(event, stamp=now))
    return calendar.to_ical().decode("utf-8")
