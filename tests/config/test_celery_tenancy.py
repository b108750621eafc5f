"""Tasks run through a real worker and in the schema they were sent from."""

import threading

from django.db import connection

from config.celery import app

_seen: list[str] = []
_done = threading.Event()


@app.task(name="tests.report_schema")
def report_schema() -> None:
    _seen.append(connection.schema_name)
    _done.set()


def _run_from(tenant=None) -> str:
    _seen.clear()
    _done.clear()
    if tenant is None:
        connection.set_schema_to_public()
    else:
        connection.set_tenant(tenant)
    report_schema.delay()
    assert _done.wait(timeout=20), "worker did not run the task"
    return _seen[-1]


def test_task_runs_in_the_schema_of_its_sender(celery_worker, alpha, beta):
    assert _run_from(alpha.tenant) == "alpha"
    assert _run_from(beta.tenant) == "beta"
    assert _run_from(None) == "public"
