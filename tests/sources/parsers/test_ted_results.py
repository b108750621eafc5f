"""TED search results: winners, values and tender counts per lot, on the real notice 291981-2026 (Stadt Worms)."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

from kernel.records import Award, Deadline, NoticeKind
from sources.parsers.ted_json import parse_ted_notice

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "ted"
    / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json"
)


def _notices():
    return json.loads(FIXTURE.read_text())


def test_winners_values_and_tender_counts_per_lot():
    record = parse_ted_notice(_notices()[1])
    strube = {"supplier_name": "Wach- und Werkschutz Kurt Strube GmbH", "supplier_id": "DE117335997"}
    strube |= {"supplier_town": "Lingen", "supplier_country": "DEU", "currency": "EUR"}
    assert record.awards == (
        Award(lot_id="LOT-0001", value=Decimal("320649.86"), tenders_received=9, **strube),
        Award(lot_id="LOT-0002", value=Decimal("210787.86"), tenders_received=9, **strube),
        Award(
            lot_id="LOT-0003",
            supplier_name="AWD-Gebäudedienste",
            supplier_id="DE 423 962 710",
            supplier_town="Ludwigshafen am Rhein",
            supplier_country="DEU",
            value=Decimal("5850.00"),
            currency="EUR",
            tenders_received=7,
        ),
    )
    assert record.publication_number == "291981-2026"
    assert record.bundesland == "Rheinland-Pfalz"
    assert record.buyer_email == "ausschreibungen@worms.de"
    assert record.estimated_value is None  # award values are no estimates


def test_contract_notice_fields_and_participation_deadline_kind():
    record = parse_ted_notice(_notices()[0])
    assert record.kind is NoticeKind.CONTRACT_NOTICE and record.awards == ()
    assert record.contract_nature == "services" and record.main_cpv == "79713000"
    assert (record.contract_start, record.contract_end) == (date(2027, 7, 31), date(2031, 7, 31))
    assert [d.kind for d in record.deadlines] == ["teilnahmefrist"]  # no Angebotsfrist in a restricted procedure
    assert isinstance(record.deadlines[0], Deadline)
    assert (record.buyer_postal_code, record.buyer_email) == ("13405", "BwDLZBerlinBeschaffung@Bundeswehr.org")
    assert record.bundesland == "Brandenburg"  # 14548 Schwielowsee (NUTS DE40E agrees)
