"""Where a notice record comes from, as far as merging cares: a platform source or an alert mail.

Platform sources are the publishing platforms and portals themselves (DÖE, TED, the
NetServer/cosinex portal crawl, service.bund.de's feed). An alert mail only shows a digest of
a notice, so records read from mails carry the version ``MAIL_VERSION`` ("00"), ranked below
every published version; ``tenders.merging.compiling`` lets them fill gaps only.
"""

from __future__ import annotations

__all__ = ["MAIL_VERSION", "is_mail_derived"]

MAIL_VERSION = "00"


def is_mail_derived(record) -> bool:
    """True for a record read from an alert mail (``sources.adapters.mail``)."""
    return record.version == MAIL_VERSION
