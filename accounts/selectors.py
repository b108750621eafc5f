"""Reads about tenants and tenant users."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from accounts.models import InternalRelay, RelayProtocol, Tenant
from accounts.roles import TENANT_ADMIN_GROUP
from kernel.network import RelayGrant, relay_target_parse


def tenant_list_active() -> QuerySet[Tenant]:
    """Every customer tenant (never the public schema), for fan-out work."""
    from django_tenants.utils import get_public_schema_name

    return Tenant.objects.filter(is_active=True).exclude(schema_name=get_public_schema_name()).order_by("pk")


# Schemas per statement when one SQL statement reads the same table in many tenant schemas (UNION ALL of one
# branch per schema): enough that a few hundred tenants cost a few round trips, few enough that the statement
# stays far below PostgreSQL's parameter and planner limits.
TENANT_SCHEMAS_PER_STATEMENT = 200


def tenant_schemas_active() -> list[str]:
    """The schema of every active customer tenant, oldest tenant first (never the public schema)."""
    return list(tenant_list_active().values_list("schema_name", flat=True))


def tenant_schema_chunks(
    *, schemas: Iterable[str] | None = None, size: int = TENANT_SCHEMAS_PER_STATEMENT
) -> Iterator[list[str]]:
    """``schemas`` (default: every active tenant's), each once and in their order, in lists of at most ``size``.

    The one way to read across tenant schemas: one statement per chunk.
    """
    names = list(dict.fromkeys(tenant_schemas_active() if schemas is None else schemas))
    for start in range(0, len(names), size):
        yield names[start : start + size]


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


def internal_relay_grants(*, protocol: str) -> tuple[RelayGrant, ...]:
    """The operator-approved internal mail servers for ``protocol`` ("smtp" or "imap"), as the guard reads them.

    The list lives in the public schema; a tenant's connection reads it through the search path.
    """
    grants = []
    for relay in InternalRelay.objects.filter(protocol__in=(protocol, RelayProtocol.BOTH)):
        try:
            host, network = relay_target_parse(relay.target)
        except ValueError:
            continue  # written through the service, which parses it; a hand-edited row grants nothing
        grants.append(RelayGrant(protocol=relay.protocol, host=host, network=network, port=relay.port))
    return tuple(grants)
