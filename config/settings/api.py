"""The partner API (djangorestframework) and its OpenAPI description (drf-spectacular)."""

from config.env import env_str

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # API keys only, for every view including the schema and docs: no Basic authentication (a
    # password oracle without CSRF) and no session (the portal never calls the API itself).
    "DEFAULT_AUTHENTICATION_CLASSES": ["notifications.api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON only, refused with our own message (never the decoder's text) and without recursion limits hit
    # (notifications.api.parsers); no form or multipart parsing behind any API view.
    "DEFAULT_PARSER_CLASSES": ["notifications.api.parsers.JsonBodyParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # Partner API requests per API key (notifications.api.throttling).
    "DEFAULT_THROTTLE_RATES": {"api_key": env_str("API_KEY_THROTTLE_RATE", "120/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tender Radar API",
    "DESCRIPTION": "German public tenders, saved searches and matches of one tenant.",
    "VERSION": "1.0.0",
    # Swagger UI assets are served by the app (drf-spectacular-sidecar), never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # "origin" names two choice sets: a notice's source rank here, a market figure's award/estimate there.
    "ENUM_NAME_OVERRIDES": {
        "NoticeOriginEnum": ["official", "portal_detail", "portal_list", "feed", "mail"],
        "FigureOriginEnum": ["award", "estimate"],
        "BidStageKindEnum": "notifications.bid_models.BidStageKind",
        "BidDecisionEnum": "notifications.bid_models.BidDecision",
    },
}
