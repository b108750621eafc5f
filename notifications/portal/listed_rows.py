"""The shown rows of a relevance list, whose ids and order are known: one statement compiled once per process.

Why: a relevance list's ids come ranked, and counted, from ``tenders.search.relevance_listed``; what is left is
reading the page's rows (the result columns, the head of the description, the user's triage) in that order.
Building and compiling that ORM query on every search cost more of the request's Python than running it (about
1.5 ms of CPU against 0.3 ms, 1,000,000 tenders). The statement is compiled once per page size from the same ORM
query, with placeholders where the user and the ids go, and run raw: it names no schema (the tenders are found in
the public schema, the triage in the tenant's, through the connection's search path), so one text serves every
tenant and user.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from django.contrib.auth.models import AbstractBaseUser

from notifications.portal.selectors import RESULT_FIELDS, result_rows, triage_status_of
from tenders.models import Tender
from tenders.search import listed_order

# Compiled where the user's id and the tenders' ids go, replaced by the real ones (no id is negative).
_USER_PLACEHOLDER = -7_654_321
_FIRST_ID_PLACEHOLDER = -8_765_432
_NO_TENDER = -1  # fills the places a shorter page leaves empty


def listed_rows(*, user: AbstractBaseUser, ids: Sequence[int]) -> list[Tender]:
    """The result rows of ``ids`` in their order, with ``description_head`` and the user's ``my_triage``;
    a tender gone since its id was read is left out."""
    if not ids:
        return []
    ids = [int(tender_id) for tender_id in ids]
    # A page has 25 rows: one text serves every list of up to 32 ids, the places left over name no tender.
    sql, params, user_index, id_indexes, order_index = _compiled(max(len(ids), 32))
    params = list(params)
    params[user_index] = user.pk
    for index, tender_id in zip(id_indexes, [*ids, *[_NO_TENDER] * (len(id_indexes) - len(ids))], strict=True):
        params[index] = tender_id
    params[order_index] = ids
    return list(Tender.objects.raw(sql, params))


@lru_cache(maxsize=8)
def _compiled(size: int) -> tuple[str, tuple, int, tuple[int, ...], int]:
    """The rows' ORM query for ``size`` ids as SQL, its parameters, and where the user, each id and the order go."""
    placeholders = [_FIRST_ID_PLACEHOLDER - n for n in range(size)]  # distinct: each has its own parameter
    rows = result_rows(
        Tender.objects.filter(pk__in=placeholders)
        .annotate(my_triage=triage_status_of(_USER_PLACEHOLDER))
        .only(*RESULT_FIELDS)
        .order_by(listed_order(placeholders))
    )
    sql, params = rows.query.sql_with_params()
    params = tuple(params)
    (user_index,) = [index for index, value in enumerate(params) if value == _USER_PLACEHOLDER]
    id_indexes = tuple(params.index(placeholder) for placeholder in placeholders)
    (order_index,) = [index for index, value in enumerate(params) if value == placeholders]
    return sql, params, user_index, id_indexes, order_index
