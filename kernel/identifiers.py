"""Identifiers that notices write in several ways."""

from __future__ import annotations

import re

_PUBLICATION_NUMBER = re.compile(r"0*(\d{1,8})-((?:19|20)\d{2})")
_OJS_REFERENCE = re.compile(r"((?:19|20)\d{2})\s*/\s*S\s*\d{1,3}\s*-\s*0*(\d{1,8})", re.IGNORECASE)


def canonical_publication_number(raw: str | None) -> str:
    """TED / OJ S publication number as TED's search API writes it ("615938-2024"), else "".

    eForms writes ``efbc:NoticePublicationID`` with leading zeros ("00615938-2024"), award
    notices refer to it with or without them, older notices as "2024/S 123-615938".
    """
    text = (raw or "").strip()
    if match := _PUBLICATION_NUMBER.fullmatch(text):
        return f"{int(match.group(1))}-{match.group(2)}"
    if match := _OJS_REFERENCE.fullmatch(text):
        return f"{int(match.group(2))}-{match.group(1)}"
    return ""
