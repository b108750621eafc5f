"""Field audit of issue 28 on real notices the project had not seen: hand labels against the tenders the ingest made.

Corpus and labels: ``tests/data/audit2`` (``notices.tar.xz`` and ``labels.json``; the German DÖE part in ``doe/``
and ``labels_doe.json``; provenance in ``README.md``, the figures and every miss in ``AUDIT.md``).
``test_field_audit.py`` ingests the notices through the file imports of their sources (the polling path) and hands
the stored tenders to :func:`compare`; this module only compares, so the same figures come out of the test and of
``AUDIT.md``.

What a label means (decided once for every notice, written in AUDIT.md): the tender of a notice is the one whose
version of the label's source carries the notice's publication number (else its notice id); a notice labelled
``same_tender_as`` another must be in that one's tender (a merge) and is not compared field by field; core fields are
compared on the tender's public shape (``tender_representation``), award rows by (lot, supplier name), their
attributes on every matched row.
"""

from __future__ import annotations

import json
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from kernel.vocabulary.time_zone import BERLIN

AUDIT = Path(__file__).resolve().parents[1] / "data" / "audit2"
CORE = (
    "notice_type", "title", "buyer", "deadline", "participation_deadline", "published", "procedure_type",
    "main_cpv", "nuts", "postal_code", "town", "bundesland", "estimated_value", "lots",
)  # fmt: skip
AWARD = ("supplier", "town", "value", "date", "tenders_received", "outcome")


def labels() -> dict[str, dict]:
    """Every labelled notice: the packed TED and Doffin ones, then the German DÖE ones and their TED twin (``doe/``)."""
    packed = json.loads((AUDIT / "labels.json").read_text(encoding="utf-8"))
    german = json.loads((AUDIT / "labels_doe.json").read_text(encoding="utf-8"))
    return {**{name: {"source": "ted", **label} for name, label in packed.items()}, **german}


def unpack(folder: Path) -> list[Path]:
    """The packed notices, unpacked into ``folder`` (kept packed: 3 MB of XML, 140 KB as xz)."""
    with tarfile.open(AUDIT / "notices.tar.xz") as archive:
        archive.extractall(folder, filter="data")
    return sorted(folder / name for name, label in labels().items() if not (AUDIT / "doe" / name).exists())


def german(source: str) -> list[Path]:
    """The files of ``doe/`` the import of ``source`` reads (not the originals they were split from)."""
    return sorted(
        AUDIT / "doe" / name
        for name, label in labels().items()
        if label["source"] == source and (AUDIT / "doe" / name).exists()
    )


@dataclass
class Result:
    core: Counter = field(default_factory=Counter)  # field -> right
    core_total: Counter = field(default_factory=Counter)
    award: Counter = field(default_factory=Counter)
    award_total: Counter = field(default_factory=Counter)
    merges_expected: int = 0  # notices labelled as the same tender as another
    merges_found: int = 0
    rows_expected: int = 0
    rows_matched: int = 0
    rows_extra: int = 0
    duplicate_rows: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def core_share(self) -> float:
        return sum(self.core.values()) / max(sum(self.core_total.values()), 1)

    @property
    def award_share(self) -> float:
        """Right award attributes over every attribute of every expected row (a missing row misses all six)."""
        return sum(self.award.values()) / max(self.rows_expected * len(AWARD), 1)


def _day(value: str | None) -> str | None:
    return datetime.fromisoformat(value).astimezone(BERLIN).date().isoformat() if value else None


