"""Celery edge of the Passwort-vergessen flow (tenant task; the schema travels in the headers)."""

from __future__ import annotations

from config.task_policy import tenant_task
from notifications.alerts.sending import TemporarySendError
from notifications.password_reset.services import TASK_NAME


@tenant_task(
    name=TASK_NAME, bind=True, autoretry_for=(TemporarySendError,), refused=False, soft_time_limit=60, time_limit=90
)
def password_reset_mail_send_task(self, user_id: int, origin: str) -> bool:
    """Idempotent enough to retry: each run makes a fresh token; an earlier mail's link stays valid too."""
    from notifications.password_reset.services import password_reset_mail_send

    return password_reset_mail_send(user_id=user_id, origin=origin)
