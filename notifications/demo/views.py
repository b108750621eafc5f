"""Postausgang (lokal) and Webhook-Empfang (lokal): the demo's mails and webhook requests as their recipients see them.

Each page exists only where local settings name its folder (LOCAL_OUTBOX_DIR, LOCAL_WEBHOOK_DIR).
"""

from __future__ import annotations

from csp.decorators import csp
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from accounts.roles import user_is_tenant_admin
from notifications.demo.outbox import local_outbox_dir, outbox_mails
from notifications.demo.webhook_inbox import local_webhook_dir, received_webhook_list

# A mail's own HTML, shown in a sandboxed frame of the outbox page: its inline styles may apply
# (mails carry them), nothing else may run or load, and only this site may frame it.
MAIL_FRAME_POLICY = {
    "default-src": ["'none'"],
    "style-src": ["'unsafe-inline'"],
    "img-src": ["data:"],
    "frame-ancestors": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
}


def _own_mails(request):
    if local_outbox_dir() is None:
        raise Http404("no local outbox in these settings")
    # The signed-in person's own mail only: a colleague's alert names their (maybe private) profile,
    # and another tenant's users are not in this schema at all.
    return outbox_mails(recipients=[request.user.email] if request.user.email else [])


@login_required
@require_GET
def local_outbox(request):
    mails = _own_mails(request)
    selected_key = request.GET.get("mail", "")
    selected = next((m for m in mails if m.key == selected_key), mails[0] if mails else None)
    return render(request, "portal/local_outbox.html", {"mails": mails, "selected": selected})


@login_required
@require_GET
@xframe_options_sameorigin
@csp(MAIL_FRAME_POLICY)
def local_outbox_mail_html(request, key: str):
    mail = next((m for m in _own_mails(request) if m.key == key and m.html), None)
    if mail is None:
        raise Http404("no such mail")
    return HttpResponse(mail.html, content_type="text/html; charset=utf-8")


@login_required
@require_GET
def local_webhooks(request):
    if local_webhook_dir() is None:
        raise Http404("no local webhook receiver in these settings")
    if not user_is_tenant_admin(request.user):  # webhooks, and what they carry, are the admins' business
        raise PermissionDenied
    received = received_webhook_list()
    selected_key = request.GET.get("anfrage", "")
    selected = next((r for r in received if r.key == selected_key), received[0] if received else None)
    return render(request, "portal/local_webhooks.html", {"received": received, "selected": selected})
