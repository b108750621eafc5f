"""A production first run: the operators' host, the first operator and how that operator gets a password.

``platform_init`` is idempotent: run it on every deploy (the docker-compose migrate step does).
The operator's password is never chosen, printed or logged by it: a new operator gets an
unusable password and a one-time link (Django's password-reset token: expires after
PASSWORD_RESET_TIMEOUT, void once used) by e-mail, or the command prompts for one on a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.services import _HOST_NAME, public_tenant_ensure
from kernel.errors import ApplicationError


@dataclass(frozen=True)
class PlatformInit:
    host: str
    operator_email: str
    operator_created: bool
    operator_needs_password: bool


def platform_init(*, host: str, operator_email: str) -> PlatformInit:
    """The public schema's tenant and domain on ``host`` and a superuser ``operator_email`` (both idempotent)."""
    host = (host or "").strip().lower()
    operator_email = (operator_email or "").strip().lower()
    if not _HOST_NAME.match(host):
        raise ApplicationError(f"{host!r} ist kein gültiger Hostname für die Betreiberkonsole.", code="host")
    validate_email(operator_email)
    public_tenant_ensure(domain=host)
    user_model = get_user_model()
    with schema_context(get_public_schema_name()), transaction.atomic():
        user, created = user_model.objects.get_or_create(
            username=operator_email,
            defaults={"email": operator_email, "is_staff": True, "is_superuser": True, "is_active": True},
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
    return PlatformInit(
        host=host,
        operator_email=operator_email,
        operator_created=created,
        operator_needs_password=not user.has_usable_password(),
    )


def operator_password_link(*, operator_email: str, host: str) -> str:
    """A one-time link on the operators' host to choose a password."""
    with schema_context(get_public_schema_name()):
        user = get_user_model().objects.get(username=operator_email.strip().lower())
        token = default_token_generator.make_token(user)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse("operator-password", kwargs={"uidb64": uid, "token": token}, urlconf=settings.PUBLIC_SCHEMA_URLCONF)
    return settings.PORTAL_URL_FORMAT.format(domain=host) + path


def operator_password_link_send(*, operator_email: str, host: str) -> None:
    """Mail the one-time link to the operator (through the platform's EMAIL_BACKEND); raises on failure."""
    link = operator_password_link(operator_email=operator_email, host=host)
    days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
    send_mail(
        subject="Tender Radar: Passwort für die Betriebskonsole festlegen",
        message=(
            f"Für Ihr Betreiberkonto {operator_email} auf {host} ist noch kein Passwort gesetzt.\n\n"
            f"Legen Sie es hier fest (der Link gilt {days} Tage und nur einmal):\n{link}\n"
        ),
        from_email=None,
        recipient_list=[operator_email],
    )


def operator_password_set(*, operator_email: str, password: str) -> None:
    """Set the operator's password after Django's password validators accepted it."""
    with schema_context(get_public_schema_name()), transaction.atomic():
        user = get_user_model().objects.select_for_update().get(username=operator_email.strip().lower())
        validate_password(password, user=user)
        user.set_password(password)
        user.save(update_fields=["password"])
