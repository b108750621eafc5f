"""TED Search API v3 (POST https://api.ted.europa.eu/v3/notices/search) results -> ``NoticeRecord``.

What is asked for (the query, the request body, ``TED_FIELDS``) is ``sources.parsers.ted_query``.

Why JSON search results and not the notice XML: one request returns up to 250 notices
with exactly the fields we ask for (``TED_FIELDS``), anonymously. The price is a flat,
lossy shape: every field is a per-notice list (lot-level fields are *not* grouped by
lot, and duplicates are common: ``place-of-performance`` = ["DE40E", "DEU", "DE40E",
"DEU"]), text fields are language maps ({"deu": [...], "eng": "..."}) whose values
are strings or lists, and empty fields may arrive as ``{}``.

Decisions and limits:

* Titles: ``title-proc`` (the procedure title, as DÖE/eForms carry it) first, then
  ``notice-title`` (TED's "Land – CPV – Titel" composite); German before English.
* Lots are rebuilt by index from ``identifier-lot`` / ``title-lot`` /
  ``estimated-value-lot`` only when the lists have equal length; per-lot CPV codes
  cannot be aligned and stay empty.
* Deadline: earliest ``deadline-receipt-tender-date/time-lot``. Without one, the
  earliest ``deadline-receipt-request-*`` (Teilnahmeantrag, restricted procedures)
  is stored as ``submission_deadline`` - the first date a bidder must act. A date
  without time becomes 00:00 of that day (early rather than late).
* ``estimated_value`` only from ``estimated-value-*``; award values
  (``tender-value``) are no estimates: they go to ``awards`` (``ted_results``).
* ``referenced_notice_ids``: ``notice-identifier`` is the notice's own eForms UUID,
  which for German notices is also DÖE's notice id - it goes first so the merge can
  join TED and DÖE copies; ``change-notice-version-identifier`` ("<uuid>-01") adds the
  changed notice's UUID.
* Status of a result notice is AWARDED: whether a CAN announces a non-award is not
  visible in the requested fields.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from kernel.addresses import bundesland_for_place
from kernel.identifiers import canonical_publication_number
from kernel.links import portal_references_from_urls, urls_in_json
from kernel.normalise import (
    END_OF_DAY,
    clean_text,
    combine_date_time,
    normalise_postal_code,
    parse_decimal,
    parse_iso_datetime,
)
from kernel.records import Deadline, Lot, NoticeKind, NoticeRecord
from kernel.vocabulary.contract_nature import contract_nature_code
from kernel.vocabulary.cpv import unique_cpv
from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.regions import nuts_codes_from
from kernel.vocabulary.statuses import TenderStatus
from sources.parsers.ted_results import ted_awards

__all__ = ["TedParseError", "parse_ted_notice", "parse_ted_search_response", "pick_language"]

TED_NOTICE_URL = "https://ted.europa.eu/de/notice/-/detail/{}"
PREFERRED_LANGUAGES = ("deu", "ger", "de", "eng", "en")


class TedParseError(ValueError):
    """The bytes are no TED search response, or one notice object is unusable."""


def parse_ted_search_response(data: bytes) -> tuple[list[NoticeRecord], str | None, list[str]]:
    """(records, iterationNextToken, errors) of one result page; a bad notice becomes an error string."""
    document = _load_json(data)
    notices, token = _envelope(document)
    records: list[NoticeRecord] = []
    errors: list[str] = []
    if isinstance(document, dict) and document.get("timedOut") is True:
        errors.append("TED search timed out: this page may be incomplete")
    for index, notice in enumerate(notices):
        label = (_first(notice.get("publication-number")) if isinstance(notice, dict) else "") or f"#{index}"
        try:
            records.append(parse_ted_notice(notice))
        except Exception as exc:  # one broken notice must not cost the page; the error names it
            errors.append(f"TED notice {label}: {type(exc).__name__}: {exc}")
    return records, token, errors


def _load_json(data: bytes) -> Any:
    if not isinstance(data, (bytes, bytearray, str)):
        raise TedParseError(f"expected bytes, got {type(data).__name__}")
    data = (data.encode("utf-8") if isinstance(data, str) else bytes(data)).removeprefix(b"\xef\xbb\xbf")
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise TedParseError(f"not valid JSON: {exc}") from None


def _envelope(document: Any) -> tuple[list, str | None]:
    if isinstance(document, list):
        return document, None
    if not isinstance(document, dict):
        raise TedParseError(f"expected a search response object or a list of notices, got {type(document).__name__}")
    notices = document.get("notices")
    if not isinstance(notices, list):
        raise TedParseError(f"'notices' must be a list, got {type(notices).__name__}")
    token = document.get("iterationNextToken")
    return notices, token.strip() if isinstance(token, str) and token.strip() else None


# --- field value access --------------------------------------------------------------------------


def _texts(value: Any) -> list[str]:
    """Strings (and numbers) of a plain value or a (nested) list, in order; everything else is ignored."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def language_values(value: Any, preferred: tuple[str, ...] = PREFERRED_LANGUAGES) -> list[str]:
    """All texts of a multilingual field in the first preferred language present (else any language)."""
    if not isinstance(value, dict):
        return _texts(value)
    by_language = {str(key).lower(): texts for key, texts in value.items()}
    for language in preferred:
        if texts := _texts(by_language.get(language)):
            return texts
    return next((texts for texts in map(_texts, value.values()) if texts), [])


