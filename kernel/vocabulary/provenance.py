"""Where a notice record comes from, as far as merging cares: how much its word counts.

A tender is compiled field by field from the notices of every source that published it. Sources
differ in how far they can be trusted, so the ranking is explicit (strongest first):

1. ``official`` - the structured notice itself: DÖE (eForms, OCDS, CSV) and TED. This is what the
   buyer published under procurement law; deadlines and values in it are binding.
2. ``portal_detail`` - a portal's own detail page of the notice (NetServer, cosinex): written by the
   same buyer, but scraped from HTML.
3. ``portal_list`` - a row of a portal's result list: a few fields, often shortened.
4. ``feed`` - an RSS item: free text a feed template wrote, read by patterns.
5. ``mail`` - an alert mail: a second-hand digest that anyone may send.

A weaker source fills a gap and never overrides a stronger one; within one rank the newest version
wins (``tenders.merging.compiling``). Records read from mails also carry the version
``MAIL_VERSION`` ("00"), ranked below every published version.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "MAIL_VERSION",
    "OFFICIAL_SOURCES",
    "Origin",
    "is_mail_derived",
    "origin_of",
    "origin_rank",
]

MAIL_VERSION = "00"

# Source keys whose records are official notices. Records stored before records carried their origin
# are ranked by this and by the mail version; every parser now states the origin itself.
OFFICIAL_SOURCES = frozenset({"doe", "ted"})


class Origin(StrEnum):
    OFFICIAL = "official"
    PORTAL_DETAIL = "portal_detail"
    PORTAL_LIST = "portal_list"
    FEED = "feed"
    MAIL = "mail"


_RANK = {Origin.MAIL: 0, Origin.FEED: 1, Origin.PORTAL_LIST: 2, Origin.PORTAL_DETAIL: 3, Origin.OFFICIAL: 4}


def is_mail_derived(record) -> bool:
    """True for a record read from an alert mail (``sources.adapters.mail``)."""
    return record.version == MAIL_VERSION or record.origin == Origin.MAIL


def origin_of(record) -> Origin:
    """The record's origin: as stated, else from its source key and version (records stored earlier).

    An unstated origin of a non-official source counts as a portal list row: below a detail page,
    so a record of unknown quality never overrides one whose quality is known.
    """
    if record.origin:
        try:
            return Origin(record.origin)
        except ValueError:
            return Origin.FEED
    if record.version == MAIL_VERSION:
        return Origin.MAIL
    if record.source in OFFICIAL_SOURCES:
        return Origin.OFFICIAL
    return Origin.PORTAL_LIST


def origin_rank(record) -> int:
    """Higher is stronger: official 4, portal detail 3, portal list 2, feed 1, mail 0."""
    return _RANK[origin_of(record)]
