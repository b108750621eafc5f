"""The company's own identities and the watched competitors (one page, /angebote/firma/), the board's win
rate, and the market supplier page's "beobachten" button.

Thin: parse the form, call one service or selector. Every member sees the page and may watch competitors;
only tenant admins edit the identities (the service refuses others). Errors come back as a message.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import user_is_tenant_admin
from kernel.errors import ApplicationError
from notifications.bids import outcome_selectors, outcomes
from notifications.models import IdentityKind


def _id(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


@login_required
@require_GET
def company_page(request):
    context = {
        "identities": outcome_selectors.company_identities(),
        "competitors": outcome_selectors.watched_competitors(),
        "kinds": IdentityKind.choices,
        "is_admin": user_is_tenant_admin(request.user),
        "rates": outcome_selectors.win_rates(),
    }
    return render(request, "bids/company.html", context)


@login_required
@require_POST
def company_change(request):
    """One form per change, told apart by ``op``."""
    op, actor, post = request.POST.get("op", ""), request.user, request.POST
    try:
        if op == "identity-add":
            outcomes.company_identity_add(actor=actor, kind=post.get("kind", ""), value=post.get("value", ""))
        elif op == "identity-remove":
            outcomes.company_identity_remove(actor=actor, identity_id=_id(post.get("identity")))
        elif op == "competitor-add":
            competitor = outcomes.watched_competitor_add(
                actor=actor, name=post.get("name", ""), identifier=post.get("identifier", "")
            )
            messages.success(request, _("„%(name)s“ wird beobachtet.") % {"name": competitor.label})
        elif op == "competitor-remove":
            outcomes.watched_competitor_remove(actor=actor, competitor_id=_id(post.get("competitor")))
        else:
            raise ApplicationError(_("Unbekannte Aktion."))
    except ApplicationError as exc:  # NotFound and PermissionRefused included
        messages.error(request, "; ".join(str(m) for m in (exc.fields or {}).values()) or exc.text)
    back = post.get("next", "")
    if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=False):
        return redirect(back)
    return redirect("bids:company")
