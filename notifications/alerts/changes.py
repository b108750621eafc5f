"""Changes of matched tenders worth telling: deadline moved, procedure cancelled or awarded.

The ingest reports tracked field changes per tender as ``{field: [old, new]}``.
``change_notices`` turns them into notices with a key that identifies this exact
change ("deadline:2026-11-03T10:00+01:00", "status:cancelled"); the (match, key)
pair is unique, so re-polling the same state never produces the same notice twice.
Value changes are not notices on purpose: estimates are revised often and by
small amounts, which would make update mails noise.
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from kernel.vocabulary.time_zone import BERLIN
from notifications.models import ChangeKind, MatchChange, TenderMatch

MAX_VALUE_LENGTH = 200
NEWS_STATUSES = {"cancelled": ChangeKind.CANCELLED, "awarded": ChangeKind.AWARDED}


@dataclass(frozen=True)
class ChangeNotice:
    kind: str
    change_key: str
    old_value: str = ""
    new_value: str = ""


def _deadline_text(value) -> str | None:
    """A deadline as Berlin ISO to the minute (the precision notices have); None when absent or unreadable."""
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=BERLIN)
    return moment.astimezone(BERLIN).isoformat(timespec="minutes")


def change_notices(field_changes: Mapping[str, Sequence]) -> list[ChangeNotice]:
    """Notices for one tender's tracked changes; unreadable or meaningless changes yield nothing."""
    notices = []
    deadline = field_changes.get("submission_deadline")
    if isinstance(deadline, (list, tuple)) and len(deadline) == 2:
        old, new = _deadline_text(deadline[0]), _deadline_text(deadline[1])
        if new is not None and new != old:
            notices.append(
                ChangeNotice(kind=ChangeKind.DEADLINE, change_key=f"deadline:{new}", old_value=old or "", new_value=new)
            )
    status = field_changes.get("status")
    if isinstance(status, (list, tuple)) and len(status) == 2:
        old, new = str(status[0] or ""), str(status[1] or "")
        if new in NEWS_STATUSES and new != old:
            notices.append(
                ChangeNotice(
                    kind=NEWS_STATUSES[new],
                    change_key=f"status:{new}",
                    old_value=old[:MAX_VALUE_LENGTH],
                    new_value=new,
                )
            )
    return notices


def match_changes_insert(*, changed: Mapping[int, Mapping[str, Sequence]], now: datetime) -> list[int]:
    """One notice row per existing match of every changed tender; returns ids of rows that are new.

    One INSERT … SELECT joining the matches with the notices (as parallel arrays);
    ON CONFLICT on (match, change_key) keeps each change at most once per match.
    """
    rows = [(int(tender_id), notice) for tender_id, fields in changed.items() for notice in change_notices(fields)]
    if not rows:
        return []
    columns = list(zip(*((t, n.kind, n.change_key, n.old_value, n.new_value) for t, n in rows), strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {MatchChange._meta.db_table} "
            "(match_id, kind, change_key, old_value, new_value, detected_at) "
            "SELECT m.id, v.kind, v.change_key, v.old_value, v.new_value, %s "
            f"FROM {TenderMatch._meta.db_table} m "
            "JOIN unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[]) "
            "AS v(tender_id, kind, change_key, old_value, new_value) ON m.tender_id = v.tender_id "
            "ON CONFLICT (match_id, change_key) DO NOTHING RETURNING id",
            [now, *(list(column) for column in columns)],
        )
        return [row[0] for row in cursor.fetchall()]
