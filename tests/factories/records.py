"""Records built from the real fixtures, and small variations of them for merge tests."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from pathlib import Path

import factory

from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.parsers.eforms import parse_eforms
from sources.parsers.ocds import parse_ocds_package

DATA = Path(__file__).resolve().parents[1] / "data"
MPI_EFORMS = DATA / "doe" / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
LEGACY_EFORMS = DATA / "doe" / "eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml"
OCDS_3LOTS = (
    DATA / "doe" / "ocds_release-package_tender_3lots_value_subreport-docs_000ada85-c11f-44cf-b1e6-b4bb5232ed7b.json"
)
OCDS_AUFHEBUNG = (
    DATA / "doe" / "ocds_release-package_award_unsuccessful_aufhebung_008b7d74-6c76-412e-bf72-67ca753055aa.json"
)
OCDS_AWARD = (
    DATA / "doe" / "ocds_release-package_award_single-supplier_contract_00725bdd-1ad2-4de5-b6c2-ab6113dabd5f.json"
)
OCDS_NO_CPV = (
    DATA / "doe" / "ocds_release-package_tender_no-cpv_evergabe-online-doc_010f171c-7d99-4e3a-b573-94b6d635a592.json"
)
TED_CN_MINIMAL = DATA / "ted" / "eforms-sdk_cn_24_minimal.xml"


def open_deadline(days: int = 60) -> datetime:
    """A deadline ``days`` ahead of the wall clock, at noon Berlin time (a tender still open)."""
    day = datetime.now(BERLIN).date() + timedelta(days=days)
    return datetime.combine(day, time(12, 0), tzinfo=BERLIN)


def eforms_record(path: Path = MPI_EFORMS, *, source: str = "doe") -> NoticeRecord:
    return parse_eforms(path.read_bytes(), source=source)


def ocds_records(path: Path, *, source: str = "doe") -> list[NoticeRecord]:
    return parse_ocds_package(path.read_bytes(), source=source)


class NoticeRecordFactory(factory.Factory):
    """A plausible German contract notice; override what a test is about."""

    class Meta:
        model = NoticeRecord

    source = "tender24"
    source_notice_id = factory.Sequence(lambda n: f"54321-Tender-{n:011x}-{n:016x}")
    version = "01"
    kind = NoticeKind.CONTRACT_NOTICE
    title = factory.Sequence(lambda n: f"Sanierung der Grundschule Nr. {n} – Dachdeckerarbeiten")
    description = "Erneuerung der Dachabdichtung einschließlich Wärmedämmung."
    buyer_name = "Stadt Musterhausen"
    procedure_type = "public_tender"
    cpv_codes = ("45261210",)
    nuts_codes = ("DE212",)
    bundesland = "Bayern"
    postal_code = "80331"
    town = "München"
    country = "DEU"
    estimated_value = Decimal("250000")
    currency = "EUR"
    published_at = datetime(2026, 9, 1, 9, 0, tzinfo=BERLIN)
    # Open when ingested, whenever the tests run: alerts and previews only see open tenders.
    submission_deadline = factory.LazyFunction(open_deadline)
