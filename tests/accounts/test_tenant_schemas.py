"""The one way to read across tenant schemas: the active tenants' schemas, in chunks of one statement each."""

from __future__ import annotations

import pytest

from accounts.models import Tenant
from accounts.selectors import TENANT_SCHEMAS_PER_STATEMENT, tenant_schema_chunks, tenant_schemas_active


@pytest.mark.django_db
def test_the_active_tenants_schemas_never_the_public_one_nor_an_inactive_tenant(alpha, beta):
    assert tenant_schemas_active() == ["alpha", "beta"]
    Tenant.objects.filter(schema_name="beta").update(is_active=False)
    assert tenant_schemas_active() == ["alpha"]
    assert list(tenant_schema_chunks()) == [["alpha"]]


@pytest.mark.django_db
def test_given_schemas_come_in_chunks_once_each_in_their_order(db):
    names = [f"t{i}" for i in range(5)] + ["t1"]
    assert list(tenant_schema_chunks(schemas=names, size=2)) == [["t0", "t1"], ["t2", "t3"], ["t4"]]
    assert list(tenant_schema_chunks(schemas=[])) == []


def test_one_statement_reads_at_most_the_constant_number_of_schemas():
    names = [f"t{i}" for i in range(TENANT_SCHEMAS_PER_STATEMENT * 2 + 1)]
    assert [len(chunk) for chunk in tenant_schema_chunks(schemas=names)] == [TENANT_SCHEMAS_PER_STATEMENT] * 2 + [1]
