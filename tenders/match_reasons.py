"""Why a tender matched a search ("warum gefunden"): which words hit which field, which CPV code, which filter.

Computed only for what is shown (a result page, a mail's tenders, a tender page's profiles), with the
same rules the search matched by: words through ``tenders.highlighting`` (PostgreSQL's German stems,
compound parts, the thesaurus), CPV codes by their tree prefix (``kernel.vocabulary.cpv.cpv_prefix``),
every other filter by the value the tender has for it. A tender found only through the words of a
CPV label (the weakest field of the search vector) says so: ``only_cpv_label``. As in the search, the
labels of a code's groups and classes count by their whole words, the code's own label also by its
compound parts (``kernel.vocabulary.cpv.cpv_code_labels``).

The result is plain data (``MatchReasons.as_json``) for the API and the mails; pages and mails phrase it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

from kernel.vocabulary.cpv import cpv_indexed_ancestors, cpv_label, cpv_prefix
from kernel.vocabulary.search_words import text_words
from tenders.filters import TenderFilters
from tenders.fulltext import KeywordQuery
from tenders.highlighting import Highlighter, highlighters_prepare

# Fields the keywords search, in the order they weigh (SEARCH_VECTOR_EXPRESSION: title A, buyer B,
# description C, lot titles and CPV labels D).
WORD_FIELDS = ("title", "buyer", "description", "lots", "cpv_labels")
MAX_WORDS_PER_FIELD = 5
# Filters other than keywords and CPV, reported with the tender's own value that satisfied them (the
# keywords' scope is not one: it says where the words hit, which the word hits show).
_PLAIN_FILTERS = tuple(f.name for f in fields(TenderFilters) if f.name not in ("q", "q_scope", "cpv"))


@dataclass(frozen=True)
class WordHits:
    field: str  # one of WORD_FIELDS
    words: tuple[str, ...]  # the field's words that hit, as written there


@dataclass(frozen=True)
class CpvReason:
    filter: str  # the code the search names
    code: str  # the tender's code inside it (the same code, or one below it in the tree)


@dataclass(frozen=True)
class MatchReasons:
    words: tuple[WordHits, ...] = ()
    cpv: tuple[CpvReason, ...] = ()
    filters: tuple[tuple[str, str], ...] = ()  # (filter name, the tender's value that satisfied it)

    @property
    def only_cpv_label(self) -> bool:
        """The keywords hit nothing but CPV labels: a weak reason, worth saying."""
        return bool(self.words) and all(hit.field == "cpv_labels" for hit in self.words)

    @property
    def is_empty(self) -> bool:
        return not (self.words or self.cpv or self.filters)

    def as_json(self) -> dict:
        return {
            "words": [{"field": hit.field, "words": list(hit.words)} for hit in self.words],
            "only_cpv_label": self.only_cpv_label,
            "cpv": [{"filter": reason.filter, "code": reason.code} for reason in self.cpv],
            "filters": [{"filter": name, "value": value} for name, value in self.filters],
        }


def _hits(
    highlighter: Highlighter,
    texts: Iterable[tuple[str, bool]],
    *,
    synonyms: bool = True,
    known: dict[tuple[str, bool, bool], tuple[str, ...]],
) -> tuple[str, ...]:
    """The words of ``texts`` that hit, each text with whether its compound parts count (see the module docstring).

    ``known`` holds each text's hits for the whole call: the rows of a page share CPV labels and buyers.
    """
    found: dict[str, str] = {}  # folded -> as written, the first that hit
    for text, parts in texts:
        key = (text or "", parts, synonyms)
        hits = known.get(key)
        if hits is None:
            hits = known[key] = _text_hits(highlighter, text or "", parts=parts, synonyms=synonyms)
        for word in hits:
            found.setdefault(word.casefold(), word)
            if len(found) >= MAX_WORDS_PER_FIELD:
                return tuple(found.values())
    return tuple(found.values())


def _text_hits(highlighter: Highlighter, text: str, *, parts: bool, synonyms: bool) -> tuple[str, ...]:
    """The words of one text that hit, in order, each spelling (case-folded) once."""
    found: dict[str, str] = {}
    for word in text_words(text):
        folded = word.casefold()
        if folded not in found and highlighter.is_hit(word, synonyms=synonyms, parts=parts):
            found[folded] = word
    return tuple(found.values())


def _loaded(tender, name: str, default=None):
    """A column the caller loaded, else ``default``: a deferred model field would cost a query per row."""
    return vars(tender).get(name, default)


def _field_texts(tender, description_attr: str) -> dict[str, list[tuple[str, bool]]]:
    """Each field's texts, each with whether the search holds its compound parts."""
    # The German labels whatever the page's language: they are what the search vector carries.
    labels = []
    for code in tender.cpv_codes or ():
        labels.append((cpv_label(code), True))
        labels += [(entry.label, False) for entry in cpv_indexed_ancestors(code)]
    lots = [lot.get("title") or "" for lot in (_loaded(tender, "lots") or ()) if isinstance(lot, dict)]
    return {
        "title": [(tender.title or "", True)],
        # The buyer's name is searched by its whole words only (no compound parts in the vector).
        "buyer": [(_loaded(tender, "buyer_name", "") or "", False)],
        "description": [(_loaded(tender, description_attr, "") or "", True)],
        "lots": [(title, True) for title in lots],
        "cpv_labels": labels,
    }


