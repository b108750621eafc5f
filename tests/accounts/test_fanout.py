"""The one tenant fan-out: by task name, the schema in the headers, one broken tenant never stops the others."""

from __future__ import annotations

import random

import pytest

from accounts.fanout import SCHEMA_HEADER, tenants_fan_out


class _Broker:
    """Stands in for the broker's publish (off-machine in production): records sends; refuses some schemas."""

    def __init__(self, refuse=()):
        self.refuse = set(refuse)
        self.sends = []

    def send_task(self, name, **options):
        schema = options["headers"]["_schema_name"]
        if schema in self.refuse:
            raise ConnectionError("broker unreachable")
        self.sends.append((name, schema, options))


@pytest.fixture
def broker(monkeypatch):
    from config.celery import app

    fake = _Broker()
    monkeypatch.setattr(app, "send_task", fake.send_task)
    return fake


def _drain(queue_name: str) -> list[tuple[str, str, dict]]:
    """Messages waiting in the test broker's queue, as (task name, schema header, kwargs)."""
    from config.celery import app

    found = []
    with app.connection_for_read() as conn, conn.SimpleQueue(queue_name) as queue:
        while True:
            try:
                message = queue.get(timeout=0.2)
            except queue.Empty:
                return found
            found.append((message.headers["task"], message.headers.get(SCHEMA_HEADER), message.payload[1]))
            message.ack()


@pytest.mark.django_db
def test_every_active_tenant_gets_the_task_by_name_with_its_schema(alpha, beta):
    # The real publish to the test broker: what tenant-schemas-celery reads on the worker is what lands there.
    from config.celery import queue_of

    queue_name = queue_of("notifications.example")
    _drain(queue_name)
    result = tenants_fan_out(task_name="notifications.example", kwargs={"x": 1})
    assert result.sent == ["alpha", "beta"] and result.not_sent == []
    assert _drain(queue_name) == [
        ("notifications.example", "alpha", {"x": 1}),
        ("notifications.example", "beta", {"x": 1}),
    ]


@pytest.mark.django_db
def test_a_tenant_that_cannot_be_enqueued_does_not_stop_the_others(alpha, beta, broker):
    broker.refuse = {"alpha"}
    result = tenants_fan_out(task_name="notifications.example")
    assert result.sent == ["beta"] and result.not_sent == ["alpha"]


@pytest.mark.django_db
def test_a_caller_may_stop_at_the_first_failure_and_leave_the_rest_for_its_next_round(db, broker):
    broker.refuse = {"b"}
    result = tenants_fan_out(task_name="tenders.example", schemas=["a", "b", "c"], stop_at_first_failure=True)
    assert result.sent == ["a"] and result.not_sent == ["b", "c"]


@pytest.mark.django_db
def test_given_schemas_only_and_starts_spread_over_the_jitter(db, broker):
    result = tenants_fan_out(task_name="x", schemas=["a", "b", "c"], jitter_seconds=300, rng=random.Random(3))
    countdowns = [options["countdown"] for *_, options in broker.sends]
    assert result.sent == ["a", "b", "c"]
    assert all(0 <= c <= 300 for c in countdowns) and len(set(countdowns)) == 3
