"""Award notices on the team board and competitor wins, in the tenant's delta processing.

``award_outcomes_apply`` runs inside ``delta_process``'s transaction, after the batch's cards landed, for
the batch's new and changed tenders. Set-based: one read of the batch's tenders that state winners (none:
nothing else is read), one of the tenant's identities and watched competitors, then the board's own stage rule
(``notifications.bid_cards.bid_cards_move``: the affected cards locked, one update per target stage, one insert
of their history rows), as a person's move on the board; the competitor wins are one
``INSERT … ON CONFLICT DO NOTHING RETURNING``. The rules are pure (``notifications.alerts.award_rules``).

Told exactly once: a card moves only from an open stage, so a re-run of the same delta finds it closed and
tells nobody again; each mail also carries a dedupe key of card, notice content and person. A competitor's
win is a row per (competitor, tender, lot), told only when this run inserted it; the lots one notice gives
the same competitor are one mail (key: competitor, tender and the new rows).

Who is told: a card's owner and watchers, or the whole active team when the card has neither; a
competitor's wins go to the person who put it on the watch list (a list without its author is quiet).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import translation
from django.utils.translation import gettext as _

from notifications.alerts.award_rules import (
    LOST,
    WON,
    AwardRow,
    CardOutcome,
    CardState,
    Competitor,
    CompetitorWinFound,
    Identities,
    card_outcomes,
    competitor_wins,
    lot_text,
    outcome_note,
    winner_rows,
)
from notifications.alerts.composing import ids_key, mailable, user_language
from notifications.alerts.deliveries import delivery_create
from notifications.alerts.rendering import header_safe, tender_url
from notifications.alerts.selectors import tenant_base_url
from notifications.bid_cards import StageMove, bid_cards_move, card_people_ids
from notifications.bid_links import card_url
from notifications.models import (
    ID_IDENTITY_KINDS,
    NAME_IDENTITY_KINDS,
    BidCard,
    BidStage,
    BidStageKind,
    CompanyIdentity,
    CompetitorWin,
    DeliveryKind,
    WatchedCompetitor,
)
from notifications.webhooks.card_events import EVENT_CARD_STAGE_CHANGED, webhook_events_for_cards
from tenders.models import Tender


@dataclass(frozen=True)
class AwardedTender:
    id: int
    title: str
    buyer_name: str
    rows: tuple[AwardRow, ...]
    lots: int  # lots the notice states a result for (a single lot is named by no number)


@dataclass(frozen=True)
class AwardsApplied:
    moved: tuple[CardOutcome, ...] = ()
    competitor_win_ids: tuple[int, ...] = ()
    delivery_ids: tuple[int, ...] = ()


def awarded_tenders(*, tender_ids: Sequence[int]) -> dict[int, AwardedTender]:
    """The batch's tenders that name winners (one statement; a batch without award results reads nothing else)."""
    found = {}
    rows = (
        Tender.objects.filter(pk__in=list(tender_ids))
        .exclude(awards=[])
        .values_list("id", "title", "buyer_name", "awards")
    )
    for tender_id, title, buyer_name, awards in rows:
        winners = winner_rows(awards)
        if winners:
            lots = len({str(a.get("lot_id") or "") for a in awards if isinstance(a, dict)})
            found[tender_id] = AwardedTender(tender_id, title, buyer_name, winners, lots)
    return found


def tenant_identities() -> Identities:
    names, ids = set(), set()
    for kind, key in CompanyIdentity.objects.values_list("kind", "key"):
        if kind in NAME_IDENTITY_KINDS:
            names.add(key)
        elif kind in ID_IDENTITY_KINDS:
            ids.add(key)
    return Identities(frozenset(names), frozenset(ids))


def _stages() -> tuple[int | None, int | None, int | None]:
    """(the submitted stage: the last open one, the first won stage, the first lost stage)."""
    submitted = won = lost = None
    for stage_id, kind in BidStage.objects.order_by("position", "id").values_list("id", "kind"):
        if kind == BidStageKind.OPEN:
            submitted = stage_id
        elif kind == BidStageKind.WON and won is None:
            won = stage_id
        elif kind == BidStageKind.LOST and lost is None:
            lost = stage_id
    return submitted, won, lost


