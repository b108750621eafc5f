"""A feed's bytes -> its items' records: decoding, feedparser, and what the run learns per item.

Decoding: :func:`kernel.network.decode_bytes` (BOM > Content-Type charset > XML declaration > UTF-8 >
windows-1252), then feedparser gets the decoded text re-encoded as UTF-8 with a UTF-8 declaration and
header, so it has nothing left to guess. Why: feeds that declare ISO-8859-1 routinely carry windows-1252
bytes (0x80 for "€"); WHATWG decoding reads them as the browser does, feedparser's own detection would not.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass

import feedparser

from kernel.network import Decoded, decode_bytes
from kernel.normalise import clean_text
from kernel.records import NoticeRecord
from sources.adapters.base import FieldProblem
from sources.adapters.rss.items import item_record

__all__ = ["FEED_MARKER", "FeedError", "FeedParse", "decode_feed", "parse_feed"]

_XML_DECLARATION_ENCODING = re.compile(r"""^(\s*<\?xml\b[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2""")
# A feed (RSS 0.9x/2.0, RSS 1.0 RDF or Atom) names its root element early; a portal's HTML page does not.
FEED_MARKER = re.compile(r"<(?:[\w-]+:)?(?:rss|feed|RDF)\b", re.IGNORECASE)


class FeedError(Exception):
    """The bytes are no feed at all (nothing to read item by item)."""


@dataclass(frozen=True)
class FeedParse:
    records: tuple[NoticeRecord, ...] = ()
    problems: tuple[str, ...] = ()  # about the feed or an item as a whole
    field_problems: tuple[FieldProblem, ...] = ()  # a field an item states that could not be read
    refused: int = 0  # items that became no record
    items: int = 0  # items in the feed, including refused ones
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


def parse_feed(
    text: str,
    *,
    source: str,
    base_url: str = "",
    labels: Mapping[str, tuple[str, ...]] | None = None,
    family: str = "",
) -> FeedParse:
    """Records of every item of an already decoded feed. Raises FeedError when it is no feed at all.

    ``labels``: the source's own field labels (canonical field -> labels), added to the shared vocabulary;
    ``family``: the portal family the operator named for the feed, kept on each record's payload.
    """
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
    feed_title = clean_text(parsed.get("feed", {}).get("title"), limit=200)
    records: list[NoticeRecord] = []
    field_problems: list[FieldProblem] = []
    refused = 0
    for number, entry in enumerate(entries, start=1):
        label = f"item {number} {clean_text(entry.get('title'), limit=80)!r}"
        try:
            reading = item_record(
                entry, source=source, base_url=base_url, feed_title=feed_title, labels=labels, family=family
            )
        except Exception as exc:  # one broken item must not cost the others; the problem names it
            problems.append(f"{label}: {type(exc).__name__}: {exc}")
            refused += 1
            continue
        problems.extend(f"{label}: {problem}" for problem in reading.problems)
        field_problems.extend(FieldProblem(field=f, item=label, detail=d) for f, d in reading.field_problems)
        if reading.record is None:
            refused += 1
        else:
            records.append(reading.record)
    return FeedParse(
        records=tuple(records),
        problems=tuple(problems),
        field_problems=tuple(field_problems),
        refused=refused,
        items=len(entries),
        title=feed_title,
    )
