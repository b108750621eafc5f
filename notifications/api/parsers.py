"""Request bodies: JSON only, read with limits, refused with a message of our own.

DRF's ``JSONParser`` answers a broken body with the decoder's text ("JSON parse error - Expecting
value: line 1 column 1 (char 0)") and lets a ``RecursionError`` (a body nested thousands deep)
through as a 500. No partner input is nested more than a few levels (a saved search's filters
hold lists of strings), so anything deeper is refused before a serializer walks it.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import renderers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

# Imports nothing of notifications.api: DRF loads this module while rest_framework.views is
# being imported (DEFAULT_PARSER_CLASSES), which notifications.api.errors itself imports.

MAX_DEPTH = 20


class BodyUnreadable(ParseError):
    """400 about the request body as a whole, with a message of ours (``notifications.api.errors``)."""


def not_json_message() -> str:
    return _("Der Inhalt ist kein gültiges JSON (UTF-8).")


def _refuse_constant(name: str):
    raise ValueError(name)  # NaN and Infinity are JavaScript, not JSON (RFC 8259)


def _deeper_than(data, limit: int) -> bool:
    """Whether ``data`` nests lists and objects more than ``limit`` levels (iterative: no recursion)."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            pending.extend((child, depth + 1) for child in children)
    return False


class JsonBodyParser(BaseParser):
    media_type = "application/json"
    renderer_class = renderers.JSONRenderer

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            # bytes.decode refuses codecs that are no text encoding (rot13) with a LookupError.
            data = json.loads(stream.read().decode(encoding), parse_constant=_refuse_constant)
        except RecursionError as exc:
            raise self._too_deep() from exc
        except (ValueError, LookupError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise BodyUnreadable(not_json_message()) from exc
        if _deeper_than(data, MAX_DEPTH):
            raise self._too_deep()
        return data

    def _too_deep(self) -> BodyUnreadable:
        return BodyUnreadable(
            _("Der Inhalt ist zu tief verschachtelt (höchstens %(depth)d Ebenen).") % {"depth": MAX_DEPTH}
        )
