"""The reminder-days form refuses exactly what reminders would drop, with a message, at the same limits."""

from __future__ import annotations

from notifications.bid_dates import MAX_REMINDER_DAYS, MAX_REMINDERS, clean_reminder_days
from notifications.preferences.forms import ReminderDaysForm


def _cleaned(text: str) -> list[int] | None:
    form = ReminderDaysForm({"reminder_days": text})
    return form.cleaned_data["reminder_days"] if form.is_valid() else None


def test_days_up_to_the_limit_are_kept_as_typed():
    assert _cleaned(f"{MAX_REMINDER_DAYS}; 3, 1") == [MAX_REMINDER_DAYS, 3, 1]
    assert _cleaned("") == []


def test_a_day_past_the_limit_or_zero_is_refused():
    assert _cleaned(str(MAX_REMINDER_DAYS + 1)) is None
    assert _cleaned("0") is None
    assert clean_reminder_days([MAX_REMINDER_DAYS + 1, 0]) == []  # what sending would have done with them


def test_more_days_than_reminders_are_sent_for_are_refused():
    allowed = ", ".join(str(day) for day in range(1, MAX_REMINDERS + 1))
    assert _cleaned(allowed) == list(range(1, MAX_REMINDERS + 1))
    assert _cleaned(f"{allowed}, {MAX_REMINDERS + 1}") is None
