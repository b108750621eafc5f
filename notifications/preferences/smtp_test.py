"""The SMTP test mail, sent in the background: the request returns at once, the page shows the outcome.

A slow or unreachable server used to hold the admin's request for the full SMTP timeout. The
request now records "wird gesendet" and queues ``notifications.smtp_test`` (which runs in this
tenant's schema); the task sends through ``smtp_send_test`` and records the outcome, in German,
under the admin's user id in the cache (tenant-prefixed keys), where the SMTP page reads it.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import asdict, dataclass

from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from config.enqueue import enqueue_on_commit
from notifications.alerts.deliveries import smtp_send_test
from notifications.alerts.sending import SendError

OUTCOME_SECONDS = 24 * 3600
SMTP_TEST_TASK_NAME = "notifications.smtp_test"  # notifications.tasks.smtp.smtp_test_task
PENDING, SENT, FAILED = "pending", "sent", "failed"


@dataclass(frozen=True)
class SmtpTestOutcome:
    state: str  # pending | sent | failed
    to: str
    message: str = ""
    at: str = ""


def _key(user_id: int) -> str:
    return f"smtp-test:{user_id}"


def _store(user_id: int, outcome: SmtpTestOutcome) -> None:
    cache.set(_key(user_id), asdict(outcome), OUTCOME_SECONDS)


def smtp_test_outcome(*, user_id: int) -> SmtpTestOutcome | None:
    data = cache.get(_key(user_id))
    return SmtpTestOutcome(**data) if isinstance(data, dict) else None


def smtp_test_request(*, user_id: int, to: str) -> None:
    """Record "pending" and queue the test mail after commit."""
    _store(user_id, SmtpTestOutcome(state=PENDING, to=to, at=timezone.now().isoformat()))
    # By name, as every service hands work to a worker: the task module imports this one. The schema
    # travels in the headers (tenant-schemas-celery) and as an argument: the task checks it runs there.
    schema_name = connection.schema_name
    enqueue_on_commit(SMTP_TEST_TASK_NAME, args=[user_id, to, schema_name], schema=schema_name)


def german_reason(exc: BaseException) -> str:
    """The send error in words an admin can act on (the server's own reply is kept where there is one)."""
    cause = exc.__cause__ or exc.__context__ or exc
    if isinstance(cause, ConnectionRefusedError):
        return "Verbindung abgelehnt: Unter dieser Adresse und diesem Port nimmt kein Mailserver Verbindungen an."
    if isinstance(cause, socket.gaierror):
        return "Der Name des Mailservers lässt sich nicht auflösen (Tippfehler im Servernamen?)."
    if isinstance(cause, (TimeoutError, socket.timeout)):
        return "Zeitüberschreitung: Der Mailserver hat nicht rechtzeitig geantwortet (Port oder Firewall prüfen)."
    if isinstance(cause, ssl.SSLError):
        return f"TLS-Fehler: Verschlüsselung passt nicht zum Server (STARTTLS oder SSL/TLS wählen). ({cause})"
    return str(exc)


def smtp_test_run(*, user_id: int, to: str) -> SmtpTestOutcome:
    """Send the test mail now and record the outcome (never raises for a mail problem)."""
    try:
        smtp_send_test(to=to)
    except SendError as exc:
        outcome = SmtpTestOutcome(state=FAILED, to=to, message=german_reason(exc), at=timezone.now().isoformat())
    else:
        outcome = SmtpTestOutcome(state=SENT, to=to, at=timezone.now().isoformat())
    _store(user_id, outcome)
    return outcome
