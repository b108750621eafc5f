import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django_tenants.utils import schema_context, schema_exists

from accounts.models import Domain, Tenant
from accounts.roles import Role, user_is_tenant_admin, user_role
from accounts.services import tenant_create, user_create
from kernel.errors import ApplicationError


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
        ("public", "x.localhost", "nicht erlaubt"),
        ("Bad-Name", "x.localhost", "nicht erlaubt"),
        ("pg_evil", "x.localhost", "nicht erlaubt"),
        ("delta", "not a host", "kein gültiger Hostname"),
        ("alpha", "new.localhost", "gibt es bereits"),
        ("delta", "alpha.localhost", "bereits vergeben"),
    ],
)
def test_tenant_create_refuses_bad_or_taken_names(alpha, schema, domain, message):
    with pytest.raises(ApplicationError, match=message):
        tenant_create(name="X", schema_name=schema, domain=domain, admin_email="a@b.example")
    assert not Tenant.objects.filter(schema_name="delta").exists()


def test_user_create_assigns_roles_inside_the_tenant_schema(alpha):
    with schema_context(alpha.schema_name):
        member = user_create(email="new.member@alpha.example", password="x-Secret-42", role=Role.MEMBER)
        admin = user_create(email="new.admin@alpha.example", password="x-Secret-42", role=Role.ADMIN)
        assert user_role(member) == Role.MEMBER
        assert user_role(admin) == Role.ADMIN
        with pytest.raises(ApplicationError) as caught:
            user_create(email="NEW.member@alpha.example", password=None)
        assert caught.value.fields == {
            "email": "Es gibt bereits ein Konto mit der E-Mail-Adresse new.member@alpha.example."
        }
