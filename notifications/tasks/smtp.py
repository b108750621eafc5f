"""Celery edge for the SMTP test mail (runs in the schema of the tenant that sent it)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="notifications.smtp_test", acks_late=True, time_limit=120, soft_time_limit=100)
def smtp_test_task(user_id: int, to: str) -> str:
    from notifications.preferences.smtp_test import smtp_test_run

    return smtp_test_run(user_id=int(user_id), to=str(to)).state
