"""Roles inside a tenant.

A role is a Django group in the tenant's own schema, so the same machinery works
for every tenant and role checks never leave the schema. Members are everyone
who can sign in; tenant admins may also invite users and manage settings.
"""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.db.models import Exists, OuterRef


class Role(StrEnum):
    ADMIN = "admin"
    MEMBER = "member"


TENANT_ADMIN_GROUP = "tenant-admins"
# The attribute a user read with ``tenant_admin_flag()`` carries: the role as of the request's start.
LOADED_ADMIN_FLAG = "is_tenant_admin_loaded"


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


def tenant_admin_flag() -> Exists:
    """Annotation for a user query: is the user a tenant admin (read with the user, not after it)."""
    return Exists(Group.objects.filter(name=TENANT_ADMIN_GROUP, user=OuterRef("pk")))


def user_shows_as_tenant_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    """For menus and links: the role read with the user at the request's start when it was
    (``LOADED_ADMIN_FLAG``), else looked up. Permission checks use ``user_is_tenant_admin``."""
    loaded = getattr(user, LOADED_ADMIN_FLAG, None)
    if loaded is None or not getattr(user, "is_active", False):
        return user_is_tenant_admin(user)
    return bool(loaded)
