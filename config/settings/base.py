"""Settings shared by every environment; overlays (local, test, production) change little.

Configuration comes from environment variables only (see ``config.env``).
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.email_url import email_config
from config.embedded import FILESYSTEM_BROKER_URL, embedded_database_settings, filesystem_broker_options
from config.env import env_bool, env_int, env_list, env_optional, env_str
from config.settings.api import *  # noqa: F403 (REST_FRAMEWORK, SPECTACULAR_SETTINGS)
from config.settings.schedules import PLATFORM_PERIODIC_TASKS  # noqa: F401 (the beat jobs, as data)
from config.settings.tenancy import *  # noqa: F403 (apps in each schema, tenant model, URL confs, router)

BASE_DIR = Path(__file__).resolve().parents[2]
LOCAL_DATA_DIR = Path(env_str("TENDER_RADAR_DATA_DIR", str(BASE_DIR / ".local")))

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "insecure-local-development-key-change-me")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", ".localhost", "127.0.0.1"])


def database_settings(*, allow_embedded: bool) -> dict:
    """DATABASE_URL when set; otherwise the embedded server, where the overlay allows it."""
    url = env_optional("DATABASE_URL")
    if url:
        database = dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60))
    elif allow_embedded:
        database = embedded_database_settings(LOCAL_DATA_DIR / "pgdata")
    else:
        raise ImproperlyConfigured("DATABASE_URL is required with these settings")
    database["ENGINE"] = "django_tenants.postgresql_backend"
    database.setdefault("OPTIONS", {})
    options = session_options(env_str("DATABASE_WORK_MEM", DATABASE_WORK_MEM))
    if options:
        given = database["OPTIONS"].get("options", "")
        database["OPTIONS"]["options"] = f"{given} {options}".strip()
    return {"default": database}


# Memory for one sort or bitmap of a statement. PostgreSQL's 4 MB default turns the bitmap of a frequent word
# among open tenders lossy at a million tenders, and every row of its heap pages is checked again: a relevance
# page of a frequent word with a CPV division took 215 ms, 113 ms at 16 MB (bench/README.md, "Under load").
# Set DATABASE_WORK_MEM to "" behind a pooler that refuses startup options (the server's setting then applies).
DATABASE_WORK_MEM = "16MB"


def session_options(work_mem: str) -> str:
    """libpq ``options`` for every connection: ``-c work_mem=…`` ("" when unset); a malformed size stops the start."""
    if not work_mem:
        return ""
    if not re.fullmatch(r"[1-9][0-9]{0,6}(kB|MB|GB)", work_mem):
        raise ImproperlyConfigured(f"DATABASE_WORK_MEM must be a size like 16MB or 65536kB, not {work_mem!r}")
    return f"-c work_mem={work_mem}"


# Overlays assign DATABASES = database_settings(...): only they know whether embedding is allowed.
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

MIDDLEWARE = [
    "accounts.middleware.TenantMiddleware",
    # Before anything stores a header (django-axes keeps the User-Agent and Accept of failed sign-ins).
    "config.middleware.StoredHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "config.console_language.OperatorConsoleLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "notifications.portal.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Refusals views let through become 400/403/404 pages with the service's message.
    "config.middleware.ApplicationErrorMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes requires: turns a lockout flagged during sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.tenant",
                "notifications.demo.context_processors.local_outbox",
            ],
        },
    },
]
# Django's standard widget templates written in Python, same bytes: the search form's ~50 inputs
# and options cost a quarter of the search page's Python time through the template engine.
FORM_RENDERER = "config.form_renderer.FormRenderer"

WSGI_APPLICATION = "config.wsgi.application"

# Django's default list with its pbkdf2_sha256 computed by cryptography's OpenSSL (accounts.hashers):
# the same hashes and iterations, half the time per sign-in. Django's own class must not be listed too:
# hashers are looked up by algorithm name, and the later of two with one name would win.
PASSWORD_HASHERS = [
    "accounts.hashers.PBKDF2SHA256Hasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes refuses a locked-out account or client before the password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's ModelBackend, reading the person's language and role with them (one statement per page).
    # Sessions signed in under ModelBackend's name sign in again once.
    "notifications.portal.backends.PortalUserBackend",
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "accounts:login"

# Sessions live in each schema's own table and cookies are host-only (no
# SESSION_COOKIE_DOMAIN), so a session of one tenant is unknown to every other. Read through the cache
# (whose keys carry the schema), so a page does not spend a statement on its session; ending a session
# deletes both (accounts.services.user_sessions_end).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# The language cookie (set_language, Einstellungen) is read by the server only: no script needs it.
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
# CSRF origins: Django's CsrfViewMiddleware trusts the request's own scheme and host, and
# that host has already been matched to exactly one tenant's Domain row (TenantMainMiddleware
# answers unknown hosts with 404 first). So each tenant host trusts itself and nothing else;
# CSRF_TRUSTED_ORIGINS stays empty. A wildcard such as https://*.radar.example would let any
# tenant's pages post into every other tenant (refused in production settings).
CSRF_TRUSTED_ORIGINS: list[str] = []

LANGUAGE_CODE = "de"
LANGUAGES = [("de", "Deutsch"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
USE_TZ = True
# English mode writes dates the British way (6 Dec 2026, 06/12/2026, 10:00), not Django's US "en" ones.
FORMAT_MODULE_PATH = ["config.settings.formats"]

STATIC_URL = "/static/"
# collectstatic writes here and WhiteNoise serves from here (the files present when the process started).
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Sign-in throttling (django-axes; accounts.login_throttle) ------------------------
# Per account and per client address, each on its own: ten failures within the window lock
# that account (or that address) for LOGIN_LOCKOUT_MINUTES, on the portal, the operator
# admin and the partner API (API-key guessing) alike.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# A lockout lasts exactly the stated time (the message names it); retries during it are not counted.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success must not clear failures: otherwise an attacker with any account on the same
# address could wipe the counter of the account they are guessing.
AXES_RESET_ON_SUCCESS = False
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins are not kept (data minimisation)
AXES_VERBOSE = False  # no start-up banner in every command's output (bench, ingest, search)
AXES_HTTP_RESPONSE_CODE = 429
AXES_USERNAME_CALLABLE = "accounts.login_throttle.attempt_username"
AXES_CLIENT_IP_CALLABLE = "accounts.login_throttle.client_ip"
AXES_LOCKOUT_CALLABLE = "accounts.login_throttle.lockout_response"
# Axes' database handler, checking account and address in one statement (every API request checks both).
AXES_HANDLER = "accounts.login_throttle.OneStatementAxesHandler"
# Behind N reverse proxies the client is the Nth address from the right of X-Forwarded-For;
# 0 (default) trusts REMOTE_ADDR only, so a forged header cannot dodge the per-address limit.
TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", 0)

# --- Content-Security-Policy (django-csp) ---------------------------------------------
# Everything is served by the app itself (htmx, CSS, Swagger UI via the sidecar): no inline
# script or style anywhere, so the policy needs neither 'unsafe-inline' nor 'unsafe-eval'.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # Swagger UI and the admin draw a few icons as data: SVG.
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'none'"],
        "object-src": ["'none'"],
    },
}

# --- Cache: keys carry the schema name (django-tenants security guidance) ----
REDIS_URL = env_optional("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_FUNCTION": "django_tenants.cache.make_key",
            "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(LOCAL_DATA_DIR / "cache"),
            "KEY_FUNCTION": "django_tenants.cache.make_key",
            "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        }
    }

# --- Celery --------------------------------------------------------------------
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "ingest"
# Queues by stage, so each stage scales on its own machines.
CELERY_TASK_ROUTES = {
    # Exact names win over the patterns below. Light platform sweeps never wait behind long ingest runs.
    "tenders.dispatch_deltas": {"queue": "match"},
    "sources.fail_stuck_runs": {"queue": "match"},
    "config.health_snapshot": {"queue": "match"},
    "sources.*": {"queue": "ingest"},
    "tenders.*": {"queue": "ingest"},
    "notifications.match*": {"queue": "match"},
    "notifications.*": {"queue": "notify"},
}
# Soft and hard time limit (seconds) of every task by its queue (config.celery.QueueTimeLimits). Ingest runs
# read whole DÖE archives (several days of a backfill in one run), so their limit is generous.
CELERY_QUEUE_TIME_LIMITS = {
    "ingest": (env_int("CELERY_INGEST_SOFT_TIME_LIMIT", 2 * 3600), env_int("CELERY_INGEST_TIME_LIMIT", 2 * 3600 + 300)),
    "match": (env_int("CELERY_MATCH_SOFT_TIME_LIMIT", 600), env_int("CELERY_MATCH_TIME_LIMIT", 660)),
    "notify": (env_int("CELERY_NOTIFY_SOFT_TIME_LIMIT", 300), env_int("CELERY_NOTIFY_TIME_LIMIT", 360)),
}
CELERY_TASK_ANNOTATIONS = ["config.celery.QueueTimeLimits"]
# Every task that retries (its autoretry_for) waits by this one policy (config.task_policy.ProjectTask.retry;
# kernel.network.BackoffPolicy): 30 s doubling to 10 min, half fixed and half random, 6 attempts in all.
# What a task retries is a passing blip (a lost database connection, a mail server's 4xx); most tasks'
# work also waits in a durable row a beat sweep finds again (deltas, deliveries, webhook events).
TASKS_RETRY_BACKOFF = {
    "base_seconds": 30.0,
    "factor": 2.0,
    "cap_seconds": 600.0,
    "max_attempts": env_int("TASKS_MAX_ATTEMPTS", 6),
    "jitter": "equal",
}
# Beat writes a heartbeat (sources.Heartbeat "beat") so /health/ can tell when it stopped ticking.
CELERY_BEAT_SCHEDULER = "config.beat:HeartbeatScheduler"
# config is no installed app, so autodiscovery misses its one task module (the health snapshot).
CELERY_IMPORTS = ["config.tasks"]
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_URL = REDIS_URL or FILESYSTEM_BROKER_URL
CELERY_BROKER_TRANSPORT_OPTIONS = {} if REDIS_URL else filesystem_broker_options(LOCAL_DATA_DIR / "broker")

# --- Health (config.health): liveness is open; readiness is a snapshot, 503 past these limits ----
# The snapshot is computed every minute by config.health_snapshot (PLATFORM_PERIODIC_TASKS below) and
# read from the cache; older than this, the readiness view answers 503 (beat, the match queue or Redis
# stopped). Readiness is for signed-in operators and for monitors with this bearer token (empty: none).
HEALTH_SNAPSHOT_MAX_AGE_SECONDS = env_int("HEALTH_SNAPSHOT_MAX_AGE_SECONDS", 180)
HEALTH_TOKEN = env_str("HEALTH_TOKEN", "")
HEALTH_QUEUES = ["ingest", "match", "notify"]  # each needs at least one worker
HEALTH_WORKER_REPLY_SECONDS = float(env_str("HEALTH_WORKER_REPLY_SECONDS", "1.5"))
HEALTH_BEAT_MAX_AGE_SECONDS = env_int("HEALTH_BEAT_MAX_AGE_SECONDS", 120)
HEALTH_DELTA_MAX_AGE_SECONDS = env_int("HEALTH_DELTA_MAX_AGE_SECONDS", 900)
HEALTH_DELIVERY_MAX_AGE_SECONDS = env_int("HEALTH_DELIVERY_MAX_AGE_SECONDS", 900)

# --- Mail ------------------------------------------------------------------------
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Tender Radar <radar@localhost>")
# The platform's own mail (first-login links, invitations, password resets) from one EMAIL_URL
# (config.email_url: smtp://, smtps://, console://, anymail://<esp>). Here the console: development
# reads its mails in the terminal; production defaults to SMTP (config.settings.production).
if env_optional("EMAIL_BACKEND"):
    raise ImproperlyConfigured(
        "EMAIL_BACKEND is no longer read: set EMAIL_URL instead (smtp://user:password@host:587, smtps://…, "
        "console://, anymail://<esp>; see .env.example)."
    )
EMAIL_URL = env_str("EMAIL_URL", "console://")
globals().update(email_config(EMAIL_URL).settings())

# --- Secrets at rest -----------------------------------------------------------
# Comma-separated Fernet keys, newest first; older keys still decrypt (rotation).
SECRETS_ENCRYPTION_KEYS = env_list("SECRETS_ENCRYPTION_KEYS", [])

# --- Product -----------------------------------------------------------------------
# The local demo (manage.py demo, its initial matching, its mail catcher and the "Postausgang (lokal)"
# page): off here and in production; only config.settings.local switches it on.
DEMO_ENABLED = False
LOCAL_OUTBOX_DIR = None
TENDER_RADAR_CONTACT = env_str("TENDER_RADAR_CONTACT", "ops@tender-radar.example")
TENDER_RADAR_PUBLIC_HOST = env_str("TENDER_RADAR_PUBLIC_HOST", "localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"pgserver": {"level": "WARNING"}},
}

# --- Sources -------------------------------------------------------------------------
# Honest User-Agent with a contact address; portals can reach us instead of blocking us.
SOURCES_USER_AGENT = env_str(
    "SOURCES_USER_AGENT",
    f"TenderRadar/1.0 (+https://github.com/tender-radar/tender-radar; mailto:{TENDER_RADAR_CONTACT})",
)
# Only tests talk to sources on loopback; production refuses private and loopback addresses (SSRF guard).
SOURCES_ALLOW_LOOPBACK = False
# SMTP and IMAP servers on loopback (a local mail catcher): refused unless an overlay allows it explicitly.
MAIL_ALLOW_LOOPBACK = False
# Links in mails and calendar feeds: the tenant's primary domain put into this pattern.
PORTAL_URL_FORMAT = env_str("PORTAL_URL_FORMAT", "https://{domain}")
# The deadline calendar keeps passed deadlines of tracked tenders this long, as a subscribed calendar keeps
# past events: a bid still under evaluation is looked up by its deadline weeks or months later.
PORTAL_CALENDAR_PAST_DAYS = env_int("PORTAL_CALENDAR_PAST_DAYS", 120)
# Processes that parse bulk imports (DÖE exports, TED files) while one process writes; 0 = one per available core.
SOURCES_PARSE_WORKERS = env_int("SOURCES_PARSE_WORKERS", 0)
# Smaller inputs parse in the writing process: starting the workers costs about a second, which
# parsing on two cores wins back from about 1,000 notices (2,000 archive members) on (bench/run.py e2e).
# TED files are weighed by size against it (sources.adapters.ted.BYTES_PER_DOE_MEMBER).
SOURCES_PARSE_PARALLEL_MEMBERS = env_int("SOURCES_PARSE_PARALLEL_MEMBERS", 2000)
# Retry backoff, one formula per channel (kernel.network.BackoffPolicy): after the n-th failed
# attempt wait min(cap_seconds, base_seconds * factor ** (n - 1)), jittered ("none": exactly that; "equal":
# half fixed, half random; "full": uniform from 0), and give up after max_attempts attempts in all.
# The fetcher retries 429/5xx/network errors within one request: waits of up to 1, 2, 4 s, then the page fails.
SOURCES_FETCH_BACKOFF = {
    "base_seconds": 1.0,
    "factor": 2.0,
    "cap_seconds": 60.0,
    "max_attempts": env_int("SOURCES_FETCH_MAX_ATTEMPTS", 4),
    "jitter": "full",
}

# Webhook events after a 429/5xx/network error: 30 s doubling to 3 h, 10 attempts span about nine hours.
# A Retry-After is waited for, up to WEBHOOKS_RETRY_AFTER_CAP_SECONDS, never less than the backoff.
WEBHOOKS_BACKOFF = {
    "base_seconds": 30.0,
    "factor": 2.0,
    "cap_seconds": 3 * 3600.0,
    "max_attempts": env_int("WEBHOOKS_MAX_ATTEMPTS", 10),
    "jitter": "equal",  # spread out, but never back at once
}
WEBHOOKS_RETRY_AFTER_CAP_SECONDS = env_int("WEBHOOKS_RETRY_AFTER_CAP_SECONDS", 3600)
# A run still "running" after this long died with its process (the ingest queue's hard time limit, or a
# killed manage.py): the sweep records it as failed, so the source can run again.
SOURCES_RUN_STUCK_SECONDS = env_int("SOURCES_RUN_STUCK_SECONDS", CELERY_QUEUE_TIME_LIMITS["ingest"][1] + 900)
# A tenant's mailbox check runs on the notify queue: stuck after that queue's hard limit and a margin.
SOURCES_MAILBOX_RUN_STUCK_SECONDS = env_int(
    "SOURCES_MAILBOX_RUN_STUCK_SECONDS", CELERY_QUEUE_TIME_LIMITS["notify"][1] + 300
)
HANDOFF_DELTA_RETENTION_DAYS = env_int("HANDOFF_DELTA_RETENTION_DAYS", 7)  # completed deltas, then deleted
# A tenant without its own SMTP settings sends through the platform's ESP (django-anymail) only if allowed.
ALERTS_PLATFORM_ESP_ENABLED = env_bool("ALERTS_PLATFORM_ESP_ENABLED", False)
ALERTS_PLATFORM_ESP_BACKEND = env_str("ALERTS_PLATFORM_ESP_BACKEND", "")  # e.g. anymail.backends.postmark.EmailBackend
ALERTS_PLATFORM_FROM_EMAIL = env_str("ALERTS_PLATFORM_FROM_EMAIL", DEFAULT_FROM_EMAIL)
# django-anymail reads its ESP credentials from here: ANYMAIL_<NAME>=value becomes ANYMAIL["<NAME>"].
ANYMAIL = {name.removeprefix("ANYMAIL_"): value for name, value in os.environ.items() if name.startswith("ANYMAIL_")}
ALERTS_SMTP_TIMEOUT = env_int("ALERTS_SMTP_TIMEOUT", 20)  # seconds per SMTP operation
ALERTS_SENDING_STALE_SECONDS = env_int("ALERTS_SENDING_STALE_SECONDS", 600)  # then "sending" becomes "uncertain"
# Mails after a temporary SMTP failure: 1 min doubling to 4 h, 16 attempts span about a day and a half.
ALERTS_MAIL_BACKOFF = {
    "base_seconds": 60.0,
    "factor": 2.0,
    "cap_seconds": 4 * 3600.0,
    "max_attempts": env_int("ALERTS_MAX_ATTEMPTS", 16),
    "jitter": "none",  # one tenant's few mails; the delivery log shows the exact next attempt
}
ALERTS_DIGEST_JITTER_SECONDS = env_int("ALERTS_DIGEST_JITTER_SECONDS", 300)
