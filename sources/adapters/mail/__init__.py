"""Portal alert e-mails: recognise them, read one record per notice, and the "mail" adapter.

Pure parts (no ORM, no network): :mod:`.mime` (raw bytes -> headers and text),
:mod:`.portals` (senders and notice links of NetServer, cosinex, service.bund.de and
DTAD-style services - every selector in one place), :mod:`.fields` (the German
"Label: value" vocabulary, shared with the RSS adapter), :mod:`.extract` (text -> entries)
and :mod:`.alerts` (``parse_alert_mail``: status, reason, records). :mod:`.hosts` maps Source
rows (read by ``sources.selectors``) to which Source polls which host; :mod:`.adapter` is the
``mail`` adapter for ``.eml`` files; :mod:`.verdict` judges one mailbox mail (parse, links,
provenance). Reading mailboxes is tenant work (``notifications.inbox``); the run of the mail
source that records and ingests what was read is ``sources.mail_runs``.
"""

from .adapter import MailAdapter
from .alerts import MAIL_VERSION, MailParse, parse_alert_mail
from .hosts import host_sources_from_rows
from .portals import DEFAULT_HOST_SOURCES

__all__ = [
    "DEFAULT_HOST_SOURCES",
    "MAIL_VERSION",
    "MailAdapter",
    "MailParse",
    "host_sources_from_rows",
    "parse_alert_mail",
]
