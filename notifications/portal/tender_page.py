"""Presentation rules of the tender page, pure: which lot ids, which country and which notice names a reader sees.

The view reads the tender (``tender_selectors.tender_view``) and passes its parts here; nothing here reads
the database, so each rule is tested without a request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kernel.vocabulary.countries import country_name


def single_lot(*, lots: Sequence[Mapping], awards: Iterable[Mapping], deadlines: Iterable[Mapping]) -> bool:
    """Whether the tender has one lot at most: then its id ("LOT-0000") tells the reader nothing and is not shown."""
    lot_ids = {entry.get("lot_id") for entry in [*lots, *awards, *deadlines] if entry.get("lot_id")}
    return len(lots) <= 1 and len(lot_ids) <= 1


def country_shown(code: str, language: str) -> str:
    """Another country by name ("Frankreich"); Germany goes without saying on a portal of German tenders: ""."""
    if (code or "").upper() in ("DEU", "DE"):
        return ""
    return country_name(code, language) or code or ""


def publication_numbers(versions: Iterable) -> tuple[dict[int, str], dict[int, str]]:
    """Publication numbers of a tender's notices (versions in ascending order, each with ``publication_number``):
    by version id, and for each source the newest one it has (a source's row is named by its latest notice)."""
    by_version: dict[int, str] = {}
    by_source: dict[int, str] = {}
    for version in versions:
        number = version.publication_number or ""
        by_version[version.pk] = number
        if number:
            by_source[version.tender_source_id] = number
    return by_version, by_source
