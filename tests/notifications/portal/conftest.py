"""Fixtures for portal tests: the search corpus ingested at the real clock, and the tenants' users."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from tests.tenders.search_corpus import ingest_corpus


@pytest.fixture
def corpus(db) -> dict[str, int]:
    """Corpus tender ids by key, first seen now (so saved-search previews count them)."""
    return ingest_corpus(timezone.now())


def user_of(test_tenant, email: str):
    with schema_context(test_tenant.schema_name):
        return get_user_model().objects.get(username=email)


@pytest.fixture
def alpha_member(alpha):
    return user_of(alpha, alpha.member_email)


@pytest.fixture
def alpha_admin(alpha):
    return user_of(alpha, alpha.admin_email)
