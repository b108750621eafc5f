"""Test infrastructure: real PostgreSQL, two real tenants, real servers for mail and tasks.

The two tenants are created once per session, after pytest-django made the test
database, and outlive every test; each test runs in a transaction that is
rolled back, so tests cannot see each other's rows.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django_tenants.utils import get_public_schema_name

from tests.fixtures.celery import celery_worker  # noqa: F401
from tests.fixtures.committed import committed  # noqa: F401
from tests.fixtures.processes import processes, redis_broker  # noqa: F401
from tests.fixtures.smtp import smtp_server  # noqa: F401
from tests.fixtures.tenants import (  # noqa: F401
    TENANT_PASSWORD,
    alpha,
    alpha_admin_client,
    alpha_client,
    beta,
    beta_admin_client,
    beta_client,
    committed_tenants,
    public_client,
    two_tenants,
)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    from django.test.utils import setup_databases, teardown_databases

    from tests.fixtures.tenants import create_session_tenants

    own_setup = None
    with django_db_blocker.unblock():
        # pytest-django creates the test database only when a selected test uses ``db``; a run of
        # ``committed`` tests alone (e.g. ``-k crashed``) still needs it.
        if not connection.settings_dict["NAME"].startswith("test_"):
            own_setup = setup_databases(verbosity=0, interactive=False, aliases=["default"])
        create_session_tenants()
    yield
    if own_setup is not None:
        with django_db_blocker.unblock():
            teardown_databases(own_setup, verbosity=0)


@pytest.fixture(autouse=True)
def _public_schema_after_each_test():
    """A test that switched schemas must not leak its schema into the next test."""
    yield
    if connection.connection is not None or connection.schema_name != get_public_schema_name():
        connection.set_schema_to_public()
