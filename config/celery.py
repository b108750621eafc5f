"""The Celery app. Every task message carries the schema it was sent from.

tenant-schemas-celery stores the current schema in the task headers and
switches the worker's connection to it before the task runs, so a task sent in
a tenant request works on that tenant's data and shared ingest tasks run in
the public schema.
"""

import os

from tenant_schemas_celery.app import CeleryApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = CeleryApp("tender_radar")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
