"""One request changing one or several things of a card (the partner API's PATCH and its decision POST): all of
them or none.

Each change goes through its own service (``notifications.bids.services``), so permissions, checks and the
card's history are the portal's; the surrounding transaction takes back the earlier changes when a later one
is refused (a 400 for the partner leaves the card as it was). The decision comes last: "kein Angebot" moves
the card to "nicht angeboten", after any stage asked for in the same call.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from kernel.errors import ApplicationError, NotFound
from notifications.bids import services
from notifications.models import BidCard

UNCHANGED = object()


@transaction.atomic
def bid_card_change(
    *,
    card_id: int,
    actor: AbstractBaseUser,
    stage_id=UNCHANGED,
    owner_id=UNCHANGED,
    due_date=UNCHANGED,
    watcher_ids=UNCHANGED,
    decision=UNCHANGED,
    reason_id=UNCHANGED,
    now: datetime | None = None,
) -> BidCard:
    if not BidCard.objects.filter(pk=card_id).exists():
        raise NotFound(_("Diese Karte gibt es nicht."))
    if reason_id is not UNCHANGED and decision is UNCHANGED:
        raise ApplicationError(fields={"reason": _("Ein Grund gehört zu einer Entscheidung.")})
    if stage_id is not UNCHANGED:
        services.bid_card_move(card_id=card_id, actor=actor, stage_id=int(stage_id), now=now)
    if owner_id is not UNCHANGED:
        services.bid_card_assign(card_id=card_id, actor=actor, owner_id=owner_id, now=now)
    if due_date is not UNCHANGED:
        services.bid_card_due_set(card_id=card_id, actor=actor, due_date=due_date, now=now)
    if watcher_ids is not UNCHANGED:
        services.bid_card_watchers_set(card_id=card_id, actor=actor, watcher_ids=list(watcher_ids), now=now)
    if decision is not UNCHANGED:
        reason = None if reason_id is UNCHANGED else reason_id
        services.bid_card_decide(card_id=card_id, actor=actor, decision=decision, reason_id=reason, now=now)
    return BidCard.objects.get(pk=card_id)
