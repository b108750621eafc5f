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
from typing import Any
from urllib.parse import urlencode, urlsplit

from sources.adapters.base import AdapterError
from sources.fetching.policy import normalise_host
from sources.normalise import BERLIN

DEFAULT_BASE_URL = "https://oeffentlichevergabe.de"
EXPORT_PATH = "/api/notice-exports"
# OCDS first: it is smaller, and a server that fails on it saves us the big eForms download.
EXPORT_FORMATS = ("ocds.zip", "eforms.zip")
FIRST_EXPORT_DAY = date(2022, 12, 1)  # the service answers 400 for earlier pubDay values
DEFAULT_MAX_DAYS = 3
MAX_DAYS_RANGE = (1, 31)
KNOWN_SETTINGS = frozenset({"base_url", "start_day", "max_days_per_run", "allowed_hosts"})
# Plain http is tolerated only for these (local test servers); production fetchers refuse loopback anyway.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def validate_doe_settings(settings: Mapping[str, Any], *, known_hosts: tuple[str, ...]) -> dict[str, Any]:
    """Normalised settings (JSON-serialisable), or a list of all errors, each naming its setting.

    Returns ``base_url`` (no trailing slash), ``max_days_per_run`` and, when given,
    ``start_day`` (ISO string) and ``allowed_hosts``. Raises ``ValueError`` with the list of
    messages as ``args[0]``; the adapter turns it into a Django ``ValidationError``.
    """
    errors: list[str] = []
    unknown = sorted(str(key) for key in settings if key not in KNOWN_SETTINGS)
    if unknown:
        errors.append(f"Unknown DÖE setting(s): {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_SETTINGS))}.")
    result: dict[str, Any] = {}
    hosts = _allowed_hosts(settings.get("allowed_hosts"), errors)
    if hosts:
        result["allowed_hosts"] = hosts
    result["base_url"] = _base_url(settings.get("base_url", DEFAULT_BASE_URL), set(hosts or known_hosts), errors)
    max_days = settings.get("max_days_per_run", DEFAULT_MAX_DAYS)
    low, high = MAX_DAYS_RANGE
    if isinstance(max_days, str) and max_days.strip().isdigit():
        max_days = int(max_days.strip())
    if isinstance(max_days, bool) or not isinstance(max_days, int) or not low <= max_days <= high:
        errors.append(f"max_days_per_run must be a whole number from {low} to {high}, got {max_days!r}.")
    result["max_days_per_run"] = max_days
    start_day = settings.get("start_day")
    if start_day not in (None, ""):
        try:
            day = start_day if isinstance(start_day, date) else date.fromisoformat(str(start_day).strip())
        except ValueError:
            errors.append(f"start_day must be an ISO date (YYYY-MM-DD), got {start_day!r}.")
        else:
            if day < FIRST_EXPORT_DAY:
                errors.append(f"start_day must be {FIRST_EXPORT_DAY.isoformat()} or later (first day DÖE exports).")
            result["start_day"] = day.isoformat()
    if errors:
        raise ValueError(errors)
    return result


def _allowed_hosts(value: Any, errors: list[str]) -> list[str]:
    if value in (None, [], ()):
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(h, str) and h.strip() for h in value):
        errors.append(f"allowed_hosts must be a list of host names, got {value!r}.")
        return []
    return list(dict.fromkeys(normalise_host(h) for h in value))


def _base_url(value: Any, hosts: set[str], errors: list[str]) -> Any:
    if not isinstance(value, str) or not value.strip():
        errors.append(f"base_url must be a URL such as {DEFAULT_BASE_URL}, got {value!r}.")
        return value
    value = value.strip()
    try:
        parts = urlsplit(value)
        host = normalise_host(parts.hostname or "")
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as exc:
        errors.append(f"base_url {value!r} is no valid URL: {exc}.")
        return value
    if not (parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS)):
        errors.append(f"base_url must use https, got {parts.scheme or 'no'} scheme in {value!r}.")
    elif not host:
        errors.append(f"base_url {value!r} has no host.")
    elif parts.username is not None or parts.password is not None:
        errors.append("base_url must not contain credentials (the OpenData API is anonymous).")
    elif parts.query or parts.fragment:
        errors.append(f"base_url must not carry a query or fragment, got {value!r}.")
    elif host not in hosts:
        errors.append(f"base_url host {host!r} is not allowed; allowed: {', '.join(sorted(hosts))}.")
    return value.rstrip("/")


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