def _cpv_reasons(filters: TenderFilters, codes: Sequence[str]) -> tuple[CpvReason, ...]:
    reasons = []
    for wanted in filters.cpv:
        prefix = cpv_prefix(wanted)
        inside = next((code for code in codes if code.startswith(prefix)), None)
        if inside:
            reasons.append(CpvReason(filter=wanted, code=inside))
    return tuple(reasons)


# The tender's own value a filter was checked against ("Bundesland: Bayern", "Frist: 2026-10-20T12:00…").
_TENDER_VALUE = {
    "bundesland": lambda t: t.bundesland,
    "plz": lambda t: t.postal_code,
    "kreis": lambda t: t.postal_code or ", ".join(t.nuts_codes or ()),
    "umkreis_plz": lambda t: " ".join(part for part in (t.postal_code, t.town) if part),
    "value_min": lambda t: t.estimated_value,
    "value_max": lambda t: t.estimated_value,
    "deadline_days": lambda t: t.submission_deadline,
    "deadline_until": lambda t: t.submission_deadline,
    "published_since": lambda t: t.published_at,
    "status": lambda t: t.status,
}
_REPORTED_WITH = {"umkreis_km": "umkreis_plz"}  # a radius is one reason with its centre


def _plain(value) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple | list):
        return ", ".join(str(item) for item in value)
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _filter_values(filters: TenderFilters, tender) -> tuple[tuple[str, str], ...]:
    """Each filter the search sets, with the tender's value that satisfied it (the filter's own value where
    the tender's is not on the row, e.g. the portal)."""
    shown = []
    for name in _PLAIN_FILTERS:
        wanted = getattr(filters, name)
        if wanted in (None, "", ()) or name in _REPORTED_WITH:
            continue
        own = _TENDER_VALUE.get(name)
        shown.append((name, _plain(own(tender)) if own is not None else _plain(wanted)))
    return tuple(shown)


def match_reasons(
    *,
    filters: TenderFilters,
    tenders: Sequence,
    keywords: KeywordQuery | None = None,
    language: str = "de",
    description_attr: str = "description",
    highlighter: Highlighter | None = None,
) -> dict[int, MatchReasons]:
    """Reasons by tender id for ``tenders`` (objects with the Tender columns shown) under ``filters``.

    Costs at most two queries whatever the number of tenders (the keywords' lexemes unless ``keywords``
    is given, and the stems of the shown texts' candidate words), none without keywords. A page that also
    highlights passes its ``highlighter``: words stemmed here are not stemmed again. Only loaded columns
    are read (``description_attr``: a result page loads the head of the description).
    """
    words_by_tender: dict[int, tuple[WordHits, ...]] = {}
    if filters.q:
        if highlighter is None:
            highlighter = Highlighter(keywords.check_for(filters.q) if keywords is not None else filters.q)
        texts_by_tender = {tender.pk: _field_texts(tender, description_attr) for tender in tenders}
        highlighter.prepare(
            text for texts in texts_by_tender.values() for group in texts.values() for text, _parts in group
        )
        known: dict[tuple[str, bool, bool], tuple[str, ...]] = {}
        for tender in tenders:
            texts = texts_by_tender[tender.pk]
            words_by_tender[tender.pk] = tuple(
                WordHits(field=name, words=hits)
                for name in WORD_FIELDS
                # The search does not look for thesaurus words in CPV labels (tenders.fulltext).
                if (hits := _hits(highlighter, texts[name], synonyms=name != "cpv_labels", known=known))
            )
    return {
        tender.pk: MatchReasons(
            words=words_by_tender.get(tender.pk, ()),
            cpv=_cpv_reasons(filters, list(tender.cpv_codes or ())),
            filters=_filter_values(filters, tender),
        )
        for tender in tenders
    }


def match_reasons_by_filters(
    *,
    filters_by_key: Mapping[Hashable, TenderFilters],
    tender,
    language: str = "de",
    keywords_version: str | None = None,
) -> dict[Hashable, MatchReasons]:
    """One tender's reasons under several filters (each profile that matched it), by the caller's keys.

    Each filter's keywords are compiled once (a query each, none where this process compiled them under
    ``keywords_version`` before); the tender's words are stemmed once for all. ``keywords_version``: the
    version the caller read with the tender (``tenders.fulltext.keywords_version_column``), else read here.
    """
    highlighters = {
        key: Highlighter(filters.q, version=keywords_version) for key, filters in filters_by_key.items() if filters.q
    }
    texts = [text for group in _field_texts(tender, "description").values() for text, _parts in group]
    highlighters_prepare(highlighters.values(), texts)
    return {
        key: match_reasons(filters=filters, tenders=[tender], language=language, highlighter=highlighters.get(key))[
            tender.pk
        ]
        for key, filters in filters_by_key.items()
    }
