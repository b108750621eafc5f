"""Who won, by the tenant's own records: pure rules over an award notice's result rows.

An award row (``Tender.awards``: lot, winner's name and identifier, value) names the tenant when its
supplier's name folds to the key of one of the tenant's names or former names (``tenders.merging``'s
``normalise_name``, the market view's supplier key: legal forms, case, umlauts, "&" and punctuation), or
when its supplier identifier is one of the tenant's identifiers (USt-IdNr, Handelsregisternummer).

Identifiers are compared without spaces, dots, dashes and case. A VAT id with its country prefix
("DE 123.456.789") also matches the bare number a notice may carry ("123456789"); two numbers with
different prefixes never match. A register number is its court's register and number ("HRB 12345",
whatever court text follows), since notices rarely spell the court the same way.

A card's outcome: won when any row of the tender names the tenant (the card may be in any open stage: a
win is a fact, wherever the team left the card); lost when the card is in the submitted stage (the board's
last open stage, "abgegeben" by default) and the tender has winners, none of them the tenant. Cards in a
closed stage stay where the team put them. Limit: a notice covering only some lots of a tender the tenant
bid on a different lot of reads as lost; the team moves the card back, and nothing moves it again unless
the awards change.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from tenders.merging import normalise_name

NAME_KEY_LENGTH = 200
_NOT_ALNUM = re.compile(r"[^0-9A-Z]")
_REGISTER = re.compile(r"\b(HRA|HRB|GNR|PR|VR)\s*[-.:]?\s*(\d+)\s*([A-Z]{0,2})\b")
_PREFIXED = re.compile(r"^([A-Z]{2})(\d[0-9A-Z]*)$")


def name_key(text: str) -> str:
    """The key a name is matched by (the market view's supplier key)."""
    return normalise_name(text or "")[:NAME_KEY_LENGTH]


def identifier_key(text: str) -> str:
    """ "DE 123.456.789" → "DE123456789"; "HRB 12345 B, Amtsgericht Charlottenburg" → "HRB12345B"."""
    upper = (text or "").upper().replace("Ü", "UE").replace("Ö", "OE").replace("Ä", "AE")
    register = _REGISTER.search(upper)
    if register:
        return "".join(register.groups())
    return _NOT_ALNUM.sub("", upper)[:60]


def _identifier_forms(key: str) -> frozenset[str]:
    """A key and, for a country-prefixed number, the bare number (what a notice without prefix carries)."""
    prefixed = _PREFIXED.match(key)
    return frozenset({key, prefixed.group(2)}) if prefixed else frozenset({key})


def identifiers_match(ours: str, theirs: str) -> bool:
    if not ours or not theirs:
        return False
    if ours == theirs:
        return True
    # Only a bare number meets the number of a prefixed one: "DE123" and "AT123" are different firms.
    bare_ours, bare_theirs = not _PREFIXED.match(ours), not _PREFIXED.match(theirs)
    return (bare_theirs and theirs in _identifier_forms(ours)) or (bare_ours and ours in _identifier_forms(theirs))


@dataclass(frozen=True)
class Identities:
    """The tenant's keys: folded names and normalised identifiers."""

    name_keys: frozenset[str] = frozenset()
    id_keys: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.name_keys or self.id_keys)

    def names(self, row: AwardRow) -> bool:
        if row.name_key and row.name_key in self.name_keys:
            return True
        return bool(row.id_key) and any(identifiers_match(key, row.id_key) for key in self.id_keys)


@dataclass(frozen=True)
class AwardRow:
    """One winner of one lot, as an award notice states it."""

    lot_id: str
    supplier_name: str
    supplier_id: str
    value: Decimal | None
    currency: str

    @property
    def name_key(self) -> str:
        return name_key(self.supplier_name)

    @property
    def id_key(self) -> str:
        return identifier_key(self.supplier_id)


def _decimal(value) -> Decimal | None:
    if value in (None, ""):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def winner_rows(awards: Sequence[Mapping] | None) -> tuple[AwardRow, ...]:
    """The rows of ``Tender.awards`` that name a winner (lots closed without one are no win for anybody)."""
    rows = []
    for award in awards or ():
        if not isinstance(award, Mapping):
            continue
        name, supplier_id = str(award.get("supplier_name") or ""), str(award.get("supplier_id") or "")
        if not (name or supplier_id) or award.get("status") not in (None, "", "awarded"):
            continue
        rows.append(
            AwardRow(
                lot_id=str(award.get("lot_id") or ""),
                supplier_name=name,
                supplier_id=supplier_id,
                value=_decimal(award.get("value")),
                currency=str(award.get("currency") or ""),
            )
        )
    return tuple(rows)


