"""The security tests replay attacks through the same API callers as the API tests."""

from tests.notifications.api.conftest import alpha_admin_api, alpha_api  # noqa: F401
