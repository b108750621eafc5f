"""RSS 2.0 / Atom feeds -> ``NoticeRecord`` (service.bund.de and any German procurement feed an operator adds).

Flow (``fetch``): one GET of ``feed_url`` through the Fetcher - conditional across runs
(``conditional_requests``, :mod:`sources.conditional`: stored ETag / Last-Modified, else the
body hash; an unchanged feed is a ``not_modified`` batch and nothing is parsed) - then the bytes
are decoded and read item by item (:mod:`.feed`), each item as German buyers write it (:mod:`.items`),
tracked by an id that survives a retitled item (:mod:`.identity`).

Bad input: a date that cannot be read ("Invalid Date", "siehe Unterlagen") leaves the field
empty and is a field problem naming the item; an item without any id is refused with a problem;
a feed that is not XML at all fails the run (``AdapterError`` reason "bad_response"); an
HTML page where the feed should be is a wall (``Blocked``).

Settings - a feed is added in the console without code:

- ``feed_url`` (required): https, plain http only for loopback test servers; its host must be in
  ``allowed_hosts`` if given, else in ``known_hosts`` (service.bund.de, which serves the feed under
  ``/Content/Globals/Functions/RSSFeed/`` and ``/SiteGlobals/Functions/RSSFeed/``). Redirect hops are
  checked against the same list and every address against the SSRF guard (``kernel.network``).
- ``portal_family`` (optional): the platform behind the feed (``PORTAL_FAMILIES``), kept on each record.
- ``labels`` (optional): the feed's own spellings, canonical field -> labels, e.g.
  ``{"deadline": ["Letzter Abgabetermin"]}``, for labels the shared vocabulary does not know yet.

No cursor: the feed is read whole every time it changed. Limits: no paging (feeds show their newest
items only; service.bund.de keeps no archive), no CPV codes (the feeds have none), titles and
descriptions are plain text.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator

from kernel.network import Fetcher, raise_for_wall
from sources.adapters.base import (
    Adapter,
    AdapterError,
    FetchedBatch,
    SourceConfig,
    read_saved,
    scope_text,
    walk_files,
)
from sources.adapters.mail.fields import FIELD_LABELS
from sources.adapters.rss.feed import FEED_MARKER, FeedError, FeedParse, decode_feed, parse_feed
from sources.adapters.rss.identity import without_tracking
from sources.adapters.settings import AdapterSettings, Url, setting_problem
from sources.registry import register

__all__ = [
    "FEED_MARKER",
    "PORTAL_FAMILIES",
    "FeedError",
    "FeedParse",
    "RssAdapter",
    "decode_feed",
    "parse_feed",
    "without_tracking",
]

SERVICE_BUND_FEED = "https://www.service.bund.de/Content/Globals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
# The second form of the same feed (the site builder's standard path), reported by public clients.
SERVICE_BUND_FEED_SITEGLOBALS = (
    "https://www.service.bund.de/SiteGlobals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
)
FILE_SUFFIXES = (".xml", ".rss", ".atom")
# The platforms German procurement feeds come from, as an operator names them for a feed.
PORTAL_FAMILIES = ("service-bund", "rib", "netserver", "cosinex", "andere")
MAX_LABELS = 50


def _portal_family(value: Any) -> str:
    if value in (None, ""):
        return ""
    if value not in PORTAL_FAMILIES:
        raise setting_problem(f"portal_family muss eines von {', '.join(PORTAL_FAMILIES)} sein, nicht {value!r}.")
    return value


def _labels(value: Any) -> dict[str, list[str]] | None:
    """Canonical field -> the feed's own labels (lower case, without the colon), each field known."""
    if value in (None, {}):
        return None
    shape = 'labels muss ein Objekt "Feld": ["Bezeichnung", …] sein'
    if not isinstance(value, dict):
        raise setting_problem(f"{shape}, nicht {value!r}.")
    unknown = sorted(str(name) for name in value if name not in FIELD_LABELS)
    if unknown:
        raise setting_problem(
            f"labels: unbekannte(s) Feld(er) {', '.join(unknown)}; bekannt: {', '.join(sorted(FIELD_LABELS))}."
        )
    cleaned: dict[str, list[str]] = {}
    for name, labels in value.items():
        if not isinstance(labels, list) or not all(isinstance(label, str) and label.strip() for label in labels):
            raise setting_problem(f"{shape}; bei {name!r} steht {labels!r}.")
        for label in labels:
            if ":" in label or len(label.strip()) > 60 or "\n" in label:
                raise setting_problem(
                    f"labels: {label!r} ist keine Bezeichnung (ohne Doppelpunkt, höchstens 60 Zeichen)."
                )
        cleaned[name] = list(dict.fromkeys(" ".join(label.lower().split()) for label in labels))
    if sum(map(len, cleaned.values())) > MAX_LABELS:
        raise setting_problem(f"labels: höchstens {MAX_LABELS} Bezeichnungen.")
    return cleaned


