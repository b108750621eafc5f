"""A company's host: the portal and the partner API."""

from django.conf import settings
from django.urls import include, path
from django.views.i18n import set_language

from config.favicon import favicon
from config.health import health

urlpatterns = [
    path("healthz", health, name="health"),
    path("favicon.ico", favicon, name="favicon"),
    # Team actions need the tenant's own data (API keys, calendar, outbox), so the tenant app serves them.
    path("konto/team/", include("notifications.team.urls")),
    # Passwort vergessen mails through the tenant's own mail route, which only the tenant app knows.
    path("konto/passwort-vergessen/", include("notifications.password_reset.urls")),
    path("konto/", include("accounts.urls")),
    path("i18n/setlang/", set_language, name="set_language"),
    path("api/v1/", include("config.urls_api")),
    path("api/v1/", include("notifications.api.urls")),
    path("einstellungen/", include("notifications.settings_urls")),
    path("angebote/", include("notifications.bids.urls")),
    path("abmelden-alert/", include("notifications.alerts.urls")),
    path("api-schluessel/", include("notifications.api.portal_urls")),
    path("", include("notifications.urls")),
]

if settings.DEBUG:
    from django.contrib.staticfiles.urls import staticfiles_urlpatterns

    urlpatterns += staticfiles_urlpatterns()
