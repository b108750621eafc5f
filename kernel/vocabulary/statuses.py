"""Where a tender stands. Parsers set it on records, merging compiles it, ``Tender.status`` stores it.

The German labels for the portal live with the model (``tenders.models.TENDER_STATUS_CHOICES``,
translatable); this module holds the values only, so records and the model cannot disagree.
"""

from __future__ import annotations

from enum import StrEnum


class TenderStatus(StrEnum):
    ACTIVE = "active"
    AWARDED = "awarded"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
