"""Mail clients connect to the addresses the guard checked, in order, never to the name again."""

from __future__ import annotations

import socket

import pytest

from kernel.network import connect_checked


@pytest.fixture
def listener():
    """A real TCP server on 127.0.0.1 only: 127.0.0.2 (loopback as well) refuses the same port."""
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1]
    server.close()


def test_the_first_address_that_answers_is_used(listener):
    with connect_checked(["127.0.0.2", "127.0.0.1"], listener, timeout=2) as sock:
        assert sock.getpeername() == ("127.0.0.1", listener)


def test_when_no_checked_address_answers_the_last_error_is_raised(listener):
    with pytest.raises(ConnectionRefusedError):
        connect_checked(["127.0.0.2"], listener, timeout=2)
    with pytest.raises(OSError, match="no address"):
        connect_checked([], listener, timeout=2)
