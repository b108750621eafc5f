"""One-click triage from a mail: the confirmation page a "prüfen" / "nicht relevant" link opens, and its button.

GET changes nothing (mail scanners and preview panes fetch links): it shows the tender and asks. POST, signed in
and with the page's CSRF token, moves the card through the board's service (``bid_card_quick``), exactly as the
dashboard's buttons do. Not signed in: the sign-in page, then back here. The token (``notifications.bid_links``)
must be genuine, of this tenant and of the person signed in; another tenant's or an altered one is "not found",
an old one says it expired and links to the tender.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from kernel.errors import ApplicationError, NotFound
from notifications.bid_links import REVIEW, TriageLinkExpired, triage_target
from notifications.bids import services
from notifications.bids.selectors import mail_triage_subject

TEMPLATE = "bids/mail_triage.html"


@login_required
@require_http_methods(["GET", "POST"])
def mail_triage(request, token: str):
    try:
        target = triage_target(token, schema_name=connection.schema_name)
    except TriageLinkExpired:
        return render(request, TEMPLATE, {"state": "expired"}, status=410)
    if target is None:
        raise Http404(_("Dieser Link ist ungültig."))
    if target.user_id != request.user.pk:
        return render(request, TEMPLATE, {"state": "other_person"}, status=403)
    subject = mail_triage_subject(tender_id=target.tender_id)
    if subject is None:
        raise Http404(_("Diese Ausschreibung gibt es nicht."))
    context = {"state": "confirm", "subject": subject, "tender": subject.tender, "review": target.action == REVIEW}
    if request.method == "GET":
        return render(request, TEMPLATE, context)
    try:
        card = services.bid_card_quick(tender_id=target.tender_id, actor=request.user, action=target.action)
    except NotFound as exc:
        raise Http404(exc.text) from exc
    except ApplicationError as exc:
        return render(request, TEMPLATE, {**context, "error": exc.text}, status=400)
    messages.success(request, _("Auf dem Board: %(stage)s.") % {"stage": card.stage.name})
    return redirect("bids:card", card.pk)
