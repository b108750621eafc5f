"""Writes for tenants, operators and tenant users."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.db import connection, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import Domain, InternalRelay, InternalRelayChange, RelayProtocol, Tenant
from accounts.roles import TENANT_ADMIN_GROUP, Role, tenant_admin_group
from kernel.errors import ApplicationError
from kernel.network import relay_target_parse

_SCHEMA_NAME = re.compile(r"^[a-z][a-z0-9_]{1,61}$")
_HOST_NAME = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


@dataclass(frozen=True)
class TenantCreated:
    tenant: Tenant
    domain: Domain
    admin_email: str
    admin_password: str


def _validate_new_tenant(*, schema_name: str, domain: str) -> None:
    if not _SCHEMA_NAME.match(schema_name) or schema_name.startswith("pg_") or schema_name == get_public_schema_name():
        raise ApplicationError(
            f"Schema-Name {schema_name!r} ist nicht erlaubt: nur Kleinbuchstaben, Ziffern und _, "
            "beginnend mit einem Buchstaben.",
            code="schema_name",
        )
    if not _HOST_NAME.match(domain):
        raise ApplicationError(f"Domain {domain!r} ist kein gültiger Hostname.", code="domain")
    if Tenant.objects.filter(schema_name=schema_name).exists():
        raise ApplicationError(f"Einen Mandanten mit Schema {schema_name!r} gibt es bereits.", code="schema_taken")
    if Domain.objects.filter(domain=domain).exists():
        raise ApplicationError(f"Die Domain {domain!r} ist bereits vergeben.", code="domain_taken")


def tenant_create(
    *,
    name: str,
    schema_name: str,
    domain: str,
    admin_email: str,
    admin_password: str | None = None,
    admin_password_by_link: bool = False,
) -> TenantCreated:
    """Create a tenant: its schema (migrated), its primary domain and its first admin user.

    The admin gets ``admin_password``, a generated one (returned, for the console to show once), or
    with ``admin_password_by_link`` none at all: the account waits for its one-time link
    (``accounts.platform.tenant_create_with_admin_link``).

    Creating a schema runs the tenant migrations, which cannot share one
    transaction with the rest; if anything after that fails the tenant row and
    its schema are removed again, so no half-made tenant stays behind.
    """
    schema_name = schema_name.strip().lower()
    domain = domain.strip().lower()
    admin_email = admin_email.strip().lower()
    _validate_new_tenant(schema_name=schema_name, domain=domain)
    password = "" if admin_password_by_link else (admin_password or secrets.token_urlsafe(12))

    connection.set_schema_to_public()
    tenant = Tenant(schema_name=schema_name, name=name.strip(), contact_email=admin_email)
    tenant.save()  # creates and migrates the schema
    try:
        with transaction.atomic():
            domain_row = Domain.objects.create(domain=domain, tenant=tenant, is_primary=True)
        with schema_context(schema_name), transaction.atomic():
            user_create(email=admin_email, password=password or None, role=Role.ADMIN)
    except Exception:
        tenant_discard(tenant=tenant)
        raise
    return TenantCreated(tenant=tenant, domain=domain_row, admin_email=admin_email, admin_password=password)


def tenant_discard(*, tenant: Tenant) -> None:
    """Remove a tenant that was never handed over (its creation failed half-way): row, domains and schema."""
    connection.set_schema_to_public()
    tenant.auto_drop_schema = True
    tenant.delete(force_drop=True)


def public_tenant_ensure(*, domain: str) -> Tenant:
    """The row django-tenants needs for the public schema, served on the operators' host."""
    with schema_context(get_public_schema_name()), transaction.atomic():
        tenant, _ = Tenant.objects.get_or_create(
            schema_name=get_public_schema_name(), defaults={"name": "Tender Radar (Betrieb)"}
        )
        Domain.objects.get_or_create(domain=domain.lower(), defaults={"tenant": tenant, "is_primary": True})
    return tenant


