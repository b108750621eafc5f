"""Reads about tenants and tenant users."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from accounts.models import Tenant
from accounts.roles import TENANT_ADMIN_GROUP


def tenant_list_active() -> QuerySet[Tenant]:
    """Every customer tenant (never the public schema), for fan-out work."""
    from django_tenants.utils import get_public_schema_name

    return Tenant.objects.filter(is_active=True).exclude(schema_name=get_public_schema_name()).order_by("pk")


def user_list(*, include_inactive: bool = False) -> QuerySet:
    users = get_user_model().objects.order_by("email").prefetch_related("groups")
    return users if include_inactive else users.filter(is_active=True)


def user_is_admin_map(users) -> dict[int, bool]:
    return {user.pk: any(group.name == TENANT_ADMIN_GROUP for group in user.groups.all()) for user in users}


def tenant_exists(*, schema_name: str) -> bool:
    return Tenant.objects.filter(schema_name=schema_name).exists()


def user_exists(*, user_id: int) -> bool:
    """A person of the current tenant with this id, active or not."""
    return get_user_model().objects.filter(pk=user_id).exists()
