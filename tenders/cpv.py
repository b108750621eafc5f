"""Kept for existing imports: the CPV vocabulary lives in ``tenders.vocabulary.cpv``."""

from __future__ import annotations

from tenders.vocabulary.cpv import (
    CpvCode,
    cpv_children,
    cpv_divisions,
    cpv_entry,
    cpv_hierarchy,
    cpv_label,
    cpv_labels_for,
    cpv_search,
    vocabulary,
)

# Division digits → German label (the 45 divisions of CPV 2008).
CPV_DIVISIONS: dict[str, str] = cpv_divisions()

__all__ = [
    "CPV_DIVISIONS",
    "CpvCode",
    "cpv_children",
    "cpv_divisions",
    "cpv_entry",
    "cpv_hierarchy",
    "cpv_label",
    "cpv_labels_for",
    "cpv_search",
    "vocabulary",
]
