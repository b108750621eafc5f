"""The checks every adapter's Source settings share: unknown keys, host allowlists, endpoint URLs, numbers, days.

Why one place: settings are typed by operators into a JSON field, so each adapter must report
every problem at once, each message naming its setting, and no URL may widen the hosts a run
talks to. The functions are pure: each takes the raw value and the list ``errors`` to append
its messages to, and returns the normalised value (a placeholder - "" or None - when it
appended a message). :func:`settings_result` turns the collected messages into one
``ValidationError``, which ``Adapter.settings_for`` reports as a failed run.

Limits: hosts are compared exactly after :func:`sources.network.normalise_host` (no
wildcards, ports ignored); a URL is checked for its form only - where its host resolves to is
the Fetcher's SSRF guard's business, and the Fetcher checks redirect hops against the same hosts.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.core.exceptions import ValidationError

from sources.network import normalise_host

__all__ = [
    "LOOPBACK_HOSTS",
    "allowed_hosts",
    "application_url",
    "base_url",
    "bounded_int",
    "bounded_ints",
    "common_settings",
    "endpoint_url",
    "iso_day",
    "settings_result",
    "unknown_settings",
    "url_hosts",
]

# Plain http is tolerated only for these (local test servers); production fetchers refuse loopback anyway.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def unknown_settings(values: Mapping[str, Any], known: Collection[str], *, name: str, errors: list[str]) -> None:
    """Refuse keys outside ``known``, so a misspelt setting does not pass silently as its default.

    ``name`` is the adapter's short name in the message ("Unknown TED setting(s): …").
    """
    unknown = sorted(str(key) for key in values if key not in known)
    if unknown:
        errors.append(f"Unknown {name} setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}.")


def allowed_hosts(value: Any, errors: list[str]) -> list[str]:
    """The ``allowed_hosts`` setting as normalised, de-duplicated host names (given order); [] when absent."""
    if value in (None, [], ()):
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(h, str) and h.strip() for h in value):
        errors.append(f"allowed_hosts must be a list of host names, got {value!r}.")
        return []
    return list(dict.fromkeys(normalise_host(h) for h in value))


def common_settings(
    values: Mapping[str, Any], *, name: str, known: Collection[str], errors: list[str]
) -> dict[str, Any]:
    """The checks every adapter's settings start with: :func:`unknown_settings`, then :func:`allowed_hosts`.

    Returns the normalised settings so far: ``{"allowed_hosts": [...]}`` when hosts are given,
    else ``{}`` - so ``result.get("allowed_hosts") or known_hosts`` is the host list URLs must use.
    """
    unknown_settings(values, known, name=name, errors=errors)
    hosts = allowed_hosts(values.get("allowed_hosts"), errors)
    return {"allowed_hosts": hosts} if hosts else {}


def endpoint_url(
    value: Any,
    *,
    setting: str,
    hosts: Iterable[str],
    errors: list[str],
    example: str = "",
    missing: str = "",
    allow_query: bool = True,
    allow_fragment: bool = True,
    hint: str = "",
) -> str:
    """``value`` stripped, if it is an https URL (http only on a loopback host) without credentials on one of ``hosts``.

    Else "" and one message in ``errors``: the first problem found, in the order scheme, host,
    credentials, query/fragment (where refused), host allowlist. ``missing`` replaces the
    message for an absent or non-text value (default: "<setting> must be a URL such as
    <example>, got …"); ``hint`` is appended to the allowlist message.
    """
    if not isinstance(value, str) or not value.strip():
        such_as = f" such as {example}" if example else ""
        errors.append(missing or f"{setting} must be a URL{such_as}, got {value!r}.")
        return ""
    url = value.strip()
    try:
        parts = urlsplit(url)
        host = normalise_host(parts.hostname or "")
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as exc:
        errors.append(f"{setting} {url!r} is no valid URL: {exc}.")
        return ""
    problem = _url_problem(url, parts, host, setting=setting, allow_query=allow_query, allow_fragment=allow_fragment)
    allowed = set(hosts)
    if not problem and host not in allowed:
        problem = f"{setting} host {host!r} is not allowed; allowed: {', '.join(sorted(allowed))}."
        problem = f"{problem} {hint}" if hint else problem
    if problem:
        errors.append(problem)
        return ""
    return url


def _url_problem(
    url: str, parts: SplitResult, host: str, *, setting: str, allow_query: bool, allow_fragment: bool
) -> str:
    if not (parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS)):
        return f"{setting} must use https, got {parts.scheme or 'no'} scheme in {url!r}."
    if not host:
        return f"{setting} {url!r} has no host."
    if parts.username is not None or parts.password is not None:
        return f"{setting} must not contain credentials (sources are read without a login)."
    refused = [
        part
        for part, present, allowed in (
            ("query", parts.query, allow_query),
            ("fragment", parts.fragment, allow_fragment),
        )
        if present and not allowed
    ]
    if refused:
        return f"{setting} must not carry a {' or '.join(refused)}, got {url!r}."
    return ""


def base_url(value: Any, *, hosts: Iterable[str], errors: list[str], example: str) -> str:
    """The ``base_url`` setting: an :func:`endpoint_url` that paths are appended to.

    So no query and no fragment; a trailing slash is removed. "" after a message.
    """
    url = endpoint_url(
        value,
        setting="base_url",
        hosts=hosts,
        errors=errors,
        example=example,
        allow_query=False,
        allow_fragment=False,
    )
    return url.rstrip("/")


def application_url(
    value: Any, *, hosts: Iterable[str], errors: list[str], paths: Sequence[str], application: str, example: str
) -> str:
    """``base_url`` of a portal application: a :func:`base_url` whose path is one of ``paths``.

    Paths match ignoring case and a trailing slash; the result is ``scheme://host[:port]``
    followed by the path as spelt in ``paths`` (so "/netserver" becomes "/NetServer/" when
    ``paths`` is ``("/NetServer/",)``). Else "" and a message naming ``application``.
    """
    url = base_url(value, hosts=hosts, errors=errors, example=example)
    if not url:
        return ""
    parts = urlsplit(url)
    path = parts.path.casefold()
    for known in paths:
        if known.rstrip("/").casefold() == path:
            return f"{parts.scheme}://{parts.netloc}{known}"
    ending = paths[0] if len(paths) == 1 else f"one of {', '.join(paths)}"
    errors.append(f"base_url must end in {ending} (the {application} application), got {url!r}.")
    return ""


def url_hosts(settings: Mapping[str, Any], names: Iterable[str]) -> frozenset[str]:
    """The hosts of the URL settings ``names`` present in (validated) ``settings``."""
    urls = [settings.get(name) for name in names]
    return frozenset(normalise_host(urlsplit(str(url)).hostname or "") for url in urls if url) - {""}


def bounded_int(
    value: Any, *, setting: str, low: int, high: int, errors: list[str], digit_strings: bool = True
) -> int | None:
    """``value`` if it is a whole number from ``low`` to ``high``, else None and a message.

    ``digit_strings``: ASCII digits as text ("10") count as the number; booleans never do
    (JSON ``true`` is no page count).
    """
    if digit_strings and isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        errors.append(f"{setting} must be a whole number from {low} to {high}, got {value!r}.")
        return None
    return value


def bounded_ints(
    values: Mapping[str, Any],
    *,
    ranges: Mapping[str, tuple[int, int]],
    defaults: Mapping[str, int],
    errors: list[str],
    digit_strings: bool = True,
) -> dict[str, int]:
    """Every setting of ``ranges`` ({name: (low, high)}) by :func:`bounded_int`, absent ones at their default."""
    result: dict[str, int] = {}
    for setting, (low, high) in ranges.items():
        number = bounded_int(
            values.get(setting, defaults[setting]),
            setting=setting,
            low=low,
            high=high,
            errors=errors,
            digit_strings=digit_strings,
        )
        result[setting] = defaults[setting] if number is None else number
    return result


def iso_day(
    value: Any, *, setting: str, errors: list[str], earliest: date | None = None, earliest_reason: str = ""
) -> str | None:
    """``value`` as an ISO day ("YYYY-MM-DD"); None when absent (None or "") or refused with a message.

    ``earliest``: days before it are refused, the message giving ``earliest_reason``.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        value = value.date()
    try:
        day = value if isinstance(value, date) else date.fromisoformat(str(value).strip())
    except ValueError:
        errors.append(f"{setting} must be an ISO date (YYYY-MM-DD), got {value!r}.")
        return None
    if earliest is not None and day < earliest:
        reason = f" ({earliest_reason})" if earliest_reason else ""
        errors.append(f"{setting} must be {earliest.isoformat()} or later{reason}.")
        return None
    return day.isoformat()


def settings_result(result: dict[str, Any], errors: list[str]) -> dict[str, Any]:
    """``result`` when no check failed, else ``ValidationError`` listing every message."""
    if errors:
        raise ValidationError(errors)
    return result
