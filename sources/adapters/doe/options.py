"""DÖE adapter settings and the choice of export days.

Why separate: both are pure (no HTTP, no ZIP) and carry the rules that are easy to get
wrong - which host we may talk to, and which days are closed.

Days: the service exports notices "published at or after 00:00 on pubDay and before 00:00
of the following day, Europe/Berlin" and answers 400 for today, future days and days
before 2022-12-01. A day is therefore fetched only once it is over in Berlin: the newest
day is yesterday relative to ``now`` in Europe/Berlin, whatever the server's time zone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlencode

from pydantic import Field

from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import AdapterError
from sources.adapters.settings import AdapterSettings, Day, TextDigits, Url

DEFAULT_BASE_URL = "https://oeffentlichevergabe.de"
EXPORT_PATH = "/api/notice-exports"
# OCDS first: it is smaller, and a server that fails on it saves us the big eForms download.
EXPORT_FORMATS = ("ocds.zip", "eforms.zip")
FIRST_EXPORT_DAY = date(2022, 12, 1)  # the service answers 400 for earlier pubDay values
DEFAULT_MAX_DAYS = 3
BaseUrl = Url(base=True, example=DEFAULT_BASE_URL)
StartDay = Day(earliest=FIRST_EXPORT_DAY, reason="erster Tag, den DÖE exportiert")


class DoeSettings(AdapterSettings):
    """``base_url`` on an allowed host (no trailing slash, no query or fragment: the export path and
    query are appended), ``max_days_per_run`` and, when given, ``start_day``."""

    base_url: BaseUrl = DEFAULT_BASE_URL
    start_day: StartDay = None
    max_days_per_run: Annotated[int, TextDigits, Field(ge=1, le=31)] = DEFAULT_MAX_DAYS


def days_to_fetch(
    *, now: datetime, cursor: Mapping[str, Any] | None, start_day: date | None, max_days: int
) -> list[date]:
    """The closed days to fetch this run, oldest first; empty when up to date.

    Starts the day after the cursor's ``last_day``, else at ``start_day``, else yesterday;
    ends at yesterday in Europe/Berlin or after ``max_days`` days. Raises AdapterError
    (reason "bad_cursor") for a cursor whose ``last_day`` is no ISO date: guessing would
    skip or repeat days silently.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    newest = now.astimezone(BERLIN).date() - timedelta(days=1)
    last_day = (cursor or {}).get("last_day")
    if last_day:
        try:
            first = date.fromisoformat(str(last_day)) + timedelta(days=1)
        except ValueError:
            raise AdapterError(
                f"DÖE cursor last_day {last_day!r} is no ISO date (YYYY-MM-DD)", reason="bad_cursor"
            ) from None
    else:
        first = start_day or newest
    first = max(first, FIRST_EXPORT_DAY)
    count = max(0, min(max_days, (newest - first).days + 1))
    return [first + timedelta(days=offset) for offset in range(count)]


def export_url(base_url: str, day: date, export_format: str) -> str:
    """``<base>/api/notice-exports?pubDay=YYYY-MM-DD&format=<ocds.zip|eforms.zip>``."""
    query = urlencode({"pubDay": day.isoformat(), "format": export_format})
    return f"{base_url.rstrip('/')}{EXPORT_PATH}?{query}"
