"""Adapter settings as declarative schemas (pydantic): types, ranges, defaults and URL rules in one place.

Why a schema: settings are typed by operators into a JSON field, so every problem must be
reported at once, each message naming its setting, and no URL may widen the hosts a run
talks to. Each adapter declares an :class:`AdapterSettings` subclass - field types, ranges
(``Field(ge=…, le=…)``), defaults - and :func:`validated_settings` runs it and turns every
error into one German message per problem in a Django ``ValidationError`` (shown in the
admin form; ``Adapter.settings_for`` reports it as a failed run).

Limits: hosts are compared exactly after :func:`kernel.network.normalise_host` (no
wildcards, ports ignored); a URL is checked for its form only - where its host resolves to is
the Fetcher's SSRF guard's business, and the Fetcher checks redirect hops against the same hosts.
URL settings may name the hosts of ``allowed_hosts`` (validated first), else the adapter's known
hosts, passed as validation context.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date, datetime
from typing import Annotated, Any

from django.core.exceptions import ValidationError
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Strict, ValidationInfo
from pydantic import ValidationError as SchemaError
from pydantic_core import PydanticCustomError

from kernel.network import normalise_host
from kernel.urls import UrlRefused, link_refusal, parse_url, url_host

__all__ = [
    "LOOPBACK_HOSTS",
    "AdapterSettings",
    "Day",
    "HostNames",
    "TextDigits",
    "Url",
    "setting_problem",
    "url_hosts",
    "validated_settings",
]

# Plain http is tolerated only for these (local test servers); production fetchers refuse loopback anyway.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def setting_problem(message: str) -> PydanticCustomError:
    """A problem whose German message is complete (it names its setting); raise it in a validator."""
    return PydanticCustomError("adapter_setting", "{message}", {"message": message})


# -- hosts -------------------------------------------------------------------------------------------


def _host_names(value: Any) -> list[str]:
    if value in (None, [], ()):
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(h, str) and h.strip() for h in value):
        raise setting_problem(f"allowed_hosts muss eine Liste von Hostnamen sein, nicht {value!r}.")
    return list(dict.fromkeys(normalise_host(h) for h in value))


# Normalised, de-duplicated host names in the given order; [] when absent.
HostNames = Annotated[list[str], BeforeValidator(_host_names)]


def _hosts(info: ValidationInfo) -> Collection[str]:
    """The hosts URL settings may name: ``allowed_hosts`` when given (and valid), else the known hosts."""
    return (info.data or {}).get("allowed_hosts") or (info.context or {}).get("known_hosts", ())


# -- URLs --------------------------------------------------------------------------------------------


def Url(  # noqa: N802 - reads as a type in a field declaration
    *,
    example: str = "",
    missing: str = "",
    allow_query: bool = True,
    allow_fragment: bool = True,
    base: bool = False,
    paths: tuple[str, ...] = (),
    application: str = "",
    hint: str = "",
    optional: bool = False,
) -> Any:
    """A URL setting: https (http only on a loopback host), no credentials, on an allowed host.

    ``base``: paths are appended to it, so no query and no fragment and no trailing slash.
    ``paths``: the URL's path must be one of them (ignoring case and a trailing slash); the
    value becomes ``scheme://host[:port]`` plus the path as spelt here. ``missing`` replaces
    the message for an absent value; ``hint`` is appended to the allowlist message;
    ``optional``: absent ("" or None) is allowed and stays "".
    """

    base = base or bool(paths)  # an application's address gets paths appended too

    def check(value: Any, info: ValidationInfo) -> str:
        setting = info.field_name
        if optional and value in (None, ""):
            return ""
        if not isinstance(value, str) or not value.strip():
            such_as = f" wie {example}" if example else ""
            raise setting_problem(missing or f"{setting} muss eine URL sein{such_as}, nicht {value!r}.")
        url = value.strip()
        try:
            parts = parse_url(url)  # as browsers and the fetcher read it (WHATWG), not as urlsplit does
        except UrlRefused:
            if "://" not in url:  # "www.portal.de/x": a host without a scheme
                raise setting_problem(f"{setting} muss https verwenden, nicht kein Schema in {url!r}.") from None
            raise setting_problem(
                f"{setting} {url!r} ist keine gültige URL (ein Browser kann sie nicht lesen)."
            ) from None
        host = normalise_host(parts.host)
        refused = [
            part
            for part, present, allowed in (
                ("keine Query (?…)", parts.query, allow_query and not base),
                ("kein Fragment (#…)", parts.fragment, allow_fragment and not base),
            )
            if present and not allowed
        ]
        allowed = set(_hosts(info))
        if not (parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS)):
            problem = f"{setting} muss https verwenden, nicht {parts.scheme or 'kein Schema'} in {url!r}."
        elif not host:
            problem = f"{setting} {url!r} hat keinen Host."
        elif parts.has_userinfo:
            problem = f"{setting} darf keine Zugangsdaten enthalten (Quellen werden ohne Anmeldung gelesen)."
        elif refused:
            problem = f"{setting} darf {' und '.join(refused)} enthalten, nicht {url!r}."
        elif link_refusal(url) is not None:
            # Kept as written, so as written it must name the checked host to every reader (kernel.urls).
            problem = (
                f"{setting} {url!r} wird von Browsern anders gelesen als geschrieben "
                "(Backslash, Steuerzeichen oder verschleierter Host); bitte die URL so schreiben, wie sie gemeint ist."
            )
        elif host not in allowed:
            problem = f"{setting}: Host {host!r} ist nicht erlaubt; erlaubt: {', '.join(sorted(allowed))}."
            problem = f"{problem} {hint}" if hint else problem
        else:
            problem = ""
        if problem:
            raise setting_problem(problem)
        if base:
            url = url.rstrip("/")
        return _application(url, setting=setting, paths=paths, application=application) if paths else url

    return Annotated[str, BeforeValidator(check)]


def _application(url: str, *, setting: str, paths: tuple[str, ...], application: str) -> str:
    parts = parse_url(url)  # checked by the caller
    path = parts.path.rstrip("/") if parts.path != "/" else ""
    for known in paths:
        if known.rstrip("/").casefold() == path.casefold():
            return f"{parts.scheme}://{parts.authority}{known}"
    ending = paths[0] if len(paths) == 1 else f"eines von {', '.join(paths)}"
    raise setting_problem(f"{setting} muss auf {ending} enden (die {application}-Anwendung), nicht {url!r}.")


def url_hosts(settings: Mapping[str, Any], names: Iterable[str]) -> frozenset[str]:
    """The hosts of the URL settings ``names`` present in (validated) ``settings``."""
    urls = [settings.get(name) for name in names]
    return frozenset(normalise_host(url_host(str(url))) for url in urls if url) - {""}


# -- numbers and days --------------------------------------------------------------------------------


def _text_digits(value: Any) -> Any:
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return value


# For ``Annotated[int, TextDigits, Field(ge=…, le=…)]``: ASCII digits as text ("10") count as the
# number (settings typed in a form); booleans never do (JSON ``true`` is no page count).
TextDigits = BeforeValidator(_text_digits)


def _day_input(value: Any) -> Any:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str):
        return value.strip()
    return value if isinstance(value, date) else _not_a_day(value)


def _not_a_day(value: Any) -> Any:
    # Numbers would pass as Unix timestamps in pydantic's lax date parsing; a day is typed as text.
    raise PydanticCustomError("date_type", "not a day", {})


def Day(*, earliest: date | None = None, reason: str = "") -> Any:  # noqa: N802 - reads as a type
    """An ISO day ("YYYY-MM-DD", a date or a datetime's day), kept as ISO text; None when absent.

    ``earliest``: days before it are refused, the message giving ``reason``.
    """

    def not_before(value: date | None, info: ValidationInfo) -> date | None:
        if value is not None and earliest is not None and value < earliest:
            why = f" ({reason})" if reason else ""
            raise setting_problem(f"{info.field_name} muss {earliest.isoformat()} oder später sein{why}.")
        return value

    return Annotated[Annotated[date, Strict(False)] | None, BeforeValidator(_day_input), AfterValidator(not_before)]


# -- the schema and its messages ---------------------------------------------------------------------


class AdapterSettings(BaseModel):
    """The base of every adapter's settings: unknown keys refused, ``allowed_hosts`` first (URLs use it)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, validate_default=True)

    allowed_hosts: HostNames = []


def _bounds(model: type[BaseModel], name: str) -> tuple[Any, Any]:
    field = model.model_fields.get(name)
    low = next((m.ge for m in getattr(field, "metadata", ()) if hasattr(m, "ge")), None)
    high = next((m.le for m in getattr(field, "metadata", ()) if hasattr(m, "le")), None)
    return low, high


def _message(model: type[AdapterSettings], error: Mapping[str, Any], raw: Mapping[str, Any]) -> str:
    """One German message for one schema error, naming its setting."""
    setting = str(error["loc"][0]) if error["loc"] else ""
    if error["type"] == "adapter_setting":
        return str(error["ctx"]["message"])
    low, high = _bounds(model, setting)
    value = raw.get(setting)
    field = model.model_fields.get(setting)
    if error["type"].startswith("date"):
        return f"{setting} muss ein ISO-Datum (JJJJ-MM-TT) sein, nicht {value!r}."
    if field is not None and field.annotation is int:
        return f"{setting} muss eine ganze Zahl von {low} bis {high} sein, nicht {value!r}."
    return f"{setting}: ungültiger Wert {value!r}."


def validated_settings(
    model: type[AdapterSettings], values: Mapping[str, Any], *, name: str, known_hosts: Collection[str]
) -> dict[str, Any]:
    """``values`` validated by ``model``, as JSON-serialisable settings (absent optional ones left out).

    Raises ``ValidationError`` with every problem at once: unknown keys first (one message,
    ``name`` is the adapter's short name), then one message per setting in declaration order.
    """
    try:
        settings = model.model_validate(dict(values), context={"known_hosts": tuple(known_hosts)})
    except SchemaError as exc:
        errors = exc.errors(include_url=False)
        unknown = sorted(str(error["loc"][0]) for error in errors if error["type"] == "extra_forbidden")
        messages = []
        if unknown:
            known = ", ".join(sorted(model.model_fields))
            messages.append(f"Unbekannte {name}-Einstellung(en): {', '.join(unknown)}; bekannt: {known}.")
        messages += [_message(model, error, values) for error in errors if error["type"] != "extra_forbidden"]
        raise ValidationError(messages) from None
    dumped = settings.model_dump(mode="json")
    return {key: value for key, value in dumped.items() if value is not None and value != "" and value != []}