def _cards_move(outcomes: list[CardOutcome], *, tenders: dict[int, AwardedTender], now: datetime) -> list[CardOutcome]:
    """Move the decided cards through the board's one stage rule (still open ones only); returns those moved."""
    _submitted, won_stage, lost_stage = _stages()
    target = {WON: won_stage, LOST: lost_stage}
    outcomes = [o for o in outcomes if target[o.outcome] is not None]
    moves = [
        StageMove(
            card_id=o.card_id,
            stage_id=target[o.outcome],
            note={
                "kind": o.outcome,
                "via": "award",
                "note": outcome_note(o, lots=tenders[o.tender_id].lots),
                "winners": [
                    {
                        "lot": r.lot_id,
                        "name": r.supplier_name,
                        "value": str(r.value) if r.value is not None else "",
                        "currency": r.currency,
                    }
                    for r in o.rows
                ],
            },
        )
        for o in outcomes
    ]
    moved_events = bid_cards_move(moves=moves, actor=None, now=now, open_only=True)
    # Partners hear of these stage changes like of any other (card.stage_changed, same transaction).
    webhook_events_for_cards(card_events=moved_events, events=(EVENT_CARD_STAGE_CHANGED,))
    moved = {event.card_id for event in moved_events}
    return [o for o in outcomes if o.card_id in moved]


def _card_people(card_ids: list[int]) -> dict[int, list]:
    """Each card's owner and watchers, or the active team when a card has neither (two statements)."""
    wanted = card_people_ids(card_ids=card_ids)
    people = {u.pk: u for u in get_user_model().objects.filter(is_active=True).select_related("preference")}
    return {
        card_id: [people[i] for i in sorted(wanted[card_id]) if i in people]
        or sorted(people.values(), key=lambda u: u.pk)
        for card_id in card_ids
    }


def _outcome_text(outcome: CardOutcome, *, tender: AwardedTender, base_url: str) -> tuple[str, str]:
    """Subject and plain text of a won/lost mail, in the active language."""
    title = {"title": header_safe(tender.title, max_length=150)}
    facts = {"title": tender.title, "buyer": tender.buyer_name or "–"}
    if outcome.outcome == WON:
        subject = _("Gewonnen: %(title)s") % title
        intro = _("Laut Zuschlagsbekanntmachung hat Ihr Unternehmen den Zuschlag erhalten: „%(title)s“ (%(buyer)s).")
    else:
        subject = _("Verloren: %(title)s") % title
        intro = _("Laut Zuschlagsbekanntmachung ging der Zuschlag für „%(title)s“ (%(buyer)s) an:")
    rows = [
        f"- {row.supplier_name}" + (f" ({text})" if (text := lot_text(row, lots=tender.lots)) else "")
        for row in outcome.rows
    ]
    link = _("Zur Karte: %(link)s") % {"link": card_url(base_url, outcome.card_id)}
    return subject, "\n\n".join([intro % facts, "\n".join(rows), link])


def _outcome_mails(outcomes: list[CardOutcome], *, tenders: dict[int, AwardedTender]) -> list[int]:
    if not outcomes:
        return []
    base_url = tenant_base_url()
    people = _card_people([o.card_id for o in outcomes])
    delivery_ids = []
    for outcome in outcomes:
        tender = tenders[outcome.tender_id]
        for person in people[outcome.card_id]:
            if not mailable(person):
                continue
            with translation.override(user_language(person)):
                subject, body = _outcome_text(outcome, tender=tender, base_url=base_url)
            delivery = delivery_create(
                kind=DeliveryKind.AWARD,
                user=person,
                recipient=person.email,
                subject=subject,
                text_body=body,
                headers={"Auto-Submitted": "auto-generated"},
                dedupe_key=f"award:{outcome.card_id}:{outcome.outcome}:{outcome.digest}:{person.pk}",
                send_soon=False,
            )
            delivery_ids.append(delivery.pk)
    return delivery_ids


