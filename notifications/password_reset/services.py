"""Passwort vergessen: a one-time link, mailed through the tenant's own mail route.

Users live in ``accounts`` (a shared app), the tenant's SMTP settings here, so the
flow lives in the tenant app. The request answers the same for known and unknown
addresses and sends nothing synchronously: a task mails the link, so neither the
text nor the timing of the answer tells whether an account exists. The link is a
Django password-reset token (expires after PASSWORD_RESET_TIMEOUT, void once the
password changed or after a sign-in); it is made inside the task and never stored.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.db import connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from config.enqueue import enqueue_on_commit
from notifications.alerts.selectors import tenant_base_url
from notifications.alerts.sending import MailTransport, mail_route
from notifications.models import UserPreference

logger = logging.getLogger(__name__)

TASK_NAME = "notifications.password_reset_mail_send"
RESEND_SECONDS = 300


def password_reset_request(*, email: str) -> None:
    """Queue the reset mail for the active account with this address, if there is one (silently otherwise).

    The link's address is the tenant's primary domain in ``PORTAL_URL_FORMAT`` (scheme and port from
    the configuration), never the request's Host: TenantMainMiddleware matches the host name only, so
    ``Host: alpha.example:8443`` (or a host name alias) would otherwise carry into the mail and send
    the token to a port or a name the requester chose.
    """
    email = (email or "").strip().lower()
    user_id = (
        get_user_model().objects.filter(username=email, is_active=True).values_list("pk", flat=True).first()
        if email
        else None
    )
    if user_id is None:
        return
    # One mail per account and RESEND_SECONDS, however often the form is sent (no mail bombing).
    if not cache.add(f"password-reset:{user_id}", True, timeout=RESEND_SECONDS):
        return
    # Sent after commit so the worker sees the same state; the schema travels in the task headers.
    enqueue_on_commit(
        TASK_NAME, kwargs={"user_id": user_id, "origin": tenant_base_url()}, schema=connection.schema_name
    )


def password_reset_mail_send(*, user_id: int, origin: str) -> bool:
    """Mail a fresh reset link to this user now, through the tenant's route; False if the user is gone.

    ``origin`` is the configured address ``password_reset_request`` put into the task, never a request's.

    Raises the route's SendError (German message) when the mail server refuses or cannot be reached.
    """
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email:
        return False
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    link = origin.rstrip("/") + reverse("accounts:password-reset-confirm", kwargs={"uidb64": uid, "token": token})
    language = UserPreference.objects.filter(user=user).values_list("language", flat=True).first()
    route = mail_route()
    with translation.override(language or settings.LANGUAGE_CODE):
        context = {"link": link, "tenant": connection.tenant, "email": user.email}
        subject = render_to_string("accounts/password_reset_subject.txt", context).strip()
        body = render_to_string("accounts/password_reset_email.txt", context)
    message = EmailMultiAlternatives(subject=subject, body=body, from_email=route.from_email, to=[user.email])
    message.extra_headers["Auto-Submitted"] = "auto-generated"
    with MailTransport(route) as transport:
        transport.send(message)
    logger.info("password reset link sent to user %s in %s", user.pk, connection.schema_name)
    return True
