"""A fetch run in the operators' words: German names for the codes runs store, and one colour per meaning.

Runs keep machine codes (``trigger`` "file", ``error_reason`` "dns", ``layout`` "table-6") because
statistics, filters and tests group by them; everything an operator reads — the console and the
operator digest — names them through this module, so one code has one German name everywhere.
The tone is the one colour scale of the console: "ok" (green) a run that worked, "warn" (amber)
one that worked only partly or brought clearly less than usual, "bad" (red) one that failed or was
blocked, "none" (grey) one that is still running, was skipped or never happened. Pure: no ORM.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sources.models import FetchRunStatus

TRIGGER_LABELS = {
    "schedule": "Zeitplan",
    "manual": "von Hand („Jetzt abrufen“)",
    "file": "Datei (ingest --file)",
    "backfill": "Nachholen früherer Tage",
    "mailbox": "Postfach eines Mandanten",
    "portal_page": "Portalseite aus einer Alert-E-Mail",
}

# FetchRun.error_reason: the codes of kernel.network's errors, the adapters' AdapterError and sources.services.
REASON_LABELS = {
    "changed_layout": "Layout geändert: Ergebniszeilen nicht mehr lesbar",
    "browser_only": "nicht unterstützt: Ergebnisliste nur im Browser",
    "blocked": "blockiert: Anmelde-, Zustimmungs- oder Fehlerseite statt Ergebnissen",
    "dns": "Servername nicht auflösbar (DNS)",
    "robots": "robots.txt verbietet den Abruf",
    "robots_unreachable": "robots.txt nicht erreichbar",
    "disallowed_host": "Ziel außerhalb der erlaubten Hosts",
    "disallowed_scheme": "Ziel ist keine http(s)-Adresse",
    "ssrf": "Ziel zeigt auf eine interne Adresse (gesperrt)",
    "invalid_url": "ungültige Adresse",
    "too_large": "Antwort zu groß",
    "too_many_redirects": "zu viele Weiterleitungen",
    "retry_after_too_long": "Server verlangt zu lange Wartezeit (Retry-After)",
    "retries_exhausted": "Server antwortet nicht, alle Versuche fehlgeschlagen",
    "bad_content_encoding": "Antwort nicht dekodierbar",
    "bad_response": "unbrauchbare Antwort des Servers",
    "bad_zip": "Exportdatei ist kein lesbares ZIP-Archiv",
    "zip_too_large": "Exportdatei zu groß",
    "bad_cursor": "Fortschritt (Cursor) der Quelle ungültig",
    "not_the_page": "Portal lieferte nicht die erwartete Seite",
    "invalid_settings": "Einstellungen der Quelle ungültig",
    "configuration": "Einstellungen der Quelle ungültig",
    "denylist": "Portal steht auf der Denylist",
    "file_missing": "Datei nicht gefunden",
    "time_limit": "Zeitlimit der Warteschlange erreicht",
    "stuck": "abgebrochen (Prozess beendet, Lauf hing)",
    "overlap": "lief gleichzeitig mit einem anderen Lauf",
    "internal": "interner Fehler",
    "adapter_error": "Antwort der Quelle nicht lesbar",
    "mailbox": "Postfach nicht lesbar (Anmeldung, Netz oder TLS)",
    "fetch": "Abruf fehlgeschlagen",
    "fetch_error": "Abruf fehlgeschlagen",
}

# PageYield.layout: what an HTML or JSON list page looked like to its adapter.
LAYOUT_LABELS = {
    "table-6": "Tabelle, 6 Spalten",
    "table-5": "Tabelle, 5 Spalten",
    "table": "Tabelle",
    "cards": "Karten",
    "articles": "Artikel-Liste",
    "json": "JSON-Antwort",
    "empty": "„nichts gefunden“",
    "unknown": "unbekannt",
}

TONE_OK, TONE_WARN, TONE_BAD, TONE_NONE = "ok", "warn", "bad", "none"
LOW_YIELD = "wenig Treffer"


def status_label(status: str | None) -> str:
    return str(FetchRunStatus(status).label) if status in FetchRunStatus.values else (status or "—")


def trigger_label(trigger: str | None) -> str:
    return TRIGGER_LABELS.get(trigger or "", trigger or "—")


def reason_label(reason: str | None) -> str:
    """The German words for an error_reason; HTTP status codes ("http_503") by number."""
    if not reason:
        return ""
    if reason.startswith("http_") and reason[5:].isdigit():
        return f"HTTP-Fehler {reason[5:]} vom Server"
    return REASON_LABELS.get(reason, reason)


def layout_label(layout: str | None) -> str:
    return LAYOUT_LABELS.get(layout or "", layout or "—")


def run_tone(status: str | None, *, low_yield: bool = False) -> str:
    """The run's colour: a low yield is never green, a failure always red."""
    if status in (FetchRunStatus.FAILED, FetchRunStatus.BLOCKED):
        return TONE_BAD
    if status == FetchRunStatus.PARTIAL or (low_yield and status == FetchRunStatus.SUCCEEDED):
        return TONE_WARN
    if status == FetchRunStatus.SUCCEEDED:
        return TONE_OK
    return TONE_NONE


def run_state_text(status: str | None, reason: str | None = "", *, low_yield: bool = False) -> str:
    """ "erfolgreich · wenig Treffer", "blockiert: Layout geändert: …", "fehlgeschlagen: Servername nicht auflösbar"."""
    if reason in ("changed_layout", "browser_only"):
        text = reason_label(reason)
    elif reason and status in (FetchRunStatus.FAILED, FetchRunStatus.BLOCKED):
        text = f"{status_label(status)}: {reason_label(reason)}"
    else:
        text = status_label(status)
    return f"{text} · {LOW_YIELD}" if low_yield else text


def yield_lines(report: Iterable[Mapping[str, Any]] | None) -> list[str]:
    """Each list page of a run in one line: "Seite 1 (Tabelle, 6 Spalten): 16 Zeilen, 16 gelesen"."""
    lines = []
    for number, page in enumerate(report or (), start=1):
        seen, parsed = int(page.get("rows_seen") or 0), int(page.get("parsed") or 0)
        text = f"Seite {number} ({layout_label(page.get('layout'))}): {seen} Zeilen, {parsed} gelesen"
        if seen > parsed:
            text += f", {seen - parsed} abgelehnt"
        if page.get("details_pending"):
            text += f", {page['details_pending']} Detailseiten beim nächsten Lauf"
        skipped = sum(int(n) for n in dict(page.get("skipped") or {}).values())
        if skipped:
            text += f", {skipped} absichtlich übergangen"
        lines.append(text)
    return lines
