"""The signed-in user's read (``notifications.portal.signed_in``): one statement compiled once per process,
the same answers as the ORM query it stands for, and always the schema of the request's tenant."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import OuterRef, Subquery
from django_tenants.utils import schema_context

from accounts.roles import LOADED_ADMIN_FLAG, tenant_admin_flag
from notifications.models import UserPreference
from notifications.portal.signed_in import user_signed_in
from tests.notifications.portal.conftest import user_of


def _as_the_orm_reads_it(user_id):
    language = UserPreference.objects.filter(user_id=OuterRef("pk")).order_by("id").values("language")[:1]
    users = get_user_model()._default_manager.annotate(
        preferred_language=Subquery(language), **{LOADED_ADMIN_FLAG: tenant_admin_flag()}
    )
    return users.filter(pk=user_id).first()


def _shown(user):
    return None if user is None else (user.pk, user.username, user.preferred_language, getattr(user, LOADED_ADMIN_FLAG))


def test_the_user_comes_with_their_language_and_role_as_the_orm_query_read_them(alpha):
    admin, member = user_of(alpha, alpha.admin_email), user_of(alpha, alpha.member_email)
    with schema_context(alpha.schema_name):
        UserPreference.objects.update_or_create(user=member, defaults={"language": "en"})
        for user in (admin, member):
            assert _shown(user_signed_in(user_id=user.pk)) == _shown(_as_the_orm_reads_it(user.pk))
        assert _shown(user_signed_in(user_id=member.pk))[2:] == ("en", False)
        assert getattr(user_signed_in(user_id=admin.pk), LOADED_ADMIN_FLAG) is True
        assert user_signed_in(user_id=str(member.pk)).pk == member.pk  # as a session stores it


def test_one_statement_whatever_the_user(alpha, django_assert_num_queries):
    member = user_of(alpha, alpha.member_email)
    with schema_context(alpha.schema_name):
        user_signed_in(user_id=member.pk)
        with django_assert_num_queries(1):
            assert user_signed_in(user_id=member.pk).pk == member.pk


@pytest.mark.parametrize("user_id", [987654, "abc", "", None, -1, "1; DROP TABLE auth_user"])
def test_no_such_user_is_none(alpha, user_id):
    with schema_context(alpha.schema_name):
        assert user_signed_in(user_id=user_id) is None


def test_the_statement_read_first_in_one_tenant_reads_the_other_tenants_own_users(alpha, beta):
    # Compiled once per process, it names no schema: the same id reads each tenant's own user.
    with schema_context(alpha.schema_name):
        alpha_admin = user_signed_in(user_id=user_of(alpha, alpha.admin_email).pk)
    beta_admin = user_of(beta, beta.admin_email)
    with schema_context(beta.schema_name):
        UserPreference.objects.update_or_create(user=beta_admin, defaults={"language": "en"})
        read = user_signed_in(user_id=beta_admin.pk)
    assert read.username == beta.admin_email and read.preferred_language == "en"
    assert alpha_admin.username == alpha.admin_email
    connection.set_schema_to_public()
