from django.urls import path

from tenders import views

app_name = "tenders"

urlpatterns = [
    path("", views.DashboardView.as_view(), name="dashboard"),
]
