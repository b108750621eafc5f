"""Unchanged notices skipped before parsing: the raw bytes' digest kept with each stored version.

Why: DÖE delivers days again and backfills overlap, so most of a re-read export is notice versions
stored before, byte for byte. Parsing and merging them again cost as much as the first time; a
digest of their bytes costs a fiftieth of a millisecond. The reader asks for the digests of a
unit's versions (``raw_versions_known``, one query per thousand keys), skips every version whose
bytes give the same digest, and the writer marks those seen (``raw_versions_seen``), set-based,
as the ingest marks an unchanged parsed version.

A digest is valid only for the content it was parsed into: it is stored as ``<digest>:<content
hash>`` (``raw_hashes_store``), so a version that another file or source rewrote since (its content
hash changed) no longer matches and is parsed again. The digest covers the parsers' version
(``sources.parsers.PARSE_VERSION``), so a parser fix parses everything once more.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection

from tenders.services.ingest import lock_ingest

# Keys per lookup: one query for a batch of the stream (``BatchLimits.notices``).
LOOKUP_KEYS = 1000


def raw_versions_known(*, source: str, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
    """(lower-case notice id, version) → (stored notice id, raw digest) for stored versions whose digest is valid.

    Read without the ingest lock: a version rewritten after this read was written by a run that
    read other bytes, and skipping ours then leaves what a run in the other order would have left.
    """
    wanted = set(keys)
    if not wanted:
        return {}
    notice_ids = sorted({notice for notice, _ in wanted})
    found: dict[tuple[str, str], tuple[str, str]] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(notice_ids), LOOKUP_KEYS):
            cursor.execute(
                """
                SELECT source_notice_id, version, raw_hash, content_hash FROM tenders_tenderversion
                WHERE source = %s AND source_notice_id = ANY(%s) AND raw_hash <> ''
                """,
                [source, notice_ids[start : start + LOOKUP_KEYS]],
            )
            for notice, version, raw_hash, content_hash in cursor.fetchall():
                key = (notice.lower(), version)
                digest, _, valid_for = raw_hash.partition(":")
                if key in wanted and valid_for == content_hash:
                    found[key] = (notice, digest)
    return found


def raw_versions_seen(*, versions: Sequence[tuple[str, str]], source: str, now: datetime) -> int:
    """Mark skipped versions seen, as the ingest marks an unchanged one: their source rows (the tender is not
    written: a sighting is its sources', see ``tenders.selectors.tender_representation``)."""
    if not versions:
        return 0
    lock_ingest()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE tenders_tendersource s SET last_seen_at = %s
            FROM unnest(%s::text[]) AS k(notice)
            WHERE s.source = %s AND s.source_notice_id = k.notice
            """,
            [now, sorted({notice for notice, _ in versions}), source],
        )
    return len(versions)


def raw_hashes_store(*, source: str, hashes: Sequence[tuple[str, str, str]]) -> None:
    """Keep (notice id, version, digest) with the stored versions, valid for their content hash now.

    One statement per batch, in the batch's transaction, after its versions were written.
    """
    if not hashes:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE tenders_tenderversion v SET raw_hash = k.digest || ':' || v.content_hash
            FROM unnest(%s::text[], %s::text[], %s::text[]) AS k(notice, version, digest)
            WHERE v.source = %s AND v.source_notice_id = k.notice AND v.version = k.version
              AND v.raw_hash IS DISTINCT FROM k.digest || ':' || v.content_hash
            """,
            [[h[0] for h in hashes], [h[1] for h in hashes], [h[2] for h in hashes], source],
        )
