"""Celery edge for the SMTP test mail (runs in the schema of the tenant that sent it)."""

from __future__ import annotations

import logging

from django.db import connection

from config.task_policy import tenant_task
from notifications.preferences.smtp_test import SMTP_TEST_TASK_NAME

logger = logging.getLogger(__name__)
REFUSED = "refused"


@tenant_task(name=SMTP_TEST_TASK_NAME, bind=True, refused=REFUSED, time_limit=120, soft_time_limit=100)
def smtp_test_task(self, user_id: int, to: str, schema_name: str = "") -> str:
    """Refuses to run anywhere but in the schema that queued it.

    User ids are numbered per schema: run in another tenant's schema (lost or forged headers), the
    same id is somebody else, and the mail would go through that tenant's server.
    """
    from notifications.preferences.smtp_test import smtp_test_run

    if connection.schema_name != schema_name:
        logger.error(
            "%s was queued for schema %r but runs in %r; ignored", self.name, schema_name, connection.schema_name
        )
        return REFUSED
    return smtp_test_run(user_id=int(user_id), to=str(to)).state
