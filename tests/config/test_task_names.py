"""Services hand work to workers by task name (no import of the task module, so no import cycle):
each name they send is a task a worker has registered."""

from __future__ import annotations

import pytest

from config.celery import app
from notifications.alerts.deliveries import SEND_TASK_NAME
from notifications.bid_cards import SEND_DUE_REMINDERS_TASK_NAME
from notifications.password_reset.services import TASK_NAME as PASSWORD_RESET_TASK_NAME
from notifications.preferences.smtp_test import SMTP_TEST_TASK_NAME
from sources.services import POLL_NOW_TASK_NAME
from tenders.handoff import DISPATCH_TASK_NAME, TENANT_TASK_NAME


@pytest.fixture(scope="module")
def registered() -> set[str]:
    app.loader.import_default_modules()  # what a worker does at start: every app's tasks module
    return set(app.tasks)


@pytest.mark.parametrize(
    "name",
    [
        POLL_NOW_TASK_NAME,
        SMTP_TEST_TASK_NAME,
        DISPATCH_TASK_NAME,
        TENANT_TASK_NAME,
        SEND_TASK_NAME,
        PASSWORD_RESET_TASK_NAME,
        SEND_DUE_REMINDERS_TASK_NAME,
    ],
)
def test_a_name_sent_is_a_registered_task(registered, name):
    assert name in registered


def test_an_unknown_name_is_not(registered):
    assert "sources.poll_source_later" not in registered
