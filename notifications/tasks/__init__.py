"""Celery tasks of the tenant app, one module per concern (autodiscovery imports this package)."""

from notifications.tasks import accounts, alerts, inbox, webhooks  # noqa: F401
