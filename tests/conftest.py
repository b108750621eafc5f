"""Test infrastructure: real PostgreSQL, two real tenants, real servers for mail and tasks.

The two tenants are created once per session, with the test database, and
outlive every test; each test runs in a transaction that is rolled back, so tests
cannot see each other's rows. The suite runs in pytest-xdist workers (``addopts``),
each with a database of its own; see ``django_db_setup``.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.utils import translation
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
    create_session_tenants,
    public_client,
    two_tenants,
)


@pytest.fixture(scope="session")
def django_db_setup(
    request, django_test_environment, django_db_blocker, django_db_modify_db_settings, tmp_path_factory
):
    """The test database with the session's tenants, made once per run.

    Serial runs migrate it and create the tenants. Under pytest-xdist every worker has a database of
    its own (pytest-django's ``_gw0``, ``_gw1`` … names): the first worker builds a template
    (migrations and tenants, the slow part) and each worker copies it with ``CREATE DATABASE …
    TEMPLATE``, instead of migrating the same schemas once per worker. Unlike pytest-django's own
    fixture this always makes the database, so a run of ``committed`` tests alone (no ``db``) has one.
    """
    from django.test.utils import setup_databases, teardown_databases

    worker = getattr(request.config, "workerinput", {}).get("workerid")
    with django_db_blocker.unblock():
        if worker is None:
            created = setup_databases(verbosity=0, interactive=False, aliases=["default"])
            create_session_tenants()
        else:
            created = _copy_of_the_template(run_folder=tmp_path_factory.getbasetemp().parent)
    yield
    with django_db_blocker.unblock():
        teardown_databases(created, verbosity=0)


def _copy_of_the_template(*, run_folder: Path) -> list:
    """This worker's database, copied from the run's template (built here if no worker has yet)."""
    from django.conf import settings
    from django.test.utils import setup_databases

    server_name = connection.settings_dict["NAME"]
    own_name = connection.settings_dict["TEST"]["NAME"]
    template = _template_name()
    with (run_folder / "test-database.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other workers wait until the template is there
        built = run_folder / "test-database.built"
        if not built.exists():
            connection.settings_dict["TEST"]["NAME"] = template
            setup_databases(verbosity=0, interactive=False, aliases=["default"])
            create_session_tenants()
            connection.close()  # a template must have no connections while it is copied
            built.write_text(template)
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{own_name}"')
            cursor.execute(f'CREATE DATABASE "{own_name}" TEMPLATE "{template}"')
    connection.close()
    connection.settings_dict["NAME"] = settings.DATABASES["default"]["NAME"] = own_name
    connection.settings_dict["TEST"]["NAME"] = own_name
    # teardown_databases destroys what is listed here: this worker's copy (the controller drops the template).
    return [(connection, server_name, True)]


def _template_name() -> str:
    from django.conf import settings

    return f"test_{settings.DATABASES['default']['NAME'].removeprefix('test_')}_template"


def pytest_sessionfinish(session):
    """The controller of an xdist run drops the workers' template database once they are done."""
    if hasattr(session.config, "workerinput") or not getattr(session.config.option, "numprocesses", None):
        return
    from pytest_django.plugin import blocking_manager_key

    with session.config.stash[blocking_manager_key].unblock(), connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{_template_name()}"')


@pytest.fixture(autouse=True)
def _default_language_in_each_test():
    """Each test starts in the site's language. The locale middleware activates a request's language for the
    thread and leaves it active after the response, so an English request would turn the next test's German
    labels English (seen as failures that depend on which tests share an xdist worker)."""
    translation.activate(django_settings.LANGUAGE_CODE)
    yield
    translation.activate(django_settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _no_words_kept_from_earlier_tests():
    """Each test counts its statements as a fresh process would: stems and keyword answers an earlier test read
    are not known (which tests share an xdist worker must not change a count)."""
    from tenders.fulltext import _rewrite_answer
    from tenders.highlighting import stems_forget

    stems_forget()
    _rewrite_answer.cache_clear()  # keywords compiled by an earlier test are not known either


@pytest.fixture(autouse=True)
def _public_schema_after_each_test():
    """A test that switched schemas must not leak its schema into the next test."""
    yield
    if connection.connection is not None or connection.schema_name != get_public_schema_name():
        connection.set_schema_to_public()
