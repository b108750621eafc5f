"""Kinds of deadline a notice states, with German labels, and the labels buyers print them under."""

from __future__ import annotations

import re
from enum import StrEnum


class DeadlineKind(StrEnum):
    TENDER = "angebotsfrist"  # eForms TenderSubmissionDeadlinePeriod, BT-131
    PARTICIPATION = "teilnahmefrist"  # ParticipationRequestReceptionPeriod, BT-1311
    QUESTIONS = "fragenfrist"  # AdditionalInformationRequestPeriod, BT-13
    # When the buyer opens the tenders (VOB/A § 14 "Eröffnungstermin"): after the Angebotsfrist, never
    # the deadline itself - a bidder who reads it as one hands in too late.
    OPENING = "eroeffnungstermin"


DEADLINE_LABELS: dict[str, str] = {
    DeadlineKind.TENDER: "Angebotsfrist",
    DeadlineKind.PARTICIPATION: "Teilnahmefrist",
    DeadlineKind.QUESTIONS: "Fragenfrist",
    DeadlineKind.OPENING: "Eröffnungstermin",
}


def deadline_label(kind: str) -> str:
    return DEADLINE_LABELS.get(kind, "")


# Labels (lower case, without the colon) under which German portals, feeds and alert mails print a
# deadline. Buyers write "Ablauf der Angebotsfrist", "Ablauf Angebotsfrist" and plain "Angebotsfrist" for
# the same date (Vergabeplattform Berlin's feed uses all three); "Frist" alone is read as the Angebotsfrist,
# the only deadline a one-date digest prints.
_TENDER_WORDS = ("angebotsfrist", "abgabefrist", "einreichungsfrist", "angebotsabgabe")
_PARTICIPATION_WORDS = ("teilnahmefrist", "bewerbungsfrist")
DEADLINE_FIELD_LABELS: dict[DeadlineKind, tuple[str, ...]] = {
    DeadlineKind.TENDER: (
        *(f"{prefix}{word}" for word in _TENDER_WORDS for prefix in ("ablauf der ", "ablauf ", "ende der ", "")),
        "schlusstermin für den eingang der angebote",
        "frist für den eingang der angebote",
        "frist zur angebotsabgabe",
        "schlusstermin",
        "frist",
    ),
    DeadlineKind.PARTICIPATION: (
        *(f"{prefix}{word}" for word in _PARTICIPATION_WORDS for prefix in ("ablauf der ", "ablauf ", "ende der ", "")),
        "schlusstermin für den eingang der teilnahmeanträge",
        "frist für den eingang der teilnahmeanträge",
        "teilnahmeanträge bis",
    ),
    DeadlineKind.QUESTIONS: ("frist für bieterfragen", "bieterfragen bis", "fragenfrist"),
    DeadlineKind.OPENING: ("eröffnungstermin", "submissionstermin", "submission", "angebotsöffnung"),
}
_LABEL_KIND = {label: kind for kind, labels in DEADLINE_FIELD_LABELS.items() for label in labels}
_SPACES = re.compile(r"\s+")


def deadline_kind_for_label(label: str) -> DeadlineKind | None:
    """The kind of deadline a printed label names ("Ablauf Angebotsfrist" -> TENDER), None for other labels."""
    return _LABEL_KIND.get(_SPACES.sub(" ", (label or "").strip().rstrip(":").strip().lower()))