def _wins_insert(found: list[CompetitorWinFound], *, now: datetime) -> list[tuple[int, int, int, str]]:
    """Record the wins; returns (id, competitor, tender, lot) of the rows this run inserted."""
    if not found:
        return []
    table = CompetitorWin._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (competitor_id, tender_id, lot_id, supplier_name, value, currency, created_at) "  # noqa: S608
            "SELECT * , %s FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::text[], %s::numeric[], %s::text[]) "
            "ON CONFLICT (competitor_id, tender_id, lot_id) DO NOTHING RETURNING id, competitor_id, tender_id, lot_id",
            [
                now,
                [f.competitor_id for f in found],
                [f.tender_id for f in found],
                [f.row.lot_id[:100] for f in found],
                [f.row.supplier_name[:500] for f in found],
                [f.row.value for f in found],
                [f.row.currency[:3] for f in found],
            ],
        )
        return cursor.fetchall()


def _competitor_mails(
    inserted: list[tuple[int, int, int, str]],
    *,
    found: list[CompetitorWinFound],
    competitors: dict[int, WatchedCompetitor],
    tenders: dict[int, AwardedTender],
) -> list[int]:
    if not inserted:
        return []
    rows = {(f.competitor_id, f.tender_id, f.row.lot_id[:100]): f.row for f in found}
    grouped: dict[tuple[int, int], list[tuple[int, AwardRow]]] = defaultdict(list)
    for win_id, competitor_id, tender_id, lot_id in inserted:
        grouped[(competitor_id, tender_id)].append((win_id, rows[(competitor_id, tender_id, lot_id)]))
    base_url = tenant_base_url()
    delivery_ids = []
    for (competitor_id, tender_id), wins in sorted(grouped.items()):
        competitor, tender = competitors[competitor_id], tenders[tender_id]
        person = competitor.created_by
        if person is None or not mailable(person):
            continue
        with translation.override(user_language(person)):
            subject = _("Wettbewerber %(name)s gewinnt: %(title)s") % {
                "name": header_safe(competitor.label, max_length=80),
                "title": header_safe(tender.title, max_length=120),
            }
            lines = [
                _("%(name)s hat laut Zuschlagsbekanntmachung gewonnen: „%(title)s“")
                % {"name": competitor.label, "title": tender.title},
                _("Vergabestelle: %(buyer)s") % {"buyer": tender.buyer_name or "–"},
                "",
                *(
                    f"- {row.supplier_name}" + (f" ({text})" if (text := lot_text(row, lots=tender.lots)) else "")
                    for _win, row in wins
                ),
                "",
                _("Zur Ausschreibung: %(link)s") % {"link": tender_url(base_url, tender_id)},
            ]
        delivery = delivery_create(
            kind=DeliveryKind.COMPETITOR,
            user=person,
            recipient=person.email,
            subject=subject,
            text_body="\n".join(lines),
            headers={"Auto-Submitted": "auto-generated"},
            dedupe_key=f"competitor:{competitor_id}:{tender_id}:{ids_key(w for w, _row in wins)}",
            send_soon=False,
        )
        delivery_ids.append(delivery.pk)
    return delivery_ids


def award_outcomes_apply(*, tender_ids: Sequence[int], now: datetime) -> AwardsApplied:
    """What the batch's award notices mean for this tenant: cards won or lost, competitors' wins (see module)."""
    tenders = awarded_tenders(tender_ids=tender_ids)
    if not tenders:
        return AwardsApplied()
    awards = {tender_id: tender.rows for tender_id, tender in tenders.items()}
    submitted, _won, _lost = _stages()
    cards = [
        CardState(card_id, tender_id, kind == BidStageKind.OPEN, stage_id == submitted)
        for card_id, tender_id, stage_id, kind in BidCard.objects.filter(tender_id__in=list(tenders)).values_list(
            "id", "tender_id", "stage_id", "stage__kind"
        )
    ]
    moved = _cards_move(
        card_outcomes(cards=cards, awards=awards, identities=tenant_identities()), tenders=tenders, now=now
    )
    delivery_ids = _outcome_mails(moved, tenders=tenders)
    competitors = {c.pk: c for c in WatchedCompetitor.objects.select_related("created_by", "created_by__preference")}
    found = competitor_wins(
        competitors=[Competitor(c.pk, c.name_key, c.id_key) for c in competitors.values()], awards=awards
    )
    inserted = _wins_insert(found, now=now)
    delivery_ids += _competitor_mails(inserted, found=found, competitors=competitors, tenders=tenders)
    return AwardsApplied(tuple(moved), tuple(row[0] for row in inserted), tuple(delivery_ids))
