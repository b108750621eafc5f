"""An operator signed in to the console on the public host."""

from __future__ import annotations

import pytest

from tests.fixtures.tenants import TENANT_PASSWORD


@pytest.fixture
def operator_client(public_client):
    assert public_client.login(username="operator@example.org", password=TENANT_PASSWORD)
    return public_client
