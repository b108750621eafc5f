"""Pure parsers: foreign notice formats in, ``kernel.records.NoticeRecord`` out (no ORM, no I/O)."""
