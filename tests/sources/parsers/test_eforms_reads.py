"""Parse work is not done twice: no element of a notice is searched twice for the same path."""

from __future__ import annotations

from pathlib import Path

import pytest

from sources.parsers.eforms import parse_eforms, tree

AWARDS = Path(__file__).resolve().parents[2] / "data" / "ted" / "awards"
# Paths read for each lot, lot result, tender, contract and tendering party.
ONCE = {
    "cbc:ID",
    "cbc:TenderResultCode",
    "efac:TenderLot/cbc:ID",
    "efac:SettledContract/cbc:ID",
    "efac:LotTender/cbc:ID",
    "efac:TenderingParty/cbc:ID",
    "efac:Tenderer",
    "efbc:GroupLeadIndicator",
    "cbc:ContractingSystemTypeCode",
    "efac:LotResult",
    "cac:ProcurementProjectLot",
}


@pytest.mark.parametrize(
    "name",
    [
        "ted_2024-OJS072-00215550_can-standard_6-lots_one-contract.xml",
        "ted_2024-OJS198-00611835_can-standard_6-lots_two-contracts.xml",
        "eforms-sdk_can_24_maximal_lots-group-tender.xml",
    ],
)
def test_lots_results_tenders_and_parties_are_each_read_once(monkeypatch, name) -> None:
    compiled = tree._compiled
    reads: list[tuple[object, str]] = []  # the elements stay referenced, so no two share an id

    def counting(path: str):
        evaluate = compiled(path)

        def call(el):
            reads.append((el, path))
            return evaluate(el)

        return call

    monkeypatch.setattr(tree, "_compiled", counting)
    record = parse_eforms((AWARDS / name).read_bytes(), source="ted")

    assert record.awards
    repeated = {path for el, path in reads if path in ONCE and sum(1 for e, p in reads if e is el and p == path) > 1}
    assert not repeated