def operator_ensure(*, email: str, password: str) -> AbstractBaseUser:
    """A superuser in the public schema; operators only ever sign in on the public host."""
    user_model = get_user_model()
    with schema_context(get_public_schema_name()), transaction.atomic():
        user, created = user_model.objects.get_or_create(
            username=email.lower(), defaults={"email": email.lower(), "is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(password)
            user.save(update_fields=["password"])
    return user


def user_create(*, email: str, password: str | None, role: Role = Role.MEMBER) -> AbstractBaseUser:
    """A user of the current tenant schema; without password the account waits for an invitation."""
    user_model = get_user_model()
    email = email.strip().lower()
    if user_model.objects.filter(username=email).exists():
        message = _("Es gibt bereits ein Konto mit der E-Mail-Adresse %(email)s.") % {"email": email}
        raise ApplicationError(fields={"email": message}, code="email_taken")
    user = user_model(username=email, email=email, is_active=True)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    user_set_role(user=user, role=role)
    return user


def user_set_role(*, user: AbstractBaseUser, role: Role) -> None:
    group = tenant_admin_group()
    if role == Role.ADMIN:
        user.groups.add(group)
    else:
        user.groups.remove(group)


class TeamChangeRefused(ApplicationError):
    """A team change that would leave the tenant without an active administrator."""

    default_code = "last_admin"


def _require_another_active_admin(*, user: AbstractBaseUser) -> None:
    """Refuse a change that takes ``user`` out of the admins if nobody else could manage the tenant then.

    Callers hold the row locks of every admin (``_lock_admins``), so two admins cannot demote each
    other at the same moment and leave none.
    """
    others = get_user_model().objects.filter(is_active=True, groups__name=TENANT_ADMIN_GROUP).exclude(pk=user.pk)
    if not others.exists():
        raise TeamChangeRefused(
            _(
                "Das Unternehmen braucht mindestens einen aktiven Administrator; "
                "bitte zuerst jemand anderen dazu machen."
            )
        )


def _lock_admins_and(user_id: int) -> AbstractBaseUser:
    user_model = get_user_model()
    admin_ids = user_model.objects.filter(groups__name=TENANT_ADMIN_GROUP).values("pk")
    locked = {u.pk: u for u in user_model.objects.select_for_update().filter(Q(pk__in=admin_ids) | Q(pk=user_id))}
    if user_id not in locked:
        raise user_model.DoesNotExist
    return locked[user_id]


def user_sessions_end(*, user_id: int) -> int:
    """Delete every session of this user in the current schema (sessions are per schema); returns how many.

    Sessions are not indexed by user, so each live one is decoded: a tenant has few.
    """
    from importlib import import_module

    from django.contrib.sessions.models import Session

    ended = []
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == str(user_id):
            ended.append(session.pk)
    # Through the session engine, which also drops its cached copy (cached_db): deleting rows alone would
    # leave the session alive in the cache.
    store = import_module(settings.SESSION_ENGINE).SessionStore
    for session_key in ended:
        store(session_key=session_key).delete()
    return len(ended)


def user_deactivate(*, user_id: int) -> AbstractBaseUser:
    """The person can no longer sign in and every open session ends at once.

    Runs inside the caller's transaction when there is one: the tenant app adds revoking the person's
    API keys and calendar link and dropping their unsent mail (``notifications.team``).
    """
    with transaction.atomic():
        user = _lock_admins_and(user_id)
        if user.groups.filter(name=TENANT_ADMIN_GROUP).exists():
            _require_another_active_admin(user=user)
        if user.is_active:
            user.is_active = False
            user.save(update_fields=["is_active"])
        user_sessions_end(user_id=user.pk)
    return user


def user_reactivate(*, user_id: int) -> AbstractBaseUser:
    """Sign-in works again with the old password; API keys and the calendar link stay revoked."""
    with transaction.atomic():
        user = get_user_model().objects.select_for_update().get(pk=user_id)
        if not user.is_active:
            user.is_active = True
            user.save(update_fields=["is_active"])
    return user


def user_role_change(*, user_id: int, role: Role) -> AbstractBaseUser:
    """Make someone an administrator or a member; the last active administrator stays one."""
    with transaction.atomic():
        user = _lock_admins_and(user_id)
        if role != Role.ADMIN and user.is_active and user.groups.filter(name=TENANT_ADMIN_GROUP).exists():
            _require_another_active_admin(user=user)
        user_set_role(user=user, role=role)
    return user


def user_invite(
    *, email: str, role: Role, invited_by: AbstractBaseUser, accept_url: Callable[[str, str], str]
) -> AbstractBaseUser:
    """Create a user without password and mail a one-time link to choose one.

    The link uses Django's password-reset tokens: it expires
    (PASSWORD_RESET_TIMEOUT) and is void once a password is set.
    """
    with transaction.atomic():
        user = user_create(email=email, password=None, role=role)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    link = accept_url(uid, token)
    context = {"link": link, "invited_by": invited_by.get_username(), "tenant": connection.tenant}
    transaction.on_commit(
        lambda: send_mail(
            subject=render_to_string("accounts/invite_subject.txt", context).strip(),
            message=render_to_string("accounts/invite_email.txt", context),
            from_email=None,
            recipient_list=[user.email],
        )
    )
    return user


def _relay_snapshot(relay: InternalRelay) -> dict:
    return {"target": relay.target, "protocol": relay.protocol, "port": relay.port, "note": relay.note}


def _relay_change_record(*, relay_id: int, action: str, operator: str, before: dict | None, after: dict | None) -> None:
    InternalRelayChange.objects.create(
        relay_id=relay_id, action=action, operator=operator, changed_at=timezone.now(), before=before, after=after
    )


def _require_public_schema() -> None:
    # The list opens tenants' way into the internal network: only operators, on the public host, write it.
    if connection.schema_name != get_public_schema_name():
        raise ApplicationError(_("Interne Mailserver gibt nur der Betreiber in der Konsole frei."), code="forbidden")


def internal_relay_entry_check(*, target: str, protocol: str, port: int | None) -> tuple[str, dict[str, str]]:
    """(the target as stored, problems by field) of an entry: the console's form shows the problems beside
    its fields, ``internal_relay_save`` refuses an entry that has any."""
    errors: dict[str, str] = {}
    try:
        host, network = relay_target_parse(target)
    except ValueError:
        host, network = target, None
        errors["target"] = _("Bitte einen Hostnamen (relay.intern.example) oder ein Netz (10.20.0.0/16) angeben.")
    if protocol not in RelayProtocol.values:
        errors["protocol"] = _("Unbekanntes Protokoll.")
    if port is not None and not 1 <= port <= 65535:
        errors["port"] = _("Ports liegen zwischen 1 und 65535.")
    return host or str(network), errors


def internal_relay_save(
    *, relay_id: int | None, target: str, protocol: str, port: int | None, note: str, operator: str
) -> InternalRelay:
    """Add (``relay_id`` None) or change an approved internal mail server; the change is recorded with ``operator``."""
    _require_public_schema()
    stored_target, errors = internal_relay_entry_check(target=target, protocol=protocol, port=port)
    if errors:
        raise ApplicationError(fields=errors, code=next(iter(errors)))
    with transaction.atomic():
        relay = InternalRelay() if relay_id is None else InternalRelay.objects.select_for_update().get(pk=relay_id)
        before = None if relay_id is None else _relay_snapshot(relay)
        relay.target, relay.protocol, relay.port = stored_target, protocol, port
        relay.note = note.strip()
        relay.save()
        after = _relay_snapshot(relay)
        if after != before:
            action = InternalRelayChange.Action.ADDED if before is None else InternalRelayChange.Action.CHANGED
            _relay_change_record(relay_id=relay.pk, action=action, operator=operator, before=before, after=after)
    return relay


def internal_relay_delete(*, relay_id: int, operator: str) -> None:
    """Withdraw an approved internal mail server; tenants' next connection to it is refused. Recorded."""
    _require_public_schema()
    with transaction.atomic():
        relay = InternalRelay.objects.select_for_update().filter(pk=relay_id).first()
        if relay is None:
            return  # deleted meanwhile; its deletion is already recorded
        before = _relay_snapshot(relay)
        relay.delete()
        _relay_change_record(
            relay_id=relay_id, action=InternalRelayChange.Action.DELETED, operator=operator, before=before, after=None
        )
