"""``MailAdapter`` (type "mail"): alert mails saved as ``.eml`` files -> records.

``manage.py ingest mail --file alert.eml`` (or a folder of ``.eml`` files) runs the same
parsing as the mailbox check. Those files are trusted - handing them in is the operator's own
act - so the provenance check of mailbox mail (``provenance``) is not applied, and the
command says so. ``fetch`` yields nothing on purpose: mail is not polled as a
source - each tenant's mailbox is read in that tenant's schema by the Celery task
``notifications.check_mailbox`` (fanned out by ``notifications.check_all_mailboxes``), which
hands the raw mails to ``sources.mail_runs.mail_source_run``: a run of this source per check
that judges each mail (``verdict``), records it as ``InboundMail`` and ingests verified notices.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from kernel.network import Fetcher
from sources.adapters.base import Adapter, FetchedBatch, SourceConfig, walk_files
from sources.adapters.mail.alerts import PARSED, parse_alert_mail
from sources.adapters.mail.portals import DEFAULT_HOST_SOURCES
from sources.registry import register

__all__ = ["MailAdapter"]

FILE_SUFFIXES = (".eml",)
MAX_MAIL_BYTES = 25 * 2**20  # larger files are refused (a problem), not read into memory


@register
class MailAdapter(Adapter):
    type: ClassVar[str] = "mail"
    label: ClassVar[str] = "Portal-Alert-E-Mails (.eml / IMAP je Mandant)"
    known_hosts: ClassVar[tuple[str, ...]] = ()
    file_trust_note: ClassVar[str] = (
        "trusted: mail files given by the operator are ingested without the provenance check "
        "(sender, authentication, link hosts) that mail from tenant mailboxes must pass"
    )

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        """Nothing to poll: mailboxes are read per tenant (see the module docstring)."""
        return iter(())

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """One batch per ``.eml`` file; folders are searched recursively. Unparsed mails are problems.

        Notices are attributed to the Source that polls their host (``config.host_sources``, filled
        by the caller from the Source table; the seeded defaults without it).
        """
        host_sources = config.host_sources or DEFAULT_HOST_SOURCES
        for path in walk_files(paths, FILE_SUFFIXES):
            yield _parse_file(path, host_sources)


def _parse_file(path: Path, host_sources) -> FetchedBatch:
    scope = str(path)[:200]
    try:
        size = path.stat().st_size
        if size > MAX_MAIL_BYTES:
            problem = f"{path}: {size} bytes, larger than {MAX_MAIL_BYTES}; not read"
            return FetchedBatch(problems=(problem,), scope=scope)
        raw = path.read_bytes()
    except OSError as exc:
        return FetchedBatch(problems=(f"{path}: cannot read file: {exc.strerror or exc}",), scope=scope)
    result = parse_alert_mail(raw, host_sources=host_sources)
    problems = [f"{path.name}: {problem}" for problem in result.problems]
    if result.status != PARSED:
        problems.insert(0, f"{path.name}: {result.status}: {result.reason}")
    return FetchedBatch(records=result.records, problems=tuple(problems), bytes=len(raw), scope=scope)
