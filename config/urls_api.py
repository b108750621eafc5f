"""Partner API v1: OpenAPI schema and interactive docs; endpoints are added by the apps.

Schema and docs are open to read (they describe, they do not disclose). They use the
API's only authentication class, like every API view, so a Basic ``Authorization``
header is ignored rather than checked: no password oracle. The docs page loads its
start script from a URL of its own (the split view) so the Content-Security-Policy
needs no inline script.
"""

from django.http import JsonResponse
from django.urls import path, reverse
from django.views.decorators.http import require_GET
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny


@require_GET
def api_root(request):
    """``/api/v1/`` itself: where the docs, the schema and the endpoints are (no key needed to read this)."""
    link = request.build_absolute_uri
    return JsonResponse(
        {
            "name": "Tender Radar API",
            "version": "v1",
            "docs": link(reverse("api-docs")),
            "schema": link(reverse("api-schema")),
            "authentication": "Authorization: Bearer <key> or X-Api-Key: <key> (keys: /api-schluessel/)",
            "endpoints": {
                "tenders": link(reverse("api-tender-list")),
                "saved_searches": link(reverse("api-saved-search-list")),
                "matches": link(reverse("api-match-list")),
                "market_buyer": link(reverse("api-market-buyer")),
                "market_supplier": link(reverse("api-market-supplier")),
                "board": link(reverse("api-board")),
                "stages": link(reverse("api-stage-list")),
                "decision_reasons": link(reverse("api-decision-reason-list")),
            },
        },
        json_dumps_params={"ensure_ascii": False, "indent": 2},
    )


urlpatterns = [
    path("", api_root, name="api-root"),
    path("schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="api-schema"),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", permission_classes=[AllowAny], template_name="api/swagger_ui.html"
        ),
        name="api-docs",
    ),
]
