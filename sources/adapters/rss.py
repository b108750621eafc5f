"""RSS 2.0 / Atom feeds -> ``NoticeRecord`` (service.bund.de and any feed an operator adds).

Flow (``fetch``): one GET of ``feed_url`` through the Fetcher - conditional across runs
(``conditional_requests``, :mod:`sources.conditional`: stored ETag / Last-Modified, else the
body hash; an unchanged feed is a ``not_modified`` batch and nothing is parsed) - then decode
the bytes ourselves with
:func:`kernel.network.decode_bytes` (BOM > Content-Type charset > XML declaration >
UTF-8 > windows-1252), then hand feedparser the decoded text re-encoded as UTF-8 with a
UTF-8 declaration and header, so it has nothing left to guess. Why: feeds that declare
ISO-8859-1 routinely carry windows-1252 bytes (0x80 for "€"); WHATWG decoding reads them
as the browser does, feedparser's own detection would not.

Per item: ``title``; the description HTML (usually CDATA) is read with BeautifulSoup into
"Label: value" fields (:mod:`sources.adapters.mail.fields`): service.bund.de prints
``Erfüllungsort: <strong>…</strong><br />Vergabestelle: <strong>…</strong><br />Angebotsfrist:
<strong>dd.mm.yyyy HH:MM</strong>``; scraped feeds print ``Typ: …, Veröffentlicher: …``.
``source_notice_id`` is the id in a service.bund.de link
(``/IMPORTE/Ausschreibungen/<platform>/<yyyy>/<mm>/<id>.html``, alphanumeric ids such as
``432613G349409``), else the item's guid, else its link; a tracking fragment
(``#track=feed-callforbids``) is dropped from link and guid first, so it is neither part of
the identity nor of the stored URL; ids longer than 200 characters are replaced by their SHA-256. ``portal_references``
come from the item's link, guid and every link in the description.

Bad input: a date that cannot be read ("Invalid Date", "siehe Unterlagen") leaves the field
empty and adds a problem naming the item; an item without any id is skipped with a problem;
a feed that is not XML at all fails the run (``AdapterError`` reason "bad_response"); an
HTML page where the feed should be is a wall (``Blocked``).

Settings: ``feed_url`` (required; service.bund.de serves the feed under
``/Content/Globals/Functions/RSSFeed/`` and ``/SiteGlobals/Functions/RSSFeed/``; https, plain
http only for loopback test servers; its host must be in ``allowed_hosts`` if given, else in
``known_hosts``: adding a feed on another host means listing that host in ``allowed_hosts`` -
redirect hops are checked against the same list). No cursor: the feed is read whole every time it changed.

Limits: no paging (feeds show their newest items only; service.bund.de keeps no archive),
no CPV codes (the feed has none), titles and descriptions are plain text.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import feedparser
from bs4 import BeautifulSoup

from kernel.network import Decoded, Fetcher, decode_bytes, raise_for_wall
from kernel.normalise import clean_text
from kernel.records import NoticeRecord
from kernel.urls import UrlRefused, parse_url
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from sources.adapters.base import (
    Adapter,
    AdapterError,
    FetchedBatch,
    SourceConfig,
    read_saved,
    scope_text,
    walk_files,
)
from sources.adapters.mail.fields import (
    bundesland_named,
    html_to_text,
    kind_from_text,
    labelled_fields,
    parse_field_date,
    split_place,
)
from sources.adapters.settings import AdapterSettings, Url
from sources.parsers.eforms import portal_references_from_urls
from sources.registry import register

__all__ = ["FeedError", "FeedParse", "RssAdapter", "decode_feed", "parse_feed"]

SERVICE_BUND_FEED = "https://www.service.bund.de/Content/Globals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
# The second form of the same feed (the site builder's standard path), reported by public clients.
SERVICE_BUND_FEED_SITEGLOBALS = (
    "https://www.service.bund.de/SiteGlobals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
)
FILE_SUFFIXES = (".xml", ".rss", ".atom")
MAX_NOTICE_ID = 200  # TenderSource.source_notice_id
# Ids are alphanumeric ("432613G349409"); a ";jsessionid=…" path parameter may follow.
_SERVICE_BUND_LINK = re.compile(
    r"/IMPORTE/Ausschreibungen/([^/?#;]+)/(\d{4})/(\d{2})/([A-Za-z0-9_.-]+?)\.html?(?:[?#;]|$)"
)
# A fragment that only tells the site which feed the click came from ("#track=feed-callforbids").
_TRACKING_FRAGMENT = re.compile(r"#track=[^#]*$", re.IGNORECASE)
_XML_DECLARATION_ENCODING = re.compile(r"""^(\s*<\?xml\b[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2""")
# A feed (RSS 0.9x/2.0, RSS 1.0 RDF or Atom) names its root element early; a portal's HTML page does not.
FEED_MARKER = re.compile(r"<(?:[\w-]+:)?(?:rss|feed|RDF)\b", re.IGNORECASE)


class FeedError(Exception):
    """The bytes are no feed at all (nothing to read item by item)."""


@dataclass(frozen=True)
class FeedParse:
    records: tuple[NoticeRecord, ...] = ()
    problems: tuple[str, ...] = ()
    items: int = 0  # items in the feed, including skipped ones
    title: str = ""


def decode_feed(data: bytes, *, content_type: str | None = None) -> tuple[Decoded, list[str]]:
    """Decode feed bytes; a Content-Type charset the body contradicts falls back to the document's own.

    Returns the decoded text and problems (a wrong header, or bytes no encoding reads cleanly).
    """
    problems: list[str] = []
    decoded = decode_bytes(data, content_type=content_type)
    if decoded.garbled and decoded.declared_by == "content-type":
        retry = decode_bytes(data)
        if not retry.garbled:
            problems.append(
                f"Content-Type {content_type!r} does not match the body; read as {retry.encoding} "
                f"({retry.declared_by}) instead"
            )
            decoded = retry
    if decoded.garbled:
        problems.append(f"feed bytes are not valid {decoded.encoding}; some characters could not be read")
    return decoded, problems


def parse_feed(text: str, *, source: str, base_url: str = "") -> FeedParse:
    """Records of every item of an already decoded feed. Raises FeedError when it is no feed at all."""
    utf8_text = _XML_DECLARATION_ENCODING.sub(r"\1\2utf-8\2", text, count=1)
    parsed = feedparser.parse(
        io.BytesIO(utf8_text.encode("utf-8")),
        response_headers={"content-type": "application/xml; charset=utf-8"},
        resolve_relative_uris=False,
        sanitize_html=True,
    )
    entries = parsed.get("entries") or []
    problems: list[str] = []
    if parsed.get("bozo"):
        detail = f"{type(parsed.get('bozo_exception')).__name__}: {parsed.get('bozo_exception')}"
        if not entries:
            raise FeedError(f"not a readable RSS/Atom feed ({detail})")
        problems.append(f"feed is not well-formed XML ({detail}); items were read leniently")
    elif not parsed.get("version"):
        raise FeedError("not an RSS/Atom feed (no rss, RDF or feed root element)")
    records: list[NoticeRecord] = []
    for number, entry in enumerate(entries, start=1):
        label = f"item {number} {clean_text(entry.get('title'), limit=80)!r}"
        try:
            record, item_problems = _record(entry, source=source, base_url=base_url)
        except Exception as exc:  # one broken item must not cost the others; the problem names it
            problems.append(f"{label}: {type(exc).__name__}: {exc}")
            continue
        problems.extend(f"{label}: {problem}" for problem in item_problems)
        if record is not None:
            records.append(record)
    return FeedParse(
        records=tuple(records),
        problems=tuple(problems),
        items=len(entries),
        title=clean_text(parsed.get("feed", {}).get("title"), limit=200),
    )


def _record(entry: Mapping[str, Any], *, source: str, base_url: str) -> tuple[NoticeRecord | None, list[str]]:
    problems: list[str] = []
    title = clean_text(entry.get("title"), limit=1000)
    link = without_tracking(_absolute(base_url, entry.get("link")))
    guid = without_tracking(clean_text(entry.get("id")))
    html = _description_html(entry)
    text = html_to_text(html)
    fields = labelled_fields(text)
    notice_id = _notice_id(link, guid)
    if not notice_id:
        return None, ["no link and no guid: the item cannot be tracked, skipped"]

    deadline = parse_field_date(fields.get("deadline"), end_of_day=True)
    if deadline.problem:
        problems.append(f"Angebotsfrist {deadline.problem}; left empty")
    published_at = _published(entry)
    if published_at is None:
        raw_published = clean_text(dict.get(entry, "published") or dict.get(entry, "updated"))
        from_fields = parse_field_date(fields.get("published"))
        published_at = from_fields.value
        if raw_published and published_at is None:
            problems.append(f"publication date {raw_published!r} is no date; left empty")
    postal_code, town = split_place(fields.get("place"))
    bundesland = bundesland_named(town)  # "Erfüllungsort: Bayern" names a Land, not a town
    procedure_text = fields.get("procedure", "")
    procedure = procedure_type_code(procedure_text)
    description_links = [a.get("href") for a in BeautifulSoup(html, "html.parser").find_all("a", href=True)]
    return (
        NoticeRecord(
            source=source,
            origin=Origin.FEED,
            source_notice_id=notice_id,
            kind=kind_from_text(procedure_text),
            title=title or clean_text(fields.get("title"), limit=1000),
            description=clean_text(text, limit=5000),
            buyer_name=clean_text(fields.get("buyer"), limit=500),
            procedure_type="" if procedure == "other" else procedure,
            postal_code=postal_code,
            town="" if bundesland else town[:200],
            bundesland=bundesland,
            published_at=published_at,
            submission_deadline=deadline.value,
            url=link,  # checked at the ingest boundary (kernel.links), which records a dropped link
            portal_references=portal_references_from_urls([link, guid, *description_links]),
            payload={"rss": {"guid": guid, "fields": fields}},
        ),
        problems,
    )


def without_tracking(url: str) -> str:
    """``url`` without a ``#track=…`` fragment: not part of a notice's identity nor of its stored URL."""
    return _TRACKING_FRAGMENT.sub("", url or "")


def _description_html(entry: Mapping[str, Any]) -> str:
    for content in entry.get("content") or ():
        if content.get("value"):
            return str(content["value"])
    return str(entry.get("summary") or entry.get("description") or "")


def _absolute(base_url: str, link: Any) -> str:
    link = clean_text(link if isinstance(link, str) else "")
    if not link:
        return ""
    try:
        # Resolved as a feed reader's browser resolves it (WHATWG): the serialisation names the host
        # every later reader sees. What cannot be read stays as given, for the ingest's link check to name.
        return parse_url(link, base=base_url or None).href
    except UrlRefused:
        return link


def _notice_id(link: str, guid: str) -> str:
    for candidate in (link, guid):
        match = _SERVICE_BUND_LINK.search(candidate or "")
        if match:
            return match.group(4)
    value = guid or link
    if len(value) > MAX_NOTICE_ID:
        return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
    return value


def _published(entry: dict[str, Any]) -> datetime | None:
    # dict.get: FeedParserDict maps a missing "updated_parsed" to "published_parsed" with a warning.
    parsed = dict.get(entry, "published_parsed") or dict.get(entry, "updated_parsed")
    if not parsed:
        return None
    try:
        return datetime(*parsed[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None


FeedUrl = Url(
    missing=f"feed_url fehlt (die Adresse des Feeds, z. B. {SERVICE_BUND_FEED}).",
    hint="Für einen Feed auf einem anderen Host diesen Host in allowed_hosts eintragen.",
)


class RssSettings(AdapterSettings):
    """``feed_url`` (required)."""

    feed_url: FeedUrl = None


@register
class RssAdapter(Adapter):
    type: ClassVar[str] = "rss"
    label: ClassVar[str] = "RSS-/Atom-Feed (z. B. service.bund.de)"
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
            parsed = parse_feed(decoded.text, source=config.key, base_url=result.final_url)
        except FeedError as exc:
            raise AdapterError(f"{feed_url}: {exc}", reason="bad_response") from exc
        yield FetchedBatch(
            records=parsed.records,
            problems=(*problems, *parsed.problems),
            bytes=len(result.body),
            requests=1,
            scope=feed_url[:200],
        )

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """One batch per saved feed; folders are searched recursively for ``*.xml``, ``*.rss``, ``*.atom``.

        Relative item links are resolved against the source's ``feed_url`` when it has one.
        """
        base_url = str((config.settings or {}).get("feed_url") or "")
        for path in walk_files(paths, FILE_SUFFIXES):
            yield _parse_file(path, source=config.key, base_url=base_url)


MAX_FILE_BYTES = 20 * 2**20  # as for portal pages: a saved feed is far smaller


def _parse_file(path: Path, *, source: str, base_url: str) -> FetchedBatch:
    scope = scope_text(str(path))
    saved = read_saved(path, limit=MAX_FILE_BYTES)
    if saved.problem:
        return FetchedBatch(problems=(saved.problem,), bytes=saved.size, scope=scope)
    data = saved.data
    decoded, problems = decode_feed(data)
    try:
        parsed = parse_feed(decoded.text, source=source, base_url=base_url)
    except FeedError as exc:
        return FetchedBatch(problems=(f"{path}: {exc}",), bytes=len(data), scope=scope)
    return FetchedBatch(
        records=parsed.records,
        problems=tuple(f"{path.name}: {p}" for p in (*problems, *parsed.problems)),
        bytes=len(data),
        scope=scope,
    )
