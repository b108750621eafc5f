"""Where each app lives (public schema, tenant schemas or both), the tenant model and the URL confs."""

from config.env import env_int

# Every app is placed deliberately (tests/test_app_placement.py checks this list):
# public facts (tenders, sources, the tenant registry) live once in the public
# schema; everything a company owns lives in its own schema. contrib apps that
# hold users and sessions are installed in both: operators sign in on the public
# host, company staff in their tenant's schema, and the two never share a row.
APPS_IN_BOTH_SCHEMAS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    # Failed sign-ins are recorded next to the users they concern: a tenant's attempts and
    # lockouts stay in its own schema, the operators' in the public one (accounts.login_throttle).
    "axes",
]

SHARED_APPS = [
    "django_tenants",
    "accounts",
    *APPS_IN_BOTH_SCHEMAS,
    "django.contrib.admin",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "django_celery_beat",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "sources",
    "tenders",
]

TENANT_APPS = [
    *APPS_IN_BOTH_SCHEMAS,
    "notifications",
]

INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "accounts.Tenant"
# migrate_schemas --executor=multiprocessing (docker-compose.yml's migrate step): tenants in parallel.
TENANT_MULTIPROCESSING_MAX_PROCESSES = env_int("TENANT_MULTIPROCESSING_MAX_PROCESSES", 4)
TENANT_DOMAIN_MODEL = "accounts.Domain"
PUBLIC_SCHEMA_NAME = "public"
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
SHOW_PUBLIC_IF_NO_TENANT_FOUND = False
TENANT_LIMIT_SET_CALLS = True

DATABASE_ROUTERS = ("django_tenants.routers.TenantSyncRouter",)
