"""Defensive access to OCDS JSON: wrong types anywhere yield empty values, never KeyError/TypeError."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kernel.normalise import parse_decimal


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_dicts(value: Any) -> list[dict]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def as_str(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


def as_strs(value: Any) -> list[str]:
    """A list of non-empty strings; a lone string counts as a one-element list."""
    items = value if isinstance(value, list) else [value]
    return [s for s in (as_str(item) for item in items) if s]


def amount(value: Any) -> tuple[Decimal | None, str]:
    value = as_dict(value)
    return parse_decimal(value.get("amount")), as_str(value.get("currency")).upper()
