"""Kinds of deadline a notice states, with German labels."""

from __future__ import annotations

from enum import StrEnum


class DeadlineKind(StrEnum):
    TENDER = "angebotsfrist"  # eForms TenderSubmissionDeadlinePeriod, BT-131
    PARTICIPATION = "teilnahmefrist"  # ParticipationRequestReceptionPeriod, BT-1311
    QUESTIONS = "fragenfrist"  # AdditionalInformationRequestPeriod, BT-13


DEADLINE_LABELS: dict[str, str] = {
    DeadlineKind.TENDER: "Angebotsfrist",
    DeadlineKind.PARTICIPATION: "Teilnahmefrist",
    DeadlineKind.QUESTIONS: "Fragenfrist",
}


def deadline_label(kind: str) -> str:
    return DEADLINE_LABELS.get(kind, "")