def _instant(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _amount(value) -> Decimal | None:
    return Decimal(str(value)) if value not in (None, "") else None


def _core_actual(shape: dict, kind: str) -> dict:
    participation = sorted(d["datetime"] for d in shape["deadlines"] if d["kind"] == "teilnahmefrist")
    return {
        "notice_type": kind,
        "title": shape["title"],
        "buyer": shape["buyer_name"],
        "deadline": _instant(shape["deadline"]),
        "participation_deadline": _instant(participation[0]) if participation else None,
        "published": _day(shape["published_at"]),
        "procedure_type": shape["procedure_type"],
        "main_cpv": shape["main_cpv"],
        "nuts": sorted(shape["nuts"]),
        "postal_code": shape["postal_code"],
        "town": shape["town"],
        "bundesland": shape["bundesland"],
        "estimated_value": (_amount(shape["estimated_value"]), shape["currency"]),
        "lots": len(shape["lots"]),
    }


def _core_expected(label: dict) -> dict:
    expected = {name: label[name] for name in CORE}
    expected["deadline"] = _instant(label["deadline"])
    expected["participation_deadline"] = _instant(label["participation_deadline"])
    expected["estimated_value"] = (_amount(label["estimated_value"]), label["currency"])
    return expected


def _row(award: dict) -> dict:
    return {
        "supplier": award["supplier_name"],
        "town": award["supplier_town"],
        "value": (_amount(award["value"]), award["currency"]) if award["value"] is not None else (None, None),
        "date": award["date"],
        "tenders_received": award["tenders_received"],
        "outcome": award["status"],
    }


def _expected_row(label: dict) -> dict:
    return {
        "supplier": label["supplier"],
        "town": label["town"],
        "value": (_amount(label["value"]), label["currency"]),
        "date": label["date"],
        "tenders_received": label["tenders_received"],
        "outcome": label["outcome"],
    }


def compare(expected: dict[str, dict], found: dict[str, tuple[dict, str] | None]) -> Result:
    """``found``: per labelled file the tender's public shape and the notice's kind, or None when no tender holds it."""
    result = Result()
    for name, label in expected.items():
        if other := label.get("same_tender_as"):
            result.merges_expected += 1
            same = found.get(name) and found.get(other) and found[name][0]["id"] == found[other][0]["id"]
            result.merges_found += bool(same)
            if not same:
                result.misses.append(f"{name}: not in the tender of {other} (missed merge)")
            continue
        rows = [(a["lot"], a["supplier"]) for a in label["awards"]]
        result.rows_expected += len(rows)
        result.core_total.update(CORE)
        if found.get(name) is None:
            result.misses.append(f"{name}: no tender holds this notice")
            continue
        shape, kind = found[name]
        actual, want = _core_actual(shape, kind), _core_expected(label)
        for key in CORE:
            if actual[key] == want[key]:
                result.core[key] += 1
            else:
                result.misses.append(f"{name}: {key} {actual[key]!r} != {want[key]!r}")
        produced = Counter((a["lot"], a["supplier_name"]) for a in shape["awards"])
        result.duplicate_rows += sum(n - 1 for n in produced.values() if n > 1)
        result.rows_extra += sum(1 for key in produced if key not in rows)
        for key in produced:
            if key not in rows:
                result.misses.append(f"{name}: extra award row {key}")
        by_key = {(a["lot"], a["supplier_name"]): _row(a) for a in shape["awards"]}
        for award in label["awards"]:
            key = (award["lot"], award["supplier"])
            result.award_total.update(AWARD)
            if key not in by_key:
                result.misses.append(f"{name}: missing award row {key}")
                continue
            result.rows_matched += 1
            got, want_row = by_key[key], _expected_row(award)
            for attribute in AWARD:
                if got[attribute] == want_row[attribute]:
                    result.award[attribute] += 1
                else:
                    result.misses.append(
                        f"{name}: award {key} {attribute} {got[attribute]!r} != {want_row[attribute]!r}"
                    )
    return result


def expected_tenders(expected: dict[str, dict]) -> int:
    """One tender per labelled notice, but one for all the notices of one procedure."""
    return sum(1 for label in expected.values() if not label.get("same_tender_as"))


def report(result: Result, *, tenders: int, expected_tenders: int) -> str:
    lines = [
        f"tenders {tenders} (expected {expected_tenders}); merges {result.merges_found}/{result.merges_expected}",
        f"core {result.core_share:.4f}",
    ]
    lines += [f"  {name}: {result.core[name]}/{result.core_total[name]}" for name in CORE]
    lines.append(
        f"award rows expected {result.rows_expected}, matched {result.rows_matched}, extra {result.rows_extra}, "
        f"duplicate {result.duplicate_rows}; attributes {result.award_share:.4f}"
    )
    lines += [f"  {name}: {result.award[name]}/{result.rows_expected}" for name in AWARD]
    return "\n".join([*lines, *result.misses])