def awards_digest(rows: Iterable[AwardRow]) -> str:
    """A short fingerprint of what a notice says (the dedupe key of the mails telling it)."""
    text = json.dumps([[r.lot_id, r.name_key, r.id_key, str(r.value)] for r in rows], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CardState:
    card_id: int
    tender_id: int
    is_open: bool
    submitted: bool  # in the board's last open stage ("abgegeben")


WON, LOST = "won", "lost"


@dataclass(frozen=True)
class CardOutcome:
    card_id: int
    tender_id: int
    outcome: str  # WON or LOST
    rows: tuple[AwardRow, ...]  # won: the lots the tenant won; lost: the winners

    @property
    def digest(self) -> str:
        return awards_digest(self.rows)


def card_outcomes(
    *, cards: Iterable[CardState], awards: Mapping[int, tuple[AwardRow, ...]], identities: Identities
) -> list[CardOutcome]:
    """Which open cards an award notice decides, and how (see module docstring)."""
    outcomes = []
    for card in cards:
        rows = awards.get(card.tender_id) or ()
        if not card.is_open or not rows:
            continue
        ours = tuple(row for row in rows if identities and identities.names(row))
        if ours:
            outcomes.append(CardOutcome(card.card_id, card.tender_id, WON, ours))
        elif card.submitted:
            outcomes.append(CardOutcome(card.card_id, card.tender_id, LOST, rows))
    return outcomes


@dataclass(frozen=True)
class Competitor:
    id: int
    name_key: str = ""
    id_key: str = ""

    def names(self, row: AwardRow) -> bool:
        if self.name_key and row.name_key == self.name_key:
            return True
        return identifiers_match(self.id_key, row.id_key)


@dataclass(frozen=True)
class CompetitorWinFound:
    competitor_id: int
    tender_id: int
    row: AwardRow


def competitor_wins(
    *, competitors: Iterable[Competitor], awards: Mapping[int, tuple[AwardRow, ...]]
) -> list[CompetitorWinFound]:
    """Every (competitor, tender, lot) the awards name a watched competitor the winner of."""
    competitors = tuple(competitors)
    found: dict[tuple[int, int, str], CompetitorWinFound] = {}
    for tender_id, rows in awards.items():
        for row in rows:
            for competitor in competitors:
                if competitor.names(row):
                    found.setdefault(
                        (competitor.id, tender_id, row.lot_id), CompetitorWinFound(competitor.id, tender_id, row)
                    )
    return list(found.values())


def money_text(value: Decimal | None, currency: str) -> str:
    """125000 → "125.000 €", 13768.11 → "13.768,11 €" (German, as the board's history)."""
    if value is None:
        return ""
    places = 0 if value == value.to_integral_value() else 2
    number = f"{value:,.{places}f}".replace(",", "\x00").replace(".", ",").replace("\x00", ".")
    code = (currency or "EUR").upper()
    return f"{number} {'€' if code == 'EUR' else code}"


def lot_text(row: AwardRow, *, lots: int) -> str:
    """ "Los 2, 13.768,11 €" (the lot's number when the notice has several lots)."""
    parts = []
    if row.lot_id and lots > 1:
        number = row.lot_id.rsplit("-", 1)[-1].lstrip("0") or row.lot_id
        parts.append(f"Los {number}")
    if row.value is not None:
        parts.append(money_text(row.value, row.currency))
    return ", ".join(parts)


def outcome_note(outcome: CardOutcome, *, lots: int) -> str:
    """The history line: "gewonnen: Zuschlag laut Bekanntmachung (Los 2, 13.768,11 €)" or, lost, the winners."""
    if outcome.outcome == WON:
        details = "; ".join(filter(None, (lot_text(row, lots=lots) for row in outcome.rows)))
        return "gewonnen: Zuschlag laut Bekanntmachung" + (f" ({details})" if details else "")
    winners = "; ".join(
        row.supplier_name + (f" ({text})" if (text := lot_text(row, lots=lots)) else "") for row in outcome.rows
    )
    return f"verloren: Zuschlag laut Bekanntmachung an {winners}"
