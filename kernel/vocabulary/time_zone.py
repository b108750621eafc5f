"""The one time zone of German tenders: a date or time a portal writes without offset is Berlin's."""

from __future__ import annotations

from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
