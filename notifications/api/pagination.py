"""Pages without a total count, and cursor pages for polled lists.

``COUNT(*)`` over a frequent search term on millions of tenders costs more than
the page itself; partners need "is there more", not the total. One extra row
is fetched to answer that.

Matches are polled while new ones arrive: numbered pages would shift under the partner
(a new match on page 1 pushes one onto page 2 twice), so ``/api/v1/matches/`` pages by
cursor (``MatchCursorPagination``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.pagination import BasePagination, CursorPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from notifications.api.errors import FieldErrors

MAX_PAGE = 200  # deep pages are an export job (OFFSET costs grow linearly), not an API call


def positive_int_param(request, name: str, *, default: int, maximum: int) -> int:
    """The query parameter ``name`` as 1..``maximum``, ``default`` when absent; else a 400 naming it."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    # [0-9] and not str.isdigit(): "²" is a digit to Python but not to int(), and int() takes
    # other scripts' digits ("١٢") that no partner means.
    if not re.fullmatch(r"[0-9]{1,9}", raw) or not 1 <= int(raw) <= maximum:
        raise FieldErrors({name: _("Eine ganze Zahl von 1 bis %(max)d.") % {"max": maximum}})
    return int(raw)


class PageWithoutCount(BasePagination):
    page_query_param = "page"
    page_size_query_param = "page_size"
    page_size = 50
    max_page_size = 200

    def _page(self, request) -> tuple[int, int]:
        """(page number, page size) asked for; a 400 naming the parameter if either is not a valid number."""
        number = positive_int_param(request, self.page_query_param, default=1, maximum=MAX_PAGE)
        size = positive_int_param(
            request, self.page_size_query_param, default=self.page_size, maximum=self.max_page_size
        )
        return number, size

    def rows_read(self, request) -> int:
        """How many of a list's first rows the page asked for reads: up to its end, and one more."""
        number, size = self._page(request)
        return number * size + 1

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.page_number, self.size = self._page(request)
        offset = (self.page_number - 1) * self.size
        rows = list(queryset[offset : offset + self.size + 1])
        self.has_next = len(rows) > self.size
        return rows[: self.size]

    def _page_link(self, number: int | None) -> str | None:
        if number is None:
            return None
        url = self.request.build_absolute_uri()
        if number == 1:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, number)

    def get_paginated_response(self, data):
        next_number = self.page_number + 1 if self.has_next and self.page_number < MAX_PAGE else None
        previous_number = self.page_number - 1 if self.page_number > 1 else None
        return Response(
            {"next": self._page_link(next_number), "previous": self._page_link(previous_number), "results": data}
        )

    def get_paginated_response_schema(self, schema):
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {"next": link, "previous": link, "results": schema},
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.page_query_param,
                "in": "query",
                "required": False,
                "description": f"Seite (1 bis {MAX_PAGE})",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            },
            {
                "name": self.page_size_query_param,
                "in": "query",
                "required": False,
                "description": f"Einträge je Seite (Standard {self.page_size}, höchstens {self.max_page_size})",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size},
            },
        ]


class MatchCursorPagination(CursorPagination):
    """Newest match first; ``next`` / ``previous`` carry an opaque cursor, no count, no offset scan.

    The cursor holds the position of the last row seen (``matched_at``); rows with the same time
    are told apart by ``id`` (unique), which DRF keeps as an offset within that time. A match
    inserted while a partner pages is newer than every row already seen, so it never shifts the
    pages still to come: following ``next`` returns each older match exactly once.
    """

    ordering = ("-matched_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    cursor_query_description = "Cursor aus den Links next/previous einer früheren Antwort"
    page_size_query_description = f"Einträge je Seite (Standard {page_size}, höchstens {max_page_size})"

    def get_page_size(self, request):
        return positive_int_param(
            request, self.page_size_query_param, default=self.page_size, maximum=self.max_page_size
        )

    def decode_cursor(self, request):
        encoded = request.query_params.get(self.cursor_query_param)
        # b64decode skips characters outside its alphabet: "!!!" would silently be the first page.
        if encoded is not None and not _BASE64.fullmatch(encoded):
            raise self._invalid_cursor()
        try:
            cursor = super().decode_cursor(request)
        except NotFound as exc:  # DRF answers a broken cursor with 404; it is a bad parameter
            raise self._invalid_cursor() from exc
        # DRF checks offset and direction but hands the position to the query as it came: a cursor
        # is client input, and "p=x" would fail while the query is built (a 500), not as a 400.
        if cursor is not None and cursor.position is not None and _matched_at(cursor.position) is None:
            raise self._invalid_cursor()
        return cursor

    def _invalid_cursor(self) -> FieldErrors:
        return FieldErrors({self.cursor_query_param: _("Ungültiger Cursor.")})


_BASE64 = re.compile(r"[A-Za-z0-9+/]{0,400}={0,2}")
_POSITION = re.compile(r"[0-9][0-9T :.+-]{9,39}")


def _matched_at(position: str) -> datetime | None:
    """The time a cursor we wrote carries (``str()`` of an aware ``matched_at``), None for anything else."""
    if not _POSITION.fullmatch(position):  # parse_datetime forgives trailing characters, such as a NUL
        return None
    try:
        value = parse_datetime(position)
    except ValueError:  # well-formed but impossible, e.g. month 13
        return None
    if value is None or not timezone.is_aware(value):
        return None
    try:
        value.astimezone(UTC)  # the year-1 edge with a positive offset has no UTC time
    except OverflowError:
        return None
    return value