def pick_language(value: Any, preferred: tuple[str, ...] = PREFERRED_LANGUAGES) -> str:
    """One cleaned text of a TED field: {"deu": [...], "eng": "..."}, a list or a string; German first."""
    texts = language_values(value, preferred)
    return clean_text(texts[0]) if texts else ""


def _first(value: Any) -> str:
    texts = _texts(value)
    return texts[0] if texts else ""


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(clean_text(v) for v in values if clean_text(v)))


# --- notice -> record ----------------------------------------------------------------------------


def parse_ted_notice(obj: dict) -> NoticeRecord:
    """One notice object of a v3 search result; raises TedParseError without a publication number."""
    if not isinstance(obj, dict):
        raise TedParseError(f"notice must be an object, got {type(obj).__name__}")
    number = _first(obj.get("publication-number"))
    if not number:
        raise TedParseError("notice without publication-number")
    kind = _kind(_first(obj.get("notice-type")).lower(), _first(obj.get("form-type")).lower())
    nuts = nuts_codes_from(_texts(obj.get("place-of-performance")))
    value, currency = _estimated_value(obj)
    postal_code = normalise_postal_code(_first(obj.get("place-of-performance-post-code-lot")))
    country = _country(obj)
    deadlines = _deadlines(obj)
    lots = _lots(obj)
    awards = ted_awards(obj, [lot.lot_id for lot in lots]) if kind is NoticeKind.AWARD else ()
    start_dates = [d for d in map(parse_iso_datetime, _texts(obj.get("contract-duration-start-date-lot"))) if d]
    end_dates = [d for d in map(parse_iso_datetime, _texts(obj.get("contract-duration-end-date-lot"))) if d]
    natures = {contract_nature_code(n) for n in _texts(obj.get("contract-nature"))} - {""}
    return NoticeRecord(
        source="ted",
        origin=Origin.OFFICIAL,
        source_notice_id=number,
        version="01",
        kind=kind,
        procedure_id=_first(obj.get("procedure-identifier")) or None,
        referenced_notice_ids=_referenced_notice_ids(obj),
        portal_references=portal_references_from_urls(urls_in_json(obj)),
        title=pick_language(obj.get("title-proc")) or pick_language(obj.get("notice-title")),
        description=pick_language(obj.get("description-proc")) or pick_language(obj.get("description-lot")),
        buyer_name=pick_language(obj.get("buyer-name")),
        procedure_type=procedure_type_code(_first(obj.get("procedure-type"))),
        status=_status(kind),
        cpv_codes=unique_cpv(_texts(obj.get("classification-cpv"))),
        nuts_codes=nuts,
        bundesland=bundesland_for_place(
            nuts_codes=nuts,
            postal_code=postal_code,
            country=_first(obj.get("place-of-performance-country-lot")),
            buyer_postal_code=normalise_postal_code(_first(obj.get("buyer-post-code"))),
            buyer_country=_first(obj.get("buyer-country")),
        ),
        postal_code=postal_code,
        town=pick_language(obj.get("place-of-performance-city-lot")),
        country=country,
        estimated_value=value,
        currency=currency,
        published_at=parse_iso_datetime(_first(obj.get("publication-date"))),
        submission_deadline=_deadline(obj, "tender") or _deadline(obj, "request"),
        lots=lots,
        documents_url=_first(obj.get("document-url-lot")) or _first(obj.get("submission-url-lot")),
        url=_html_link(obj) or TED_NOTICE_URL.format(number),
        suppliers=_unique(language_values(obj.get("winner-name"))),
        awards=awards,
        buyer_postal_code=normalise_postal_code(_first(obj.get("buyer-post-code"))),
        buyer_town=pick_language(obj.get("buyer-city")),
        buyer_country=_first(obj.get("buyer-country")).upper(),
        buyer_email=_first(obj.get("buyer-email")),
        contract_nature=natures.pop() if len(natures) == 1 else "",
        # TED lists the procedure's main classification first (both saved notices do).
        main_cpv=next(iter(unique_cpv(_texts(obj.get("classification-cpv")))), ""),
        deadlines=deadlines,
        publication_number=canonical_publication_number(number),
        contract_start=min(start_dates).date() if start_dates else None,
        contract_end=max(end_dates).date() if end_dates else None,
        payload={
            "format": "ted-search-v3",
            "publication_number": number,
            "notice_identifier": _first(obj.get("notice-identifier")),
            "notice_type": _first(obj.get("notice-type")),
            "form_type": _first(obj.get("form-type")),
        },
    )