FeedUrl = Url(
    missing=f"feed_url fehlt (die Adresse des Feeds, z. B. {SERVICE_BUND_FEED}).",
    hint="Für einen Feed auf einem anderen Host diesen Host in allowed_hosts eintragen.",
)


class RssSettings(AdapterSettings):
    """``feed_url`` (required), ``portal_family`` and ``labels`` (optional)."""

    feed_url: FeedUrl = None
    portal_family: Annotated[str, BeforeValidator(_portal_family)] = ""
    labels: Annotated[dict[str, list[str]] | None, BeforeValidator(_labels)] = None


def _reading(settings: dict[str, Any]) -> dict[str, Any]:
    """How ``parse_feed`` reads this source's items: its own labels and portal family."""
    labels = {name: tuple(values) for name, values in (settings.get("labels") or {}).items()}
    return {"labels": labels or None, "family": settings.get("portal_family") or ""}


@register
class RssAdapter(Adapter):
    type: ClassVar[str] = "rss"
    label: ClassVar[str] = "RSS-/Atom-Feed (service.bund.de oder ein Feed einer Vergabeplattform)"
    short_name: ClassVar[str] = "RSS"
    known_hosts: ClassVar[tuple[str, ...]] = ("www.service.bund.de", "service.bund.de")
    settings_model: ClassVar[type[AdapterSettings]] = RssSettings
    max_body_bytes: ClassVar[int] = 10 * 2**20
    conditional_requests: ClassVar[bool] = True

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        feed_url = settings["feed_url"]
        result = fetcher.get(feed_url)
        if result.not_modified:
            yield FetchedBatch(requests=1, not_modified=1, scope=feed_url[:200])
            return
        decoded, problems = decode_feed(result.body, content_type=result.content_type)
        raise_for_wall(result, expected_marker=FEED_MARKER, text=decoded.text)
        try:
            parsed = parse_feed(decoded.text, source=config.key, base_url=result.final_url, **_reading(settings))
        except FeedError as exc:
            raise AdapterError(f"{feed_url}: {exc}", reason="bad_response") from exc
        yield FetchedBatch(
            records=parsed.records,
            problems=(*problems, *parsed.problems),
            field_problems=parsed.field_problems,
            refused=parsed.refused,
            bytes=len(result.body),
            requests=1,
            scope=feed_url[:200],
        )

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """One batch per saved feed; folders are searched recursively for ``*.xml``, ``*.rss``, ``*.atom``.

        Relative item links are resolved against the source's ``feed_url`` when it has one.
        """
        settings = dict(config.settings or {})
        base_url = str(settings.get("feed_url") or "")
        reading = _reading(self.validate_settings(settings)) if settings else _reading({})
        for path in walk_files(paths, FILE_SUFFIXES):
            yield _parse_file(path, source=config.key, base_url=base_url, reading=reading)


MAX_FILE_BYTES = 20 * 2**20  # as for portal pages: a saved feed is far smaller


def _parse_file(path: Path, *, source: str, base_url: str, reading: dict[str, Any]) -> FetchedBatch:
    scope = scope_text(str(path))
    saved = read_saved(path, limit=MAX_FILE_BYTES)
    if saved.problem:
        return FetchedBatch(problems=(saved.problem,), bytes=saved.size, scope=scope)
    data = saved.data
    decoded, problems = decode_feed(data)
    try:
        parsed = parse_feed(decoded.text, source=source, base_url=base_url, **reading)
    except FeedError as exc:
        return FetchedBatch(problems=(f"{path}: {exc}",), bytes=len(data), scope=scope)
    return FetchedBatch(
        records=parsed.records,
        problems=tuple(f"{path.name}: {p}" for p in (*problems, *parsed.problems)),
        field_problems=tuple(p.in_file(path.name) for p in parsed.field_problems),
        refused=parsed.refused,
        bytes=len(data),
        scope=scope,
    )
