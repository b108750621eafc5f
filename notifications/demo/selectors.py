"""What the demo tells its user about the data on screen (live window or offline sample and its date)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.db import connection

from notifications.demo import services
from sources.demo import demo_state


@dataclass(frozen=True)
class DemoDataNote:
    mode: str  # "live" | "offline"
    sample_day: date | None = None
    first_day: date | None = None
    last_day: date | None = None
    offline_reason: str = ""


def _day(value) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def demo_data_note() -> DemoDataNote | None:
    """Only in the demo tenant of a local machine; None everywhere else."""
    if not getattr(settings, "DEMO_ENABLED", False) or connection.schema_name != services.DEMO_SCHEMA:
        return None
    state = demo_state()
    if state is None:
        return None
    return DemoDataNote(
        mode=state["mode"],
        sample_day=_day(state.get("sample_day")),
        first_day=_day(state.get("first_day")),
        last_day=_day(state.get("last_day")),
        offline_reason=str(state.get("offline_reason") or "")[:300],
    )
