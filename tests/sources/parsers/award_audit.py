"""Award audit: the eForms parser's award rows against an independent, deliberately simple reading.

Run: ``.venv/bin/python -m tests.sources.parsers.award_audit [--verbose] [PATH ...]``. Without paths it
reads the audit corpus ``tests/data/ted/awards/audit.tar.xz`` (real notices the parser's tests never
saw, with their provenance in ``manifest.tsv`` inside; see ``tests/data/ted/awards/AUDIT.md``).
Not a test module (no ``test_`` prefix): it prints figures and the disagreements to judge by hand.

The simple reading (written without the parser's code): every ``efac:SettledContract`` names
tenders (``efac:LotTender/cbc:ID``); each such ``efac:LotTender`` names its own lot
(``efac:TenderLot/cbc:ID``), its value (``cac:LegalMonetaryTotal/cbc:PayableAmount``) and its
``efac:TenderingParty``, whose ``efac:Tenderer`` (the group lead, else the first) is an
``efac:Organization``. One expected row per (lot, organisation). A lot result without any signed
tender of its lot is expected as the lot's outcome alone (``selec-w``/``clos-nw``/``open-nw``).
The simple reading is wrong where a contract names tenders of other lots or the tender references
are swapped; every disagreement is listed, and AUDIT.md says who was right.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from lxml import etree

CORPUS = Path(__file__).resolve().parents[2] / "data" / "ted" / "awards" / "audit.tar.xz"
ATTRIBUTES = ("supplier", "town", "value", "date", "tenders_received", "outcome")
_OUTCOME = {"selec-w": "awarded", "clos-nw": "not_awarded", "open-nw": "open"}
# Disagreements read by hand in the XML where the parser's rows are the right reading (AUDIT.md).
JUDGED = {
    "doffin/ContractAwardNotice_can-social_2022-927623__35262524.xml": "converted notice: lot result under "
    "'MISSING', tenders under no lot; the winners belong to the result's lot",
    "doffin/2022-945636__f34d9112.xml": "converted notice: 14 lot results under 'MISSING', tenders under no "
    "lot; Bracco is two organisations with two contracts (Delkontrakt 01, 02)",
    "sdk/can-social_24.xml": "lot 2's result names lot 1's tender in its contract; lot 1 is clos-nw (a loser), "
    "lot 2's own tender of the same party is the winner",
    "sdk/can_25_withheld_lots.xml": "lot 2's result lists its own tender and a contract naming lot 1's tender "
    "of the same party: lot 2 is won by that party",
}


def _all(el, path: str) -> list:
    """Children by local names ("a/b"), any namespace."""
    found = [el]
    for step in path.split("/"):
        found = [c for parent in found for c in parent if isinstance(c.tag, str) and etree.QName(c).localname == step]
    return found


def _text(el, path: str) -> str:
    if el is None:
        return ""
    hits = _all(el, path)
    return " ".join((hits[0].text or "").split()) if hits else ""


def _day(raw: str) -> date | None:
    try:
        day = date.fromisoformat(raw[:10]) if raw else None
    except ValueError:
        return None
    return None if day is None or day.year <= 2000 else day  # TED's mandatory 2000-01-01 says nothing


@dataclass
class Expected:
    lot: str
    supplier: str
    town: str = ""
    value: Decimal | None = None
    date: date | None = None
    tenders_received: int | None = None
    outcome: str = "awarded"


@dataclass
class NoticeReport:
    name: str
    subtype: str
    expected: list[Expected] = field(default_factory=list)
    produced: list = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    extra: list[tuple[str, str]] = field(default_factory=list)
    mismatches: list[tuple[str, str, str, object, object]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    error: str = ""


def simple_reading(data: bytes) -> tuple[str, list[Expected]]:
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    subtype = next((el.text or "" for el in root.iter("{*}SubTypeCode")), "")
    result = next(iter(root.iter("{*}NoticeResult")), None)
    if result is None:
        return subtype, []
    orgs = {}
    for org in root.iter("{*}Organization"):
        company = _all(org, "Company")
        if company:
            orgs[_text(company[0], "PartyIdentification/ID")] = company[0]
    tenders = {_text(t, "ID"): t for t in _all(result, "LotTender")}
    parties = {_text(p, "ID"): p for p in _all(result, "TenderingParty")}
    lot_results = {}
    for lot_result in _all(result, "LotResult"):
        lot_results.setdefault(_text(lot_result, "TenderLot/ID"), lot_result)
    fallback = _day(_text(root, "TenderResult/AwardDate"))

    def received(lot: str) -> int | None:
        lot_result = lot_results.get(lot)
        if lot_result is None:
            return None
        stats = _all(lot_result, "ReceivedSubmissionsStatistics")
        for entry in stats:
            code = _text(entry, "StatisticsCode")
            if code == "tenders" or (not code and len(stats) == 1):
                number = _text(entry, "StatisticsNumeric")
                return int(number) if number.isdigit() else None
        return None

    rows: dict[tuple[str, str], Expected] = {}
    for contract in _all(result, "SettledContract"):
        signed = _day(_text(contract, "IssueDate")) or _day(_text(contract, "AwardDate")) or fallback
        for tender_id in [(el.text or "").strip() for el in _all(contract, "LotTender/ID")]:
            tender = tenders.get(tender_id)
            if tender is None:
                continue
            lot = _text(tender, "TenderLot/ID")
            members = _all(parties.get(_text(tender, "TenderingParty/ID"), etree.Element("x")), "Tenderer")
            lead = next((m for m in members if _text(m, "GroupLeadIndicator") == "true"), None)
            lead = lead if lead is not None else (members[0] if members else None)
            org = orgs.get(_text(lead, "ID")) if lead is not None else None
            name = _text(org, "PartyName/Name") if org is not None else ""
            amount = _text(tender, "LegalMonetaryTotal/PayableAmount")
            rows.setdefault(
                (lot, name),
                Expected(
                    lot=lot,
                    supplier=name,
                    town=_text(org, "PostalAddress/CityName") if org is not None else "",
                    value=Decimal(amount) if amount else None,
                    date=signed,
                    tenders_received=received(lot),
                ),
            )
    won = {lot for lot, _ in rows}
    for lot, lot_result in lot_results.items():
        if lot not in won:
            code = _text(lot_result, "TenderResultCode")
            rows[(lot, "")] = Expected(
                lot=lot, supplier="", outcome=_OUTCOME.get(code, code or "none"), tenders_received=received(lot)
            )
    return subtype, list(rows.values())


def audit(name: str, data: bytes) -> NoticeReport:
    from sources.parsers.eforms import parse_eforms

    subtype, expected = simple_reading(data)
    report = NoticeReport(name=name, subtype=subtype, expected=expected)
    try:
        record = parse_eforms(data, source="ted")
    except Exception as exc:  # noqa: BLE001 - an audit reports every failure
        report.error = f"{type(exc).__name__}: {exc}"
        return report
    report.produced = list(record.awards)
    keys = Counter((a.lot_id, a.supplier_name) for a in record.awards)
    report.duplicates = [key for key, n in keys.items() if n > 1]
    produced = {(a.lot_id, a.supplier_name): a for a in record.awards}
    wanted = {(e.lot, e.supplier): e for e in expected}
    report.missing = [key for key in wanted if key not in produced]
    report.extra = [key for key in produced if key not in wanted]
    for key, exp in wanted.items():
        got = produced.get(key)
        if got is None:
            continue
        pairs = {
            "supplier": (exp.supplier, got.supplier_name),
            "town": (exp.town, got.supplier_town) if exp.supplier else (None, None),
            "value": (exp.value, got.value) if exp.supplier else (None, None),
            "date": (exp.date, got.date) if exp.supplier else (None, None),
            "tenders_received": (exp.tenders_received, got.tenders_received),
            "outcome": (exp.outcome, str(got.status)),
        }
        for attribute, (want, have) in pairs.items():
            if want != have:
                report.mismatches.append((key[0], key[1], attribute, want, have))
    return report


def corpus(paths: list[str]) -> list[tuple[str, bytes]]:
    if paths:
        return [(p, Path(p).read_bytes()) for p in paths]
    with tarfile.open(CORPUS) as archive:
        members = {m.name: m for m in archive.getmembers() if m.isfile()}
        manifest = archive.extractfile(members["manifest.tsv"]).read().decode()
        names = [row["file"] for row in csv.DictReader(io.StringIO(manifest), delimiter="\t")]
        return [(n, archive.extractfile(members[n]).read()) for n in names]


def summary(reports: list[NoticeReport], label: str) -> str:
    expected = sum(len(r.expected) for r in reports)
    produced = sum(len(r.produced) for r in reports)
    missing = sum(len(r.missing) for r in reports)
    extra = sum(len(r.extra) for r in reports)
    matched = expected - missing
    wrong = Counter(m[2] for r in reports for m in r.mismatches)
    lines = [
        f"## {label}: {len(reports)} notices",
        f"rows expected {expected}, produced {produced}, matched {matched}, missing {missing}, extra {extra}, "
        f"duplicate rows {sum(len(r.duplicates) for r in reports)}, parse errors {sum(bool(r.error) for r in reports)}",
    ]
    judged = [r for r in reports if r.name in JUDGED]
    right = matched - sum(len(r.expected) - len(r.missing) for r in judged) + sum(len(r.produced) for r in judged)
    truth = expected - sum(len(r.expected) for r in judged) + sum(len(r.produced) for r in judged)
    if expected:
        lines.append(f"rows agreeing with the simple reading: {matched}/{expected} = {100 * matched / expected:.1f} %")
        lines.append(f"rows right after reading the {len(judged)} disagreeing notices by hand: {right}/{truth}")
        for attribute in ATTRIBUTES:
            right = matched - wrong[attribute]
            lines.append(f"  {attribute:<17} {right}/{matched} = {100 * right / max(matched, 1):.1f} %")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import django

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    django.setup()
    groups: dict[str, list[NoticeReport]] = {}
    for name, data in corpus(args.paths):
        report = audit(name, data)
        groups.setdefault(name.split("/")[0] if "/" in name else "files", []).append(report)
        flawed = report.missing or report.extra or report.mismatches or report.duplicates or report.error
        if flawed or args.verbose:
            print(
                f"{name} (subtype {report.subtype}): expected {len(report.expected)}, produced "
                f"{len(report.produced)}{' ' + report.error if report.error else ''}"
            )
            for key in report.missing:
                print(f"  missing   {key}")
            for key in report.extra:
                print(f"  extra     {key}")
            for lot, supplier, attribute, want, have in report.mismatches:
                print(f"  {attribute:<9} {lot} {supplier!r}: expected {want!r}, parser {have!r}")
            for key in report.duplicates:
                print(f"  duplicate {key}")
    everything = [r for reports in groups.values() for r in reports]
    for label, reports in groups.items():
        print(summary(reports, label))
    print(summary(everything, "all"))
    return 0


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    sys.exit(main())
