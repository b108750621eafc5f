"""The portal (tenant host): dashboard, search, detail, saved searches, triage, exports."""

from django.contrib.auth.decorators import login_required
from django.urls import path
from django.views.generic import TemplateView

app_name = "portal"

urlpatterns = [
    path("", login_required(TemplateView.as_view(template_name="portal/dashboard.html")), name="dashboard"),
]
