"""Celery tasks of the tenant app, one module per concern (autodiscovery imports this package)."""

from notifications.tasks import accounts, alerts, inbox, reminders, smtp, webhooks  # noqa: F401
