"""A production first run: the operators' host, the first operator, a company's first admin, and how
each of them gets a password.

``platform_init`` is idempotent: run it on every deploy (the docker-compose migrate step does).
The operator's password is never chosen, printed or logged by it: a new operator gets an
unusable password and a one-time link (Django's password-reset token: expires after
PASSWORD_RESET_TIMEOUT, void once used) by e-mail, or the command prompts for one on a terminal.
A company made by ``tenant_create`` gets the same for its first admin, on the company's own host.
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

from accounts.services import _HOST_NAME, TenantCreated, public_tenant_ensure, tenant_create, tenant_discard
from config.email_url import CONSOLE_BACKEND
from kernel.errors import ApplicationError

# Backends that put the whole mail, a link included, on the process's output (and so in deploy logs).
PRINTING_MAIL_BACKENDS = frozenset({CONSOLE_BACKEND})


def mail_prints_messages() -> bool:
    """True when "sending" a one-time link would print it: it is a password, so it is then not sent."""
    return settings.EMAIL_BACKEND in PRINTING_MAIL_BACKENDS


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


def _password_link(*, schema_name: str, username: str, view: str, urlconf: str, host: str) -> str:
    """A one-time link (Django's password-reset token) on ``host`` for the account ``username`` of a schema."""
    with schema_context(schema_name):
        user = get_user_model().objects.get(username=username)
        token = default_token_generator.make_token(user)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse(view, kwargs={"uidb64": uid, "token": token}, urlconf=urlconf)
    return settings.PORTAL_URL_FORMAT.format(domain=host) + path


def operator_password_link(*, operator_email: str, host: str) -> str:
    """A one-time link on the operators' host to choose a password."""
    return _password_link(
        schema_name=get_public_schema_name(),
        username=operator_email.strip().lower(),
        view="operator-password",
        urlconf=settings.PUBLIC_SCHEMA_URLCONF,
        host=host,
    )


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


class FirstLoginMailFailed(Exception):
    """The mail carrying someone's first way in could not be sent; what was made for it is undone."""

    def __init__(self, recipient: str, cause: Exception):
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.recipient = recipient


@dataclass(frozen=True)
class TenantAdminInvited:
    created: TenantCreated
    link: str | None  # only when asked for (``send=False``); otherwise it went by mail and is kept nowhere


def tenant_admin_link(*, created: TenantCreated) -> str:
    """A one-time link on the company's own host for its first admin to choose a password."""
    return _password_link(
        schema_name=created.tenant.schema_name,
        username=created.admin_email,
        view="accounts:invite-accept",
        urlconf=settings.ROOT_URLCONF,
        host=created.domain.domain,
    )


def tenant_create_with_admin_link(
    *, name: str, schema_name: str, domain: str, admin_email: str, send: bool
) -> TenantAdminInvited:
    """A new company whose first admin chooses a password through a one-time link.

    With ``send`` the link is mailed (the platform's EMAIL_URL); when that fails, the company is removed
    again and ``FirstLoginMailFailed`` raised, so the command can be run once more as it was. Without ``send`` the link
    is returned, for a terminal nobody records.
    """
    created = tenant_create(
        name=name, schema_name=schema_name, domain=domain, admin_email=admin_email, admin_password_by_link=True
    )
    link = tenant_admin_link(created=created)
    if not send:
        return TenantAdminInvited(created=created, link=link)
    days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
    try:
        send_mail(
            subject=f"Tender Radar: Ihr Zugang für {created.tenant.name}",
            message=(
                f"Für {created.tenant.name} ist Tender Radar unter {created.domain.domain} eingerichtet; "
                f"Sie sind die erste Administratorin oder der erste Administrator ({created.admin_email}).\n\n"
                f"Legen Sie hier Ihr Passwort fest (der Link gilt {days} Tage und nur einmal):\n{link}\n"
            ),
            from_email=None,
            recipient_list=[created.admin_email],
        )
    except Exception as exc:  # SMTP's OSErrors, an ESP's errors: whatever stopped the mail
        tenant_discard(tenant=created.tenant)
        raise FirstLoginMailFailed(created.admin_email, exc) from exc
    return TenantAdminInvited(created=created, link=None)
