"""config.task_policy: every task declares the schema it needs (checked in one place) and retries by one policy."""

from __future__ import annotations

import logging
import threading

import pytest
from celery.exceptions import Retry
from django.db import connection
from django.test import override_settings

from config.celery import app, queue_of
from config.enqueue import SCHEMA_HEADER
from config.task_policy import PUBLIC, TENANT, ProjectTask, public_task, task_retry_policy, tenant_task

_ran: list[str] = []
_done = threading.Event()


@tenant_task(name="tests.task_policy.tenant_work")
def tenant_work() -> str:
    _ran.append(connection.schema_name)
    return "worked"


@public_task(name="tests.task_policy.public_work", refused="refused")
def public_work() -> str:
    _ran.append(connection.schema_name)
    return "worked"


@public_task(name="tests.task_policy.done")
def done() -> None:
    _done.set()


@tenant_task(name="tests.task_policy.flaky", autoretry_for=(ConnectionError,))
def flaky() -> None:
    raise ConnectionError("the database went away for a moment")


def project_tasks() -> list:
    """Every task of the product a worker registers (not Celery's own, not the tests')."""
    app.loader.import_default_modules()
    products = ("accounts.", "config.", "kernel.", "notifications.", "sources.", "tenders.")
    return sorted(
        (task for name, task in app.tasks.items() if type(task).__module__.startswith(products)),
        key=lambda task: task.name,
    )


def test_the_project_has_tasks_to_check():
    names = {task.name for task in project_tasks()}
    # The two tenant tasks that once had no schema check at all are among them.
    assert {"notifications.check_mailbox", "notifications.send_due_webhooks", "tenders.dispatch_deltas"} <= names


@pytest.mark.parametrize("task", project_tasks(), ids=lambda task: task.name)
def test_every_task_declares_its_schema_and_takes_the_one_retry_policy(task):
    assert isinstance(task, ProjectTask)
    assert task.needs_schema in (TENANT, PUBLIC)
    own = {"retry_backoff", "retry_backoff_max", "retry_jitter", "max_retries", "default_retry_delay"}
    assert own.isdisjoint(vars(type(task))), "waits and attempts come from TASKS_RETRY_BACKOFF"
    assert type(task).retry is ProjectTask.retry


@pytest.mark.django_db
@pytest.mark.parametrize(
    "task", [task for task in project_tasks() if task.needs_schema == TENANT], ids=lambda task: task.name
)
def test_every_tenant_task_is_refused_in_the_public_schema_and_runs_in_a_tenant(task, alpha, monkeypatch, caplog):
    calls: list[str] = []
    monkeypatch.setattr(task, "run", lambda *args, **kwargs: calls.append(connection.schema_name))
    caplog.set_level(logging.ERROR, logger="config.task_policy")
    args = (1, "a@example.org", "public") if task.name == "notifications.smtp_test" else ()
    kwargs = {"user_id": 1, "origin": "https://x"} if task.name == "notifications.password_reset_mail_send" else {}

    connection.set_schema_to_public()
    assert task(*args, **kwargs) == task.refused_result
    assert calls == []
    assert [record.getMessage() for record in caplog.records] == [
        f"{task.name} needs a tenant schema and was sent without one (runs in 'public'); ignored"
    ]

    connection.set_tenant(alpha.tenant)
    task(*args, **kwargs)
    assert calls == ["alpha"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "task", [task for task in project_tasks() if task.needs_schema == PUBLIC], ids=lambda task: task.name
)
def test_every_platform_task_is_refused_in_a_tenant_schema(task, alpha, monkeypatch, caplog):
    calls: list[str] = []
    monkeypatch.setattr(task, "run", lambda *args, **kwargs: calls.append(connection.schema_name))
    caplog.set_level(logging.ERROR, logger="config.task_policy")
    args = (1,) if task.name.startswith("sources.poll_source") else ()

    connection.set_tenant(alpha.tenant)
    assert task(*args) == task.refused_result
    assert calls == []
    assert "is a platform task for the public schema but runs in tenant schema 'alpha'; ignored" in caplog.text

    connection.set_schema_to_public()
    task(*args)
    assert calls == ["public"]


@pytest.mark.django_db
def test_the_refusal_returns_what_the_task_declares(alpha):
    assert public_work() == "worked"
    connection.set_tenant(alpha.tenant)
    assert public_work() == "refused"
    assert tenant_work() == "worked"
    connection.set_schema_to_public()
    assert tenant_work() is None
    assert app.tasks["notifications.smtp_test"].refused_result == "refused"
    assert app.tasks["notifications.check_mailbox"].refused_result == {}


def test_the_worker_refuses_a_tenant_task_sent_without_a_tenant_and_runs_it_with_one(celery_worker, alpha, caplog):
    """Through a real worker: the check runs after tenant-schemas-celery switched to the message's schema."""
    caplog.set_level(logging.ERROR, logger="config.task_policy")

    def send_and_wait(schema: str) -> None:
        _done.clear()
        app.send_task(tenant_work.name, headers={SCHEMA_HEADER: schema})
        app.send_task(done.name, headers={SCHEMA_HEADER: "public"})  # same queue, one solo worker: runs after
        assert _done.wait(timeout=20), "worker did not run the tasks"

    _ran.clear()
    send_and_wait("public")
    assert _ran == []
    assert f"{tenant_work.name} needs a tenant schema" in caplog.text
    send_and_wait("alpha")
    assert _ran == ["alpha"]


def test_the_decorators_refuse_a_retry_behaviour_of_the_tasks_own():
    for option in ("retry_backoff", "retry_backoff_max", "retry_jitter", "max_retries", "default_retry_delay"):
        with pytest.raises(TypeError, match="TASKS_RETRY_BACKOFF"):
            tenant_task(name="tests.task_policy.own_policy", **{option: 30})
    with pytest.raises(TypeError):
        public_task(name="tests.task_policy.own_base", base=ProjectTask)


@pytest.fixture
def retries_sent():
    """The retry messages the tests below publish to the in-memory broker, read off again (nothing runs them)."""
    sent: list[str] = []
    yield sent
    with app.connection_for_read() as conn, conn.SimpleQueue(queue_of(flaky.name)) as queue:
        while True:
            try:
                message = queue.get(timeout=0.2)
            except queue.Empty:
                break
            sent.append(message.headers["task"])
            message.ack()


POLICY = {"base_seconds": 10.0, "factor": 3.0, "cap_seconds": 100.0, "max_attempts": 3, "jitter": "none"}


@override_settings(TASKS_RETRY_BACKOFF=POLICY)
@pytest.mark.parametrize(("retries", "wait"), [(0, 10.0), (1, 30.0)])
def test_an_autoretry_waits_as_the_policy_says(retries, wait, retries_sent):
    task = app.tasks[flaky.name]
    task.push_request(retries=retries, called_directly=False, id="t", args=(), kwargs={}, delivery_info={})
    try:
        with pytest.raises(Retry) as retry:
            task.run()
    finally:
        task.pop_request()
    assert retry.value.when == wait == task_retry_policy().wait_seconds(retries + 1)


@override_settings(TASKS_RETRY_BACKOFF=POLICY)
def test_an_autoretry_gives_up_after_the_policys_attempts(retries_sent):
    task = app.tasks[flaky.name]
    task.push_request(retries=2, called_directly=False, id="t", args=(), kwargs={}, delivery_info={})
    try:
        with pytest.raises(ConnectionError):  # the third attempt was the last: the error itself is raised
            task.run()
    finally:
        task.pop_request()
