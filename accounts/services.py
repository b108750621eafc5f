"""Writes for tenants, operators and tenant users."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import Domain, Tenant
from accounts.roles import Role, tenant_admin_group

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
        raise ValidationError(
            f"Schema name {schema_name!r} is not allowed: lowercase letters, digits and _ only, starting with a letter."
        )
    if not _HOST_NAME.match(domain):
        raise ValidationError(f"Domain {domain!r} is not a valid host name.")
    if Tenant.objects.filter(schema_name=schema_name).exists():
        raise ValidationError(f"A tenant with schema {schema_name!r} already exists.")
    if Domain.objects.filter(domain=domain).exists():
        raise ValidationError(f"The domain {domain!r} is already taken.")


def tenant_create(
    *,
    name: str,
    schema_name: str,
    domain: str,
    admin_email: str,
    admin_password: str | None = None,
) -> TenantCreated:
    """Create a tenant: its schema (migrated), its primary domain and its first admin user.

    Creating a schema runs the tenant migrations, which cannot share one
    transaction with the rest; if anything after that fails the tenant row and
    its schema are removed again, so no half-made tenant stays behind.
    """
    schema_name = schema_name.strip().lower()
    domain = domain.strip().lower()
    admin_email = admin_email.strip().lower()
    _validate_new_tenant(schema_name=schema_name, domain=domain)
    password = admin_password or secrets.token_urlsafe(12)

    connection.set_schema_to_public()
    tenant = Tenant(schema_name=schema_name, name=name.strip(), contact_email=admin_email)
    tenant.save()  # creates and migrates the schema
    try:
        with transaction.atomic():
            domain_row = Domain.objects.create(domain=domain, tenant=tenant, is_primary=True)
        with schema_context(schema_name), transaction.atomic():
            user_create(email=admin_email, password=password, role=Role.ADMIN)
    except Exception:
        tenant.auto_drop_schema = True
        tenant.delete(force_drop=True)
        raise
    return TenantCreated(tenant=tenant, domain=domain_row, admin_email=admin_email, admin_password=password)


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
        raise ValidationError(f"A user with the e-mail address {email} already exists.")
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
