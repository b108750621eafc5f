import pytest


@pytest.fixture
def committed_tenants(committed):
    """alpha and beta without the ``db`` fixture, whose test transaction would hide rows from other connections."""
    from tests.fixtures.tenants import _test_tenant

    return _test_tenant("alpha"), _test_tenant("beta")
