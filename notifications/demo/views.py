"""Postausgang (lokal): the demo's mails as their recipients see them. Exists only where LOCAL_OUTBOX_DIR is set."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from notifications.demo.outbox import local_outbox_dir, outbox_mails


@login_required
@require_GET
def local_outbox(request):
    if local_outbox_dir() is None:
        raise Http404("no local outbox in these settings")
    # Mails to anyone of this company (the schema's users), never another tenant's.
    addresses = get_user_model().objects.filter(is_active=True).values_list("email", flat=True)
    mails = outbox_mails(recipients=addresses)
    selected_key = request.GET.get("mail", "")
    selected = next((m for m in mails if m.key == selected_key), mails[0] if mails else None)
    return render(request, "portal/local_outbox.html", {"mails": mails, "selected": selected})
