"""Rows to PostgreSQL's COPY text format, for the types the tender tables hold.

psycopg adapts every value through a generic dumper lookup; for a 32-column
tender row with arrays and JSON that is about 25 µs a row, as much as the
database spends on it. The few types written here are encoded directly
(about a third of that). Limits, stated: values are ``None``, ``str``,
``bool``, ``int``, ``Decimal``, ``datetime``/``date``, lists or tuples of
``str`` (one-dimensional text arrays) and, in JSON columns, anything orjson
encodes. Anything else raises ``TypeError``; a NUL character raises
``ValueError`` (PostgreSQL text cannot hold it), as psycopg would.

Nearly every row needs no escaping at all, so a row is first written as its raw
field texts and checked once, as a whole line (``_plain_line``); only a row with
a character COPY escapes (or a value the fast path does not know) goes field by
field (``_escaped_line``), which also decides which error a bad row raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal

import orjson

from tenders.merging.documents import json_default

NULL = "\\N"
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def escape(text: str) -> str:
    """One field of COPY text: backslash, tab, newline and carriage return escaped."""
    # Substring tests (memchr) are several times cheaper than a character-class pattern.
    if "\\" not in text and "\t" not in text and "\n" not in text and "\r" not in text and "\x00" not in text:
        return text
    if "\x00" in text:
        raise ValueError("PostgreSQL text cannot contain NUL (0x00) characters")
    return text.translate(_ESCAPES)


def _array_element(item: str) -> str:
    if "\\" in item or '"' in item:
        item = item.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{item}"'


def _array_literal(items: Sequence[str]) -> str:
    """The array literal before COPY escaping; plain ``str`` elements without quotes or backslashes in one join."""
    if not items:
        return "{}"
    if len(items) == list(map(type, items)).count(str):
        inner = '","'.join(items)
        if "\\" not in inner and inner.count('"') == 2 * (len(items) - 1):
            return '{"' + inner + '"}'
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"array elements must be str, not {type(item).__name__}")
    return "{" + ",".join(map(_array_element, items)) + "}"


def text_array(items: Sequence[str]) -> str:
    """A one-dimensional array literal, every element quoted (so commas, braces and blanks are safe)."""
    return escape(_array_literal(items))


def _json_raw(value) -> str:
    if isinstance(value, str):
        return str.__str__(value)  # the text itself, also of a str subclass with its own __str__
    return orjson.dumps(value, default=json_default).decode()


def json_text(value) -> str:
    """A JSON column: text already serialised is taken as it is, anything else goes through orjson."""
    return escape(_json_raw(value))


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


def _bool_raw(value: bool) -> str:
    return "t" if value else "f"


# A batch writes the same few datetime objects again and again (its "now" in every row, a notice's dates in
# its tender's and its version's rows), and an aware isoformat costs microseconds. Keyed by identity: the
# entry keeps its object alive, so the id cannot be reused while the entry stands; datetimes are immutable.
_ISO_MEMO: dict[int, tuple[datetime, str]] = {}
_ISO_MEMO_SIZE = 4096


def _datetime_raw(value: datetime) -> str:
    entry = _ISO_MEMO.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    if len(_ISO_MEMO) >= _ISO_MEMO_SIZE:
        _ISO_MEMO.clear()
    text = value.isoformat()
    _ISO_MEMO[id(value)] = (value, text)
    return text


# The raw (unescaped) text of each type ``_scalar`` knows, by exact type; its output never holds
# a character COPY escapes except for str, arrays and JSON, which the line check covers.
_RAW: dict[type, Callable] = {
    bool: _bool_raw,
    int: int.__str__,
    Decimal: Decimal.__str__,
    datetime: _datetime_raw,
    date: date.isoformat,
    list: _array_literal,
    tuple: _array_literal,
}


def _other_raw(value) -> str:
    if isinstance(value, str):  # str subclasses (StrEnum, TextChoices)
        return str(value)
    raise TypeError(f"no COPY text encoding for {type(value).__name__}")


def row_encoder(column_count: int, json_columns: frozenset[int] = frozenset()) -> Callable[[Sequence], str]:
    """A function turning one row (``column_count`` values) into one COPY text line."""
    encoders = [json_text if i in json_columns else _scalar for i in range(column_count)]
    json_positions = sorted(json_columns)
    raw_of = _RAW.get
    tabs = column_count - 1

    def _escaped_line(values: Sequence) -> str:
        return (
            "\t".join(
                [NULL if value is None else encoder(value) for encoder, value in zip(encoders, values, strict=True)]
            )
            + "\n"
        )

    def _plain_line(values: Sequence) -> str | None:
        """The line when no field needs escaping (then raw texts are the encoded ones), else None."""
        if json_positions or type(values) is not list:
            values = list(values)
            for i in json_positions:
                if values[i] is not None:
                    values[i] = _json_raw(values[i])
        line = "\t".join(
            [
                value if type(value) is str else NULL if value is None else raw_of(type(value), _other_raw)(value)
                for value in values
            ]
        )
        # Every NULL brings one backslash and every separator one tab; any other is a field's own.
        if (
            "\n" in line
            or "\r" in line
            or "\x00" in line
            or line.count("\t") != tabs
            or line.count("\\") != values.count(None)
        ):
            return None
        return line + "\n"

    def encode(values: Sequence) -> str:
        if len(values) != column_count:
            raise ValueError(f"row has {len(values)} values, expected {column_count}")
        try:
            line = _plain_line(values)
        except (TypeError, ValueError):  # the field-by-field path raises the error of the first bad field
            line = None
        return _escaped_line(values) if line is None else line

    return encode
