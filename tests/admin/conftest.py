"""An operator signed in to the console on the public host."""

from __future__ import annotations

import pytest

from tests.fixtures.tenants import operator_sign_in


@pytest.fixture
def operator_client(public_client):
    operator_sign_in(public_client)
    return public_client
