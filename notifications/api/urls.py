"""Partner API v1 endpoints (tenant host, API-key authentication)."""

urlpatterns: list = []
