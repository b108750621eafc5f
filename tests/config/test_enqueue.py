"""config.enqueue: a service's task is sent by name after commit, with its schema; a broker error is logged, never raised."""

from __future__ import annotations

import logging

import pytest
from django.db import connection, transaction

from config.celery import app, queue_of
from config.enqueue import SCHEMA_HEADER, enqueue_on_commit, send_now
from tests.fixtures.network import free_loopback_port
from tests.fixtures.processes import _point_app_at

TASK = "notifications.send_due_webhooks"  # any name: nothing runs it here, the message is read off the queue


def _drain(task_name: str = TASK) -> list[tuple[str, str | None, list, dict]]:
    """Messages waiting in the in-memory test broker's queue for ``task_name``: (name, schema header, args, kwargs)."""
    found = []
    with app.connection_for_read() as conn, conn.SimpleQueue(queue_of(task_name)) as queue:
        while True:
            try:
                message = queue.get(timeout=0.2)
            except queue.Empty:
                return found
            args, kwargs, _ = message.payload
            found.append((message.headers["task"], message.headers.get(SCHEMA_HEADER), args, kwargs))
            message.ack()


@pytest.fixture
def unreachable_broker():
    """The app publishes to a loopback port nothing listens on (a real connection refused, no stand-in)."""
    previous = app.conf.broker_url
    _point_app_at(f"redis://127.0.0.1:{free_loopback_port()}/0")
    try:
        yield
    finally:
        _point_app_at(previous)


@pytest.mark.django_db
def test_the_task_is_sent_by_name_only_once_the_transaction_commits(alpha, django_capture_on_commit_callbacks):
    _drain()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue_on_commit(TASK, args=[7], kwargs={"run_id": 3}, schema="alpha")
        assert _drain() == []  # nothing leaves before the commit
    assert len(callbacks) == 1
    assert _drain() == [(TASK, "alpha", [7], {"run_id": 3})]


@pytest.mark.django_db
def test_a_rolled_back_transaction_sends_nothing(django_capture_on_commit_callbacks):
    _drain()
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        enqueue_on_commit(TASK, schema="alpha")
        raise RuntimeError("the request fails after asking")
    assert callbacks == []
    assert _drain() == []


@pytest.mark.django_db
def test_without_a_schema_the_task_goes_to_the_schema_of_the_caller_when_it_asked(
    alpha, django_capture_on_commit_callbacks
):
    _drain()
    with django_capture_on_commit_callbacks(execute=True):
        connection.set_tenant(alpha.tenant)
        enqueue_on_commit(TASK)
        connection.set_schema_to_public()  # the commit happens elsewhere; the task still belongs to alpha
    assert _drain() == [(TASK, "alpha", [], {})]


@pytest.mark.django_db
def test_a_broker_error_is_logged_with_the_task_name_and_never_reaches_the_commit(
    alpha, unreachable_broker, caplog, django_capture_on_commit_callbacks
):
    from notifications.models import WebhookEvent

    caplog.set_level(logging.WARNING, logger="config.enqueue")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:  # raises if a callback raised
        enqueue_on_commit(TASK, schema="alpha")
    assert len(callbacks) == 1
    warnings = [record for record in caplog.records if record.name == "config.enqueue"]
    assert len(warnings) == 1 and TASK in warnings[0].getMessage() and "alpha" in warnings[0].getMessage()
    assert warnings[0].exc_info is not None  # the broker's own error is in the log
    connection.set_tenant(alpha.tenant)
    assert WebhookEvent.objects.count() == 0  # the database stays usable after the failed send


@pytest.mark.django_db
def test_send_now_reports_a_broker_error_as_false(unreachable_broker, caplog):
    caplog.set_level(logging.WARNING, logger="config.enqueue")
    assert send_now(TASK, schema="beta") is False
    assert any(TASK in record.getMessage() for record in caplog.records)


@pytest.mark.django_db
def test_send_now_sends_at_once(db):
    _drain()
    assert send_now(TASK, kwargs={"x": 1}, schema="beta") is True
    assert _drain() == [(TASK, "beta", [], {"x": 1})]
