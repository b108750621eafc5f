"""Production: everything from the environment, HTTPS only, no embedded servers."""

from django.core.exceptions import ImproperlyConfigured

from config.email_url import email_config
from config.env import env_bool, env_int, env_list, env_str
from config.local_keys import HOW_TO_MAKE_A_KEY
from config.settings.base import *  # noqa: F403
from config.settings.base import database_settings

DATABASES = database_settings(allow_embedded=False)
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL
CELERY_BROKER_TRANSPORT_OPTIONS = {}
CACHES = {
    "default": {
        "BACKEND": "config.redis_cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
    }
}

DEBUG = False
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
# Each tenant host trusts its own origin (see base); extra origins are exact, never wildcards.
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
if any("*" in origin for origin in CSRF_TRUSTED_ORIGINS):
    raise ImproperlyConfigured(
        "DJANGO_CSRF_TRUSTED_ORIGINS must not contain wildcards: one tenant's pages would be trusted by every other."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True  # like every cookie of the product: never sent over plain HTTP
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# SMTP unless EMAIL_URL names another way (config.email_url); without it, a relay on this machine, as
# Django's own default. Mail that cannot go out fails platform_init and tenant_create, never silently.
EMAIL_URL = env_str("EMAIL_URL", "smtp://localhost:25?starttls=off")
globals().update(email_config(EMAIL_URL).settings())
SECRETS_ENCRYPTION_KEYS = env_list("SECRETS_ENCRYPTION_KEYS")
if not SECRETS_ENCRYPTION_KEYS:  # refuse to start rather than fail on the first saved password
    raise ImproperlyConfigured(HOW_TO_MAKE_A_KEY)

# Never in production, whatever an environment or an overlay above says: no demo, no local outbox page.
DEMO_ENABLED = False
LOCAL_OUTBOX_DIR = None
