"""Attack replays use the same real servers and callers as the feature tests: Dovecot for mailboxes,
API keys through the API tests' callers."""

from tests.notifications.api.conftest import alpha_admin_api, alpha_api  # noqa: F401 - the fixtures, shared
from tests.notifications.inbox.conftest import imap_server  # noqa: F401 - the fixture, shared
