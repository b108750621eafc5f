"""Test runs: real PostgreSQL (embedded unless DATABASE_URL is set), fast hashing, in-memory mail."""

from config.env import env_str
from config.settings.base import *  # noqa: F403
from config.settings.base import database_settings

DATABASES = database_settings(allow_embedded=True)

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Per process, unless a test shares one with the worker processes it starts (TEST_CACHE_DIR): the health
# snapshot a real worker computes is read by the test's own readiness request.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
    }
}
if env_str("TEST_CACHE_DIR", ""):
    CACHES["default"] |= {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": env_str("TEST_CACHE_DIR", ""),
    }
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tasks run through a real worker started by the tests (tests/fixtures/celery.py) on an in-memory broker;
# worker, beat and manage.py subprocesses (tests/fixtures/processes.py) get a real Redis in this variable.
CELERY_BROKER_URL = env_str("TEST_CELERY_BROKER_URL", "memory://")
CELERY_BROKER_TRANSPORT_OPTIONS = {}
SECRETS_ENCRYPTION_KEYS = ["MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA="]
ALLOWED_HOSTS = ["*"]
SOURCES_ALLOW_LOOPBACK = True
MAIL_ALLOW_LOOPBACK = True
