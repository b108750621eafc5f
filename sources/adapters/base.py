"""What every adapter is: bytes in (fetched or from a file), ``NoticeRecord`` batches out. No ORM.

``sources.services`` owns the run: it builds a ``Fetcher`` from the Source's
policy, asks the adapter for batches, hands each batch to the tender ingest
and records counts on the FetchRun. Adapters never call an HTTP client
themselves and never write to the database.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from django.core.exceptions import ValidationError

from sources.fetching import Fetcher
from sources.records import NoticeRecord


@dataclass(frozen=True)
class SourceConfig:
    """A Source row as the adapter sees it (immutable, no ORM)."""

    key: str
    adapter: str
    settings: Mapping[str, Any]
    cursor: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FetchedBatch:
    """One unit of work: ingested and committed together; ``cursor`` is stored after it succeeded."""

    records: tuple[NoticeRecord, ...] = ()
    problems: tuple[str, ...] = ()  # items that could not be parsed, each with its reason
    missing: tuple[str, ...] = ()  # pages or files that could not be fetched
    bytes: int = 0
    requests: int = 0
    not_modified: int = 0
    scope: str = ""
    cursor: Mapping[str, Any] | None = None


class AdapterError(Exception):
    """A run-level failure with a short machine reason for FetchRun.error_reason."""

    def __init__(self, message: str, *, reason: str = "adapter_error"):
        super().__init__(message)
        self.reason = reason


class Adapter(ABC):
    type: ClassVar[str]
    label: ClassVar[str]
    # Hosts this adapter may ever talk to (exact names); Source settings may narrow, never widen.
    known_hosts: ClassVar[tuple[str, ...]] = ()
    # Largest response the adapter expects; a daily export zip is far larger than a result page.
    max_body_bytes: ClassVar[int] = 20 * 2**20
    # True: the run hands ``fetch`` a ``sources.conditional.ConditionalFetcher`` that sends the
    # ETag/Last-Modified stored by earlier runs (pages that change rarely, polled often).
    conditional_requests: ClassVar[bool] = False

    @classmethod
    def validate_settings(cls, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Return normalised settings or raise ValidationError with a clear message."""
        if not isinstance(settings, Mapping):
            raise ValidationError("Adapter settings must be a JSON object.")
        return dict(settings)

    @classmethod
    def allowed_hosts(cls, config: SourceConfig) -> frozenset[str]:
        return frozenset(config.settings.get("allowed_hosts") or cls.known_hosts)

    @abstractmethod
    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        """Poll the source; yield batches in order. Raise AdapterError / FetchError for run-level failures."""

    @abstractmethod
    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """The same parsing for downloaded or saved material (``manage.py ingest <key> --file``)."""
