"""Pure parsers: foreign notice formats in, ``sources.records.NoticeRecord`` out (no ORM, no I/O)."""