_FORM_TYPE_KIND = {
    "planning": NoticeKind.PRIOR_INFORMATION,
    "competition": NoticeKind.CONTRACT_NOTICE,
    "change": NoticeKind.CHANGE,
    "result": NoticeKind.AWARD,
    "dir-awa-pre": NoticeKind.AWARD,
    "cont-modif": NoticeKind.CHANGE,  # a contract modification, no new award
}


def _kind(notice_type: str, form_type: str) -> NoticeKind:
    """eForms notice-type first (cn-*, can-*, pin-*, corr, veat), then form-type."""
    if notice_type in ("corr", "can-modif") or form_type in ("change", "cont-modif"):
        return NoticeKind.CHANGE
    if notice_type.startswith("pin-"):
        return NoticeKind.PRIOR_INFORMATION
    if notice_type.startswith("can-") or notice_type == "veat":
        return NoticeKind.AWARD
    if notice_type.startswith("cn-") or notice_type == "subco":
        return NoticeKind.CONTRACT_NOTICE
    return _FORM_TYPE_KIND.get(form_type, NoticeKind.CONTRACT_NOTICE)


def _status(kind: NoticeKind) -> TenderStatus:
    if kind is NoticeKind.AWARD:
        return TenderStatus.AWARDED
    return TenderStatus.CANCELLED if kind is NoticeKind.CANCELLATION else TenderStatus.ACTIVE


_VERSIONED_UUID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d{2}$", re.IGNORECASE)


def _referenced_notice_ids(obj: dict) -> tuple[str, ...]:
    ids = _texts(obj.get("notice-identifier"))
    ids += [_VERSIONED_UUID.sub(r"\1", i) for i in _texts(obj.get("change-notice-version-identifier"))]
    return tuple(dict.fromkeys(ids))


def _country(obj: dict) -> str:
    for field in ("place-of-performance-country-lot", "buyer-country"):
        for code in _texts(obj.get(field)):
            if re.fullmatch(r"[A-Za-z]{3}", code):
                return code.upper()
    return ""


def _estimated_value(obj: dict) -> tuple[Decimal | None, str]:
    """``estimated-value-proc``, else the sum of lot estimates when they share one currency."""
    amount = parse_decimal(_first(obj.get("estimated-value-proc")))
    if amount is not None:
        return amount, _first(obj.get("estimated-value-cur-proc")).upper()
    amounts = [a for a in map(parse_decimal, _texts(obj.get("estimated-value-lot"))) if a is not None]
    currencies = {c.upper() for c in _texts(obj.get("estimated-value-cur-lot"))}
    if amounts and len(currencies) == 1:
        return sum(amounts, Decimal(0)), currencies.pop()
    return None, ""


def _deadlines(obj: dict) -> tuple[Deadline, ...]:
    found = []
    for kind, field in ((DeadlineKind.TENDER, "tender"), (DeadlineKind.PARTICIPATION, "request")):
        if at := _deadline(obj, field):
            found.append(Deadline(kind=kind, at=at))
    return tuple(found)


def _deadline(obj: dict, kind: str) -> datetime | None:
    """Earliest ``deadline-receipt-<kind>-date-lot`` combined with the time at the same index."""
    dates = _texts(obj.get(f"deadline-receipt-{kind}-date-lot"))
    times = _texts(obj.get(f"deadline-receipt-{kind}-time-lot"))
    if len(times) != len(dates):
        times = times[:1] * len(dates) if len(times) == 1 else [""] * len(dates)
    # A date without a time means the end of that day, as in eForms (TED's own search results list
    # "deadline-receipt-request-date-lot": "2026-08-10+02:00" with no time for notice 479730-2026).
    moments = [
        combine_date_time(d, t) if t else parse_iso_datetime(d, default_time=END_OF_DAY)
        for d, t in zip(dates, times, strict=True)
    ]
    moments = [m for m in moments if m is not None]
    return min(moments) if moments else None


def _lots(obj: dict) -> tuple[Lot, ...]:
    ids = list(dict.fromkeys(_texts(obj.get("identifier-lot"))))
    titles = language_values(obj.get("title-lot"))
    values = _texts(obj.get("estimated-value-lot"))
    titles = titles if len(titles) == len(ids) else [""] * len(ids)
    amounts = [parse_decimal(v) for v in values] if len(values) == len(ids) else [None] * len(ids)
    return tuple(
        Lot(lot_id=lot_id, title=clean_text(title), estimated_value=amount)
        for lot_id, title, amount in zip(ids, titles, amounts, strict=True)
    )


def _html_link(obj: dict) -> str:
    html = obj.get("links")
    html = html.get("html") if isinstance(html, dict) else None
    if not isinstance(html, dict):
        return ""
    by_language = {str(key).upper(): value for key, value in html.items()}
    for language in ("DEU", "ENG"):
        if link := _first(by_language.get(language)):
            return link
    return next((link for link in map(_first, html.values()) if link), "")
