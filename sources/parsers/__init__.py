"""Pure parsers: foreign notice formats in, ``kernel.records.NoticeRecord`` out (no ORM, no I/O)."""

# Bumped whenever a parser's records change (a fix, a new field): stored digests of raw notice bytes
# include it (``tenders.services.ingest_raw``), so every notice is parsed once more after a change.
PARSE_VERSION = 2  # 2: converter stand-in ids, places abroad, legacy changes, estimates and lot places (audit 2)
