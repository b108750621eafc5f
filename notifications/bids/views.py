"""The team board (Angebote), a card's page, the one-click triage of dashboard rows and the admins' settings.

Thin: parse the form, call one service or selector. A POST answers htmx with the changed fragment and a plain
browser with a redirect (the board works without script). Errors of a service (``ApplicationError``) come back
as a message; a card id this tenant does not have is 404.
"""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import user_is_tenant_admin
from kernel.errors import ApplicationError, NotFound
from notifications.bid_cards import items_with_moves
from notifications.bid_dates import tender_items
from notifications.bids import services
from notifications.bids.outcome_selectors import win_rates
from notifications.bids.reminders import bid_stage_reminders_set
from notifications.bids.selectors import (
    bid_board,
    bid_card_detail,
    bid_stages,
    decision_reasons,
    team_members,
)
from notifications.models import BidDecision, BidStageKind


def _int(value, *, field: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise ApplicationError(fields={field: _("Ungültige Auswahl.")}) from exc


def _refused(request, exc: ApplicationError) -> None:
    text = "; ".join(str(message) for message in (exc.fields or {}).values()) or exc.text
    messages.error(request, text)


@login_required
@require_GET
def board(request):
    mine = request.GET.get("meine") == "1"
    show_closed = request.GET.get("alle") == "1"
    columns = bid_board(user=request.user, mine=mine, show_closed=show_closed, now=timezone.now())
    context = {
        "columns": columns,
        "stages": bid_stages(),
        "mine": mine,
        "show_closed": show_closed,
        "total": sum(len(column.cards) for column in columns),
        "is_admin": user_is_tenant_admin(request.user),
        "rates": win_rates(),
    }
    return render(request, "bids/board.html", context)


def _card_page(request, card_id: int, *, status: int = 200):
    detail = bid_card_detail(card_id=card_id)
    if detail is None:
        raise Http404(_("Diese Karte gibt es nicht."))
    context = {
        "detail": detail,
        "card": detail.card,
        "tender": detail.card.tender,
        "stages": bid_stages(),
        "reasons": decision_reasons(),
        "members": team_members(),
        "decisions": BidDecision.choices,
        "dated_items": items_with_moves(tender_items(tender_id=detail.card.tender_id), detail.events),
    }
    return render(request, "bids/card.html", context, status=status)


@login_required
@require_GET
def card_page(request, card_id: int):
    return _card_page(request, card_id)


def _after_change(request, card_id: int):
    if request.htmx and request.POST.get("from") == "board":
        return HttpResponse(status=204, headers={"HX-Refresh": "true"})
    return redirect(reverse("bids:card", args=[card_id]) + "#" + request.POST.get("anchor", "karte"))


def _card_action(request, card_id: int, action) -> HttpResponse:
    try:
        action()
    except NotFound as exc:
        raise Http404(exc.text) from exc
    except ApplicationError as exc:
        _refused(request, exc)
    return _after_change(request, card_id)


@login_required
@require_POST
def card_move(request, card_id: int):
    return _card_action(
        request,
        card_id,
        lambda: services.bid_card_move(
            card_id=card_id, actor=request.user, stage_id=_int(request.POST.get("stage"), field="stage") or 0
        ),
    )


@login_required
@require_POST
def card_assign(request, card_id: int):
    return _card_action(
        request,
        card_id,
        lambda: services.bid_card_assign(
            card_id=card_id, actor=request.user, owner_id=_int(request.POST.get("owner"), field="owner")
        ),
    )


@login_required
@require_POST
def card_watchers(request, card_id: int):
    def action():
        ids = [_int(value, field="watchers") for value in request.POST.getlist("watchers")]
        services.bid_card_watchers_set(card_id=card_id, actor=request.user, watcher_ids=[i for i in ids if i])

    return _card_action(request, card_id, action)


@login_required
@require_POST
def card_due(request, card_id: int):
    def action():
        raw = request.POST.get("due_date", "").strip()
        try:
            due = date.fromisoformat(raw) if raw else None
        except ValueError as exc:
            raise ApplicationError(fields={"due_date": _("Bitte ein Datum angeben (TT.MM.JJJJ).")}) from exc
        services.bid_card_due_set(card_id=card_id, actor=request.user, due_date=due)

    return _card_action(request, card_id, action)


@login_required
@require_POST
def card_decide(request, card_id: int):
    return _card_action(
        request,
        card_id,
        lambda: services.bid_card_decide(
            card_id=card_id,
            actor=request.user,
            decision=request.POST.get("decision", ""),
            reason_id=_int(request.POST.get("reason"), field="reason"),
        ),
    )


@login_required
@require_POST
def card_comment(request, card_id: int):
    return _card_action(
        request,
        card_id,
        lambda: services.card_comment_add(card_id=card_id, author=request.user, text=request.POST.get("text", "")),
    )


@login_required
@require_POST
def tender_card(request, tender_id: int):
    """The tender's card (put on the board if it is not there yet), from the tender page."""
    try:
        card = services.bid_card_ensure(tender_id=tender_id)
    except NotFound as exc:
        raise Http404(exc.text) from exc
    return redirect("bids:card", card.pk)


@login_required
@require_POST
def tender_quick(request, tender_id: int):
    """One-click "prüfen" / "nicht relevant" on a dashboard row; htmx gets the row's new state."""
    action = request.POST.get("action", "")
    try:
        card = services.bid_card_quick(tender_id=tender_id, actor=request.user, action=action)
    except NotFound as exc:
        raise Http404(exc.text) from exc
    except ApplicationError as exc:
        if request.htmx:
            return HttpResponse(exc.text, status=400)
        _refused(request, exc)
        return redirect("portal:dashboard")
    if request.htmx:
        return render(request, "bids/_quick_state.html", {"card": card, "tender_id": tender_id})
    return redirect("portal:dashboard")


# --- settings (tenant admins) ----------------------------------------------------------------------------------


@login_required
@require_GET
def settings_page(request):
    if not user_is_tenant_admin(request.user):
        raise Http404
    context = {
        "stages": bid_stages(),
        "reasons": decision_reasons(active_only=False),
        "kinds": BidStageKind.choices,
    }
    return render(request, "bids/settings.html", context)


@login_required
@require_POST
def settings_change(request):
    """One form per change on the settings page, told apart by ``op``; the services refuse non-admins."""
    op = request.POST.get("op", "")
    actor = request.user
    try:
        if op == "stage-create":
            services.bid_stage_create(actor=actor, name=request.POST.get("name", ""), kind=request.POST.get("kind", ""))
        elif op == "stage-update":
            stage_id = _int(request.POST.get("stage"), field="stage") or 0
            services.bid_stage_update(
                actor=actor,
                stage_id=stage_id,
                name=request.POST.get("name"),
                position=_int(request.POST.get("position"), field="position"),
            )
            if request.POST.get("reminders_shown") == "1":  # open stages only show the switch
                bid_stage_reminders_set(actor=actor, stage_id=stage_id, enabled=request.POST.get("reminders") == "1")
        elif op == "stage-delete":
            services.bid_stage_delete(actor=actor, stage_id=_int(request.POST.get("stage"), field="stage") or 0)
        elif op == "reason-create":
            services.decision_reason_create(actor=actor, label=request.POST.get("label", ""))
        elif op == "reason-update":
            services.decision_reason_update(
                actor=actor,
                reason_id=_int(request.POST.get("reason"), field="reason") or 0,
                label=request.POST.get("label"),
                is_active=request.POST.get("is_active") == "1",
            )
        else:
            raise ApplicationError(_("Unbekannte Aktion."))
    except NotFound as exc:
        raise Http404(exc.text) from exc
    except ApplicationError as exc:
        if exc.status == 403:
            raise
        _refused(request, exc)
    else:
        messages.success(request, _("Gespeichert."))
    return redirect("bids:settings")
