"""Identity of notices: version order, fingerprints and the exact portal ids a record names."""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache

from kernel.links import portal_references_from_urls
from kernel.memo import short_text_memo
from kernel.records import NoticeRecord
from kernel.vocabulary.time_zone import BERLIN

# --- versions ---------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def version_key(version: str) -> tuple[int, str]:
    """ "02" > "01", "10" > "9"; non-numeric versions sort after numeric ones, then by text."""
    digits = re.sub(r"\D", "", version or "")
    return (int(digits) if digits else -1, version or "")


def latest_versions(records: Iterable[NoticeRecord]) -> list[NoticeRecord]:
    """Keep only the newest version of each (source, notice id): a correction supersedes its original.

    Of two records with the same version the later one wins: portals without versions (NetServer,
    cosinex) re-publish changed content as the same version, and callers pass stored history first.
    """
    newest: dict[tuple[str, str], NoticeRecord] = {}
    for record in records:
        key = (record.source, record.source_notice_id)
        current = newest.get(key)
        if current is None or version_key(record.version) >= version_key(current.version):
            newest[key] = record
    return list(newest.values())


# --- fingerprint ------------------------------------------------------------------------------------

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_LEGAL_FORMS = re.compile(r"\b(gmbh|ag|kg|ohg|e\s?v|eg|mbh|aör|aoer|kdör|kdoer|gbr|se|co)\b")
_TITLE_NOISE = re.compile(
    r"^(ausschreibung|bekanntmachung|auftragsbekanntmachung|vergabe|öffentliche ausschreibung|"
    r"offenes verfahren|nicht offenes verfahren)\s*[:\-–]\s*"
)


_NON_WORD = re.compile(r"[^\w]+")


# Names and titles recur within a batch and across batches, so they are remembered; a text
# longer than this is no name (a pasted description) and would only fill the memo.
MEMO_MAX_CHARS = 300
# A notice's own links recur in its eForms and OCDS renditions and across its versions.
URL_MEMO_MAX_CHARS = 500


def normalise_name(text: str) -> str:
    """Case, accents, umlaut spellings, punctuation and legal forms folded away."""
    return _normalised(text or "")


@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=65536)
def _normalised(text: str) -> str:
    text = text.casefold().translate(_UMLAUTS)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = _TITLE_NOISE.sub("", text)
    text = _NON_WORD.sub(" ", text)
    text = _LEGAL_FORMS.sub(" ", text)
    return " ".join(text.split())


def fingerprint(*, buyer_name: str, title: str) -> str | None:
    """Identity of "the same buyer announcing the same thing"; None when either part is missing.

    Only buyer and title go into the hash. CPV division, deadline day and value
    bucket are compared separately by ``fingerprint_compatible`` so that a source
    that lacks one of them (DÖE's OCDS has no deadline) can still match.
    """
    return _fingerprint(buyer_name or "", title or "")


# Merge keys and the compiled tender ask for the same pair in one batch.
@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=65536)
def _fingerprint(buyer_name: str, title: str) -> str | None:
    buyer, name = normalise_name(buyer_name), normalise_name(title)
    if len(buyer) < 3 or len(name) < 8:
        return None
    return hashlib.sha256(f"{buyer}|{name}".encode()).hexdigest()


@dataclass(frozen=True)
class FingerprintTraits:
    cpv_divisions: frozenset[str]
    deadline_day: date | None
    value_bucket: int | None


def value_bucket(value: Decimal | None) -> int | None:
    """Quarter-decades: 100,000 and 150,000 share a bucket, 100,000 and 1,000,000 do not."""
    if value is None or not value.is_finite() or value <= 0:
        return None
    return math.floor(math.log10(float(value)) * 4)


def traits_of(*, cpv_codes: Sequence[str], deadline: datetime | None, value: Decimal | None) -> FingerprintTraits:
    return FingerprintTraits(
        cpv_divisions=frozenset(code[:2] for code in cpv_codes if code),
        deadline_day=deadline.astimezone(BERLIN).date() if deadline else None,
        value_bucket=value_bucket(value),
    )


def fingerprint_compatible(a: FingerprintTraits, b: FingerprintTraits) -> bool:
    """Equal where both sides know the value; a missing value (NULL) never blocks nor proves a match."""
    if a.cpv_divisions and b.cpv_divisions and not (a.cpv_divisions & b.cpv_divisions):
        return False
    if a.deadline_day and b.deadline_day and a.deadline_day != b.deadline_day:
        return False
    both_valued = a.value_bucket is not None and b.value_bucket is not None
    return not (both_valued and abs(a.value_bucket - b.value_bucket) > 1)


# --- identity keys used by the merge rules ---------------------------------------------------------


@short_text_memo(max_chars=URL_MEMO_MAX_CHARS, maxsize=65536)
def _references_in(url: str, documents_url: str) -> tuple[str, ...]:
    return portal_references_from_urls([url, documents_url])


def own_portal_references(record: NoticeRecord) -> tuple[str, ...]:
    """Exact portal ids a record names, including its own identity on a NetServer/cosinex portal."""
    found = _references_in(record.url, record.documents_url)
    return tuple(dict.fromkeys((*record.portal_references, *found))) if record.portal_references else found
