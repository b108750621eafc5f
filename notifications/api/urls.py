"""Partner API v1 endpoints (tenant host, API-key authentication). Mounted under ``api/v1/``."""

from django.urls import path, re_path

from notifications.api import market_views, views
from notifications.api.errors import not_found

urlpatterns = [
    path("tenders/", views.TenderListView.as_view(), name="api-tender-list"),
    path("tenders/<int:pk>/", views.TenderDetailView.as_view(), name="api-tender-detail"),
    path("saved-searches/", views.SavedSearchListView.as_view(), name="api-saved-search-list"),
    path("saved-searches/<int:pk>/", views.SavedSearchDetailView.as_view(), name="api-saved-search-detail"),
    path("matches/", views.MatchListView.as_view(), name="api-match-list"),
    path("market/buyer/", market_views.BuyerMarketView.as_view(), name="api-market-buyer"),
    path("market/supplier/", market_views.SupplierMarketView.as_view(), name="api-market-supplier"),
    # Last: anything else under api/v1/ is a JSON 404, never the portal's HTML page.
    re_path(r"^", not_found, name="api-not-found"),
]
