"""Attack replays use the same real servers as the feature tests: Dovecot for mailboxes."""

from tests.notifications.inbox.conftest import imap_server  # noqa: F401 - the fixture, shared
