"""What every adapter is: bytes in (fetched or from a file), ``NoticeRecord`` batches out. No ORM.

``sources.services`` owns the run: it builds a ``Fetcher`` from the Source's
policy, asks the adapter for batches, hands each batch to the tender ingest
and records counts on the FetchRun. Adapters never call an HTTP client
themselves and never write to the database.

Settings: an adapter declares them as a schema (``settings_model``, an
:class:`sources.adapters.settings.AdapterSettings`); ``validate_settings`` runs it and reports
every problem at once. A run reads them through ``settings_for``, so settings that no longer
validate fail the run with reason "invalid_settings" before any request.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from django.core.exceptions import ValidationError

from kernel.network import Fetcher
from kernel.records import NoticeRecord
from sources.adapters.errors import AdapterError as AdapterError
from sources.adapters.saved_files import SavedFile as SavedFile
from sources.adapters.saved_files import read_saved as read_saved
from sources.adapters.saved_files import walk_files as walk_files
from sources.adapters.settings import AdapterSettings, url_hosts, validated_settings
from sources.adapters.yields import PageYield, SamplePage

# (source, [(lower-case notice id, version)]) -> {key: (stored notice id, raw digest)}
RawVersions = Callable[[str, Sequence[tuple[str, str]]], Mapping[tuple[str, str], tuple[str, str]]]


@dataclass(frozen=True)
class SourceConfig:
    """A Source row as the adapter sees it (immutable, no ORM)."""

    key: str
    adapter: str
    settings: Mapping[str, Any]
    cursor: Mapping[str, Any] = field(default_factory=dict)
    # Bare host -> key of the Source that polls it, for adapters that attribute notices to other
    # sources (alert mails); the service reads it (``sources.selectors.host_sources_current``).
    host_sources: Mapping[str, str] = field(default_factory=dict)
    # The digests of stored versions, for adapters that skip unchanged notices before parsing; the service
    # supplies it.
    raw_versions: RawVersions | None = None


@dataclass(frozen=True)
class FieldProblem:
    """A field a notice states that the adapter could not read: stored empty, named and counted on the run.

    Why apart from ``problems``: the notice itself was stored; a run summary that counted these as failed
    notices would say "14 failed" when 14 tenders were stored and 14 dates were missing.
    """

    field: str  # what kind of statement ("deadline", "published", "date" …): the run counts them per field
    item: str  # which notice ("item 3 'Titel'")
    detail: str  # what was stated and why it was not read

    @property
    def text(self) -> str:
        return f"{self.item}: {self.detail}"

    def in_file(self, name: str) -> FieldProblem:
        return FieldProblem(field=self.field, item=f"{name}: {self.item}", detail=self.detail)


@dataclass(frozen=True)
class FetchedBatch:
    """One unit of work: ingested and committed together; ``cursor`` is stored after it succeeded."""

    records: tuple[NoticeRecord, ...] = ()
    problems: tuple[str, ...] = ()  # items that could not be parsed, each with its reason
    field_problems: tuple[FieldProblem, ...] = ()  # fields of stored notices that could not be read
    refused: int = 0  # notices the source offered that became no record (besides rows rejected in ``yields``)
    missing: tuple[str, ...] = ()  # pages or files that could not be fetched
    bytes: int = 0
    requests: int = 0
    not_modified: int = 0
    scope: str = ""
    cursor: Mapping[str, Any] | None = None
    yields: tuple[PageYield, ...] = ()  # one per list page read (HTML portal adapters)
    sample: SamplePage | None = None  # a page whose rows were (partly) rejected, for the operator
    # Versions skipped unparsed because their raw bytes are those of the stored version: (notice id, version)
    # as stored; and (notice id, version, digest) of parsed versions whose digest is to be kept.
    unchanged_raw: tuple[tuple[str, str], ...] = ()
    raw_hashes: tuple[tuple[str, str, str], ...] = ()
    raw_source: str = ""  # the records' ``source`` both refer to


class Adapter(ABC):
    type: ClassVar[str]
    label: ClassVar[str]
    # The adapter in operator messages ("Unbekannte TED-Einstellung(en)", "invalid DÖE settings"); "" means ``type``.
    short_name: ClassVar[str] = ""
    # The schema of a Source's settings; None: the adapter has no settings and keeps them as given.
    settings_model: ClassVar[type[AdapterSettings] | None] = None
    # Hosts this adapter may ever talk to (exact names); Source settings may narrow, never widen.
    known_hosts: ClassVar[tuple[str, ...]] = ()
    # Set where one adapter serves many hosts (portal software): a run may talk only to the hosts
    # these URL settings name, ``allowed_hosts`` merely admits them. Empty: ``allowed_hosts``,
    # else ``known_hosts`` (so redirects between a service's own hosts keep working).
    url_settings: ClassVar[tuple[str, ...]] = ()
    # Largest response the adapter expects; a daily export zip is far larger than a result page.
    max_body_bytes: ClassVar[int] = 20 * 2**20
    # True: the run hands ``fetch`` a ``sources.conditional.ConditionalFetcher`` that sends the
    # ETag/Last-Modified stored by earlier runs (pages that change rarely, polled often).
    conditional_requests: ClassVar[bool] = False
    # Said to the operator by ``manage.py ingest <key> --file``: how far the adapter trusts files they hand it.
    file_trust_note: ClassVar[str] = ""

    @classmethod
    def validate_settings(cls, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Normalised settings, or ValidationError listing every problem, each naming its setting.

        URL settings may name the hosts of ``allowed_hosts`` when given, else ``known_hosts``.
        """
        if not isinstance(settings, Mapping):
            raise ValidationError("Adapter-Einstellungen müssen ein JSON-Objekt sein.")
        if cls.settings_model is None:
            return dict(settings)
        name = cls.short_name or cls.type
        return validated_settings(cls.settings_model, settings, name=name, known_hosts=cls.known_hosts)

    @classmethod
    def allowed_hosts(cls, config: SourceConfig) -> frozenset[str]:
        """Hosts a run of this source may talk to; settings that do not validate allow none.

        Allowing none is safe: ``settings_for`` then fails the run before its first request.
        """
        try:
            settings = cls.validate_settings(config.settings or {})
        except ValidationError:
            return frozenset()
        return cls.settings_hosts(settings)

    @classmethod
    def settings_hosts(cls, settings: Mapping[str, Any]) -> frozenset[str]:
        """Hosts allowed by validated settings (see ``url_settings``)."""
        if cls.url_settings:
            return url_hosts(settings, cls.url_settings)
        return frozenset(settings.get("allowed_hosts") or cls.known_hosts)

    @classmethod
    def settings_for(cls, config: SourceConfig) -> dict[str, Any]:
        """Validated settings of ``config``, or AdapterError(reason="invalid_settings") naming the source.

        Settings are validated when a Source is saved, but a code change can tighten the rules
        after that: the run then fails with every problem listed instead of guessing.
        """
        try:
            return cls.validate_settings(config.settings or {})
        except ValidationError as exc:
            raise AdapterError(
                f"Source {config.key!r}: invalid {cls.short_name or cls.type} settings: {' '.join(exc.messages)}",
                reason="invalid_settings",
            ) from exc

    @abstractmethod
    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        """Poll the source; yield batches in order. Raise AdapterError / FetchError for run-level failures."""

    @abstractmethod
    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """The same parsing for downloaded or saved material (``manage.py ingest <key> --file``)."""


# -- saved material (``parse_files``) ----------------------------------------------------------

SCOPE_MAX = 200  # FetchRun.scope max_length


def scope_text(text: str) -> str:
    """``text`` as a FetchRun scope: cut to ``SCOPE_MAX`` characters, ending in "…" when cut."""
    return text if len(text) <= SCOPE_MAX else text[: SCOPE_MAX - 1] + "…"
