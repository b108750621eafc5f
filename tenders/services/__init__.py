"""Writes to the tender tables: the batch ingest every source goes through, the operator's split, expiry."""

from tenders.services.expiry import tenders_expire
from tenders.services.ingest import INGEST_LOCK_ID, IngestDelta, notices_ingest
from tenders.services.ingest_raw import raw_hashes_store, raw_versions_known, raw_versions_seen
from tenders.services.split import tender_split_source

__all__ = [
    "INGEST_LOCK_ID",
    "IngestDelta",
    "notices_ingest",
    "raw_hashes_store",
    "raw_versions_known",
    "raw_versions_seen",
    "tender_split_source",
    "tenders_expire",
]
