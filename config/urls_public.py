"""The operators' host: admin console and the public landing page."""

from django.conf import settings
from django.contrib import admin
from django.urls import path
from django.views.i18n import set_language

from accounts.views import OperatorPasswordView, PublicLandingView
from config.favicon import favicon
from config.health import health, health_ready
from notifications.operator.views import operator_deliveries

admin.site.site_header = "Tender Radar – Betrieb"
admin.site.site_title = "Tender Radar"
admin.site.index_title = "Betriebskonsole"

urlpatterns = [
    path("", PublicLandingView.as_view(), name="landing"),
    path("healthz", health, name="health"),
    path("favicon.ico", favicon, name="favicon"),
    # Liveness under both names (monitors know either); readiness only for operators and the health token.
    path("health/", health, name="health_live"),
    path("health/ready/", health_ready, name="health_ready"),
    # Tenant outboxes seen across tenants (read-only); a notifications view, staff only through the admin site.
    path("admin/zustellungen/", admin.site.admin_view(operator_deliveries), name="operator-deliveries"),
    # Before admin/: the admin's catch-all would answer this path with its login page.
    path("admin/passwort/<uidb64>/<token>/", OperatorPasswordView.as_view(), name="operator-password"),
    path("admin/", admin.site.urls),
    path("i18n/setlang/", set_language, name="set_language"),
]

if settings.DEBUG:
    from django.contrib.staticfiles.urls import staticfiles_urlpatterns

    urlpatterns += staticfiles_urlpatterns()
