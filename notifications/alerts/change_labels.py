"""What to call a tender change in a mail (pure: mail rendering uses it and imports no models)."""

from __future__ import annotations

from datetime import datetime

# ``notifications.models.ChangeKind.DEADLINE``; tests/notifications/alerts/test_changes.py checks they agree.
DEADLINE = "deadline"


def change_label(*, kind: str, old_value: str, new_value: str) -> str:
    """What to call a change in a mail: deadline_extended, deadline_shortened, deadline_set, cancelled, awarded."""
    if kind != DEADLINE:
        return str(kind)
    if not old_value:
        return "deadline_set"
    try:
        later = datetime.fromisoformat(new_value) > datetime.fromisoformat(old_value)
    except ValueError:
        return "deadline_set"
    return "deadline_extended" if later else "deadline_shortened"
