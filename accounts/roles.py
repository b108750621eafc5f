"""Roles inside a tenant.

A role is a Django group in the tenant's own schema, so the same machinery works
for every tenant and role checks never leave the schema. Members are everyone
who can sign in; tenant admins may also invite users and manage settings.
"""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group


class Role(StrEnum):
    ADMIN = "admin"
    MEMBER = "member"


TENANT_ADMIN_GROUP = "tenant-admins"


def tenant_admin_group() -> Group:
    group, _ = Group.objects.get_or_create(name=TENANT_ADMIN_GROUP)
    return group


def user_role(user: AbstractBaseUser | AnonymousUser) -> Role | None:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.groups.filter(name=TENANT_ADMIN_GROUP).exists():
        return Role.ADMIN
    return Role.MEMBER


def user_is_tenant_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    return user_role(user) == Role.ADMIN
