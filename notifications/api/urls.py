"""Partner API v1 endpoints (tenant host, API-key authentication). Mounted under ``api/v1/``."""

from django.urls import path, re_path

from notifications.api import board_views, market_views, views
from notifications.api.errors import not_found

urlpatterns = [
    path("tenders/", views.TenderListView.as_view(), name="api-tender-list"),
    path("tenders/<int:pk>/", views.TenderDetailView.as_view(), name="api-tender-detail"),
    path("saved-searches/", views.SavedSearchListView.as_view(), name="api-saved-search-list"),
    path("saved-searches/<int:pk>/", views.SavedSearchDetailView.as_view(), name="api-saved-search-detail"),
    path("matches/", views.MatchListView.as_view(), name="api-match-list"),
    path("market/buyer/", market_views.BuyerMarketView.as_view(), name="api-market-buyer"),
    path("market/supplier/", market_views.SupplierMarketView.as_view(), name="api-market-supplier"),
    path("board/", board_views.BoardView.as_view(), name="api-board"),
    path("stages/", board_views.StageListView.as_view(), name="api-stage-list"),
    path("decision-reasons/", board_views.DecisionReasonListView.as_view(), name="api-decision-reason-list"),
    path("cards/", board_views.CardListView.as_view(), name="api-card-list"),
    path("cards/<int:pk>/", board_views.CardDetailView.as_view(), name="api-card-detail"),
    path("cards/<int:pk>/decision/", board_views.CardDecisionView.as_view(), name="api-card-decision"),
    # Last: anything else under api/v1/ is a JSON 404, never the portal's HTML page.
    re_path(r"^", not_found, name="api-not-found"),
]
