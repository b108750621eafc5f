import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection
from django_tenants.utils import schema_context, schema_exists

from accounts.models import Domain, Tenant
from accounts.roles import Role, user_is_tenant_admin, user_role
from accounts.services import tenant_create, user_create


@pytest.mark.usefixtures("committed")
def test_tenant_create_makes_schema_domain_and_first_admin():
    created = tenant_create(
        name="Gamma Facility GmbH", schema_name="gamma", domain="gamma.localhost", admin_email="Chefin@Gamma.example"
    )
    try:
        assert schema_exists("gamma")
        assert Domain.objects.get(domain="gamma.localhost").tenant == created.tenant
        assert created.admin_password
        with schema_context("gamma"):
            admin = get_user_model().objects.get(username="chefin@gamma.example")
            assert admin.check_password(created.admin_password)
            assert user_is_tenant_admin(admin)
        # The admin exists only in gamma's schema, not in public.
        assert not get_user_model().objects.filter(username="chefin@gamma.example").exists()
    finally:
        connection.set_schema_to_public()
        created.tenant.delete(force_drop=True)


@pytest.mark.parametrize(
    ("schema", "domain", "message"),
    [
        ("public", "x.localhost", "not allowed"),
        ("Bad-Name", "x.localhost", "not allowed"),
        ("pg_evil", "x.localhost", "not allowed"),
        ("delta", "not a host", "not a valid host"),
        ("alpha", "new.localhost", "already exists"),
        ("delta", "alpha.localhost", "already taken"),
    ],
)
def test_tenant_create_refuses_bad_or_taken_names(alpha, schema, domain, message):
    with pytest.raises(ValidationError, match=message):
        tenant_create(name="X", schema_name=schema, domain=domain, admin_email="a@b.example")
    assert not Tenant.objects.filter(schema_name="delta").exists()


def test_user_create_assigns_roles_inside_the_tenant_schema(alpha):
    with schema_context(alpha.schema_name):
        member = user_create(email="new.member@alpha.example", password="x-Secret-42", role=Role.MEMBER)
        admin = user_create(email="new.admin@alpha.example", password="x-Secret-42", role=Role.ADMIN)
        assert user_role(member) == Role.MEMBER
        assert user_role(admin) == Role.ADMIN
        with pytest.raises(ValidationError, match="already exists"):
            user_create(email="NEW.member@alpha.example", password=None)
