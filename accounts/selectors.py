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


def tenant_of_host_entered(*, hostname: str) -> Tenant | None:
    """The tenant a host name belongs to, with the connection's search path set to its schema in the same
    statement (``set_config``); None, search path untouched, for an unknown host.

    django-tenants spends three statements on this per request (search path to public, the domain lookup,
    search path to the tenant); this is one. The tables are named with their schema, so whatever path the
    connection had from its last request, the lookup reads the public tables.
    """
    from django.db import connection
    from django_tenants.utils import get_public_schema_name

    from accounts.models import Domain

    public = get_public_schema_name()
    tenants = f"{connection.ops.quote_name(public)}.{connection.ops.quote_name(Tenant._meta.db_table)}"
    domains = f"{connection.ops.quote_name(public)}.{connection.ops.quote_name(Domain._meta.db_table)}"
    # Table names from the models and settings, quoted; the host is a parameter.
    statement = (
        "SELECT t.*, set_config('search_path', CASE WHEN t.schema_name = %s THEN quote_ident(%s) "  # noqa: S608
        "ELSE quote_ident(t.schema_name) || ',' || quote_ident(%s) END, false) AS search_path "
        f"FROM {tenants} t JOIN {domains} d ON d.tenant_id = t.id WHERE d.domain = %s"
    )
    return next(iter(Tenant.objects.raw(statement, [public, public, public, hostname])), None)
