"""Rows to PostgreSQL's COPY text format, for the types the tender tables hold.

psycopg adapts every value through a generic dumper lookup; for a 32-column
tender row with arrays and JSON that is about 25 µs a row, as much as the
database spends on it. The few types written here are encoded directly
(about a third of that). Limits, stated: values are ``None``, ``str``,
``bool``, ``int``, ``Decimal``, ``datetime``/``date``, lists or tuples of
``str`` (one-dimensional text arrays) and, in JSON columns, anything orjson
encodes. Anything else raises ``TypeError``; a NUL character raises
``ValueError`` (PostgreSQL text cannot hold it), as psycopg would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal

import orjson

from tenders.merging.documents import json_default

NULL = "\\N"
_SPECIAL = re.compile(r"[\\\t\n\r\x00]")
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_ARRAY_SPECIAL = re.compile(r'[\\"]')


def escape(text: str) -> str:
    """One field of COPY text: backslash, tab, newline and carriage return escaped."""
    if _SPECIAL.search(text) is None:
        return text
    if "\x00" in text:
        raise ValueError("PostgreSQL text cannot contain NUL (0x00) characters")
    return text.translate(_ESCAPES)


def _array_element(item: str) -> str:
    if _ARRAY_SPECIAL.search(item) is not None:
        item = item.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{item}"'


def text_array(items: Sequence[str]) -> str:
    """A one-dimensional array literal, every element quoted (so commas, braces and blanks are safe)."""
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"array elements must be str, not {type(item).__name__}")
    return escape("{" + ",".join(map(_array_element, items)) + "}")


def json_text(value) -> str:
    """A JSON column: text already serialised is taken as it is, anything else goes through orjson."""
    if isinstance(value, str):
        return escape(value)
    return escape(orjson.dumps(value, default=json_default).decode())


def _scalar(value) -> str:
    kind = type(value)
    if kind is str:
        return escape(value)
    if kind is bool:
        return "t" if value else "f"
    if kind is int or kind is Decimal:
        return str(value)
    if kind is datetime or kind is date:
        return value.isoformat()
    if kind is list or kind is tuple:
        return text_array(value)
    if isinstance(value, str):  # str subclasses (StrEnum, TextChoices)
        return escape(str(value))
    raise TypeError(f"no COPY text encoding for {kind.__name__}")


def row_encoder(column_count: int, json_columns: frozenset[int] = frozenset()) -> Callable[[Sequence], str]:
    """A function turning one row (``column_count`` values) into one COPY text line."""
    encoders = [json_text if i in json_columns else _scalar for i in range(column_count)]

    def encode(values: Sequence) -> str:
        if len(values) != column_count:
            raise ValueError(f"row has {len(values)} values, expected {column_count}")
        return (
            "\t".join(
                [NULL if value is None else encoder(value) for encoder, value in zip(encoders, values, strict=True)]
            )
            + "\n"
        )

    return encode
