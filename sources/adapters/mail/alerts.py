"""One alert mail (raw bytes) -> ``MailParse``: status, reason and a ``NoticeRecord`` per notice.

Statuses (the values of ``sources.models.InboundMailStatus``):

* ``parsed``   - at least one notice was read; per-notice problems (an unreadable deadline)
  are listed in ``problems`` and the field stays empty;
* ``ignored``  - positively no alert: an automatic reply or delivery report, or a mail from a
  portal without any notice link and without alert wording (newsletter, account mail);
* ``unparsed`` - everything else, with the reason: broken MIME without readable text, a
  sender and content of no supported portal, or alert wording without a readable notice.
  Unparsed mails are kept and shown to operators; nothing is dropped silently.

Records: ``source`` is the Source key polling the link's host (``host_sources``, e.g.
``tender24``, ``dtvp``, ``service-bund``), so a mail notice and the portal's own record of it
share (source, notice id) - the NetServer TenderOID, the cosinex CX id, the service.bund.de
page id; links of hosts nobody polls give ``source="mail"`` with the id prefixed by the
portal family (``netserver:<TenderOID>``, ``dtad:<id>``). ``portal_references`` carry the
exact cross-portal ids, so DÖE/TED notices naming the same procedure merge with them.

``version`` is ``MAIL_VERSION`` ("00"): an alert shows a digest of a notice, not the notice.
Ranked below every published version ("01" and up), the portal's own record supersedes it
as soon as an adapter reads it, and a later mail never overrides that record. With no
publication date a mail record also sorts first among notices, so its values only fill gaps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from kernel.normalise import clean_text
from kernel.records import NoticeRecord
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import MAIL_VERSION, Origin
from sources.adapters.mail.extract import AlertEntry, extract_entries
from sources.adapters.mail.fields import bundesland_named, kind_from_text, parse_field_date, split_place
from sources.adapters.mail.mime import MailContent, read_message
from sources.adapters.mail.portals import (
    ALERT_WORDS,
    DEFAULT_HOST_SOURCES,
    looks_like_dtad,
    portal_of_sender,
    source_for_host,
)

__all__ = ["MAIL_VERSION", "MailParse", "parse_alert_mail"]

PARSED, UNPARSED, IGNORED = "parsed", "unparsed", "ignored"
MAX_NOTICE_ID = 200  # TenderSource.source_notice_id


@dataclass(frozen=True)
class MailParse:
    status: str
    reason: str
    portal: str = ""
    message_id: str = ""
    subject: str = ""
    sender: str = ""
    sender_address: str = ""
    return_path: str = ""
    authentication_results: tuple[str, ...] = ()
    trace_fields: tuple[tuple[str, str], ...] = ()  # Received / Authentication-Results in header order (mime)
    date: datetime | None = None
    records: tuple[NoticeRecord, ...] = ()
    problems: tuple[str, ...] = ()


def parse_alert_mail(raw: bytes, *, host_sources: Mapping[str, str] = DEFAULT_HOST_SOURCES) -> MailParse:
    """Never raises for bad input: an unreadable mail is ``unparsed`` with the reason."""
    try:
        content = read_message(raw)
    except Exception as exc:  # the stdlib parser is lenient; this is the last line of defence
        return MailParse(status=UNPARSED, reason=f"MIME structure unreadable: {type(exc).__name__}: {exc}")
    try:
        return _parse(content, host_sources)
    except Exception as exc:  # a bug in one rule must not lose the mail: it stays visible as unparsed
        return _result(content, UNPARSED, f"alert mail could not be read: {type(exc).__name__}: {exc}")


def _parse(content: MailContent, host_sources: Mapping[str, str]) -> MailParse:
    if content.content_type == "multipart/report" or content.auto_submitted.startswith("auto-replied"):
        return _result(content, IGNORED, "automatic reply or delivery report, no portal alert")
    body = content.best_text
    sender_portal = portal_of_sender(content.sender_address)
    if not body.strip():
        detail = f" ({'; '.join(content.defects)})" if content.defects else ""
        return _result(content, UNPARSED, f"no readable text part{detail}", portal=sender_portal)
    dtad_mode = sender_portal == "dtad" or looks_like_dtad(f"{content.subject}\n{body}")
    entries = extract_entries(body, dtad_mode=dtad_mode)
    if not entries and content.html_text and content.text:
        entries = extract_entries(content.text, dtad_mode=dtad_mode)
    if entries:
        records, problems = [], [*content.decoding_problems]
        if content.defects:
            problems.append("MIME defects: " + "; ".join(content.defects))
        for entry in entries:
            record, entry_problems = _record(entry, content, host_sources)
            records.append(record)
            problems.extend(f"{record.source_notice_id}: {problem}" for problem in entry_problems)
        portal = sender_portal or ("dtad" if dtad_mode else entries[0].link.portal)
        return _result(content, PARSED, "", portal=portal, records=tuple(records), problems=tuple(problems))
    has_alert_words = any(word in f"{content.subject}\n{body}".lower() for word in ALERT_WORDS)
    if sender_portal and not has_alert_words:
        return _result(
            content,
            IGNORED,
            f"mail from a {sender_portal} portal without notice links or alert wording (newsletter or account mail)",
            portal=sender_portal,
        )
    if content.defects:
        reason = f"broken MIME structure and no notice link found ({'; '.join(content.defects)})"
    elif sender_portal or has_alert_words or dtad_mode:
        reason = "looks like a portal alert, but no notice link of a supported portal could be read"
    else:
        reason = "sender and content belong to no supported portal (NetServer, cosinex, service.bund.de, DTAD-style)"
    return _result(content, UNPARSED, reason, portal=sender_portal)


def _result(content: MailContent, status: str, reason: str, **values) -> MailParse:
    return MailParse(
        status=status,
        reason=reason,
        message_id=content.message_id,
        subject=content.subject,
        sender=content.sender,
        sender_address=content.sender_address,
        return_path=content.return_path,
        authentication_results=content.authentication_results,
        trace_fields=content.trace_fields,
        date=content.date,
        **values,
    )


def _record(entry: AlertEntry, content: MailContent, host_sources: Mapping[str, str]) -> tuple[NoticeRecord, list]:
    problems: list[str] = []
    link, fields = entry.link, entry.fields
    source = source_for_host(link.host, host_sources) or "mail"
    notice_id = link.notice_id if source != "mail" else f"{link.portal}:{link.notice_id}"
    deadline = parse_field_date(fields.get("deadline") or fields.get("participation_deadline"), end_of_day=True)
    if deadline.problem:
        problems.append(f"deadline {deadline.problem}; left empty")
    published = parse_field_date(fields.get("published"))
    if published.problem:
        problems.append(f"publication date {published.problem}; left empty")
    postal_code, place = split_place(fields.get("place"))
    bundesland = bundesland_named(place)
    procedure = procedure_type_code(fields.get("procedure"))
    references = tuple(dict.fromkeys(ref for ref in (link.reference, *entry.references) if ref))
    record = NoticeRecord(
        source=source,
        origin=Origin.MAIL,
        source_notice_id=notice_id[:MAX_NOTICE_ID],
        version=MAIL_VERSION,
        kind=kind_from_text(fields.get("stage") or fields.get("procedure")),
        portal_references=references,
        title=clean_text(entry.title, limit=1000),
        description=clean_text(entry.description, limit=5000),
        buyer_name=clean_text(fields.get("buyer"), limit=500),
        procedure_type="" if procedure == "other" else procedure,
        postal_code=postal_code,
        town="" if bundesland else place[:200],
        bundesland=bundesland,
        published_at=published.value,
        submission_deadline=deadline.value,
        url=link.url[:2000],
        payload={
            "mail": {
                "message_id": content.message_id,
                "subject": content.subject,
                "portal": link.portal,
                **{name: fields[name] for name in ("matched", "category", "stage", "reference") if name in fields},
            }
        },
    )
    return record, problems
