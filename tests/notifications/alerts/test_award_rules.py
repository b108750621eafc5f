"""The pure rules deciding won, lost and competitor wins from award rows."""

from __future__ import annotations

from decimal import Decimal

from notifications.alerts.award_rules import (
    LOST,
    WON,
    AwardRow,
    CardState,
    Competitor,
    Identities,
    card_outcomes,
    competitor_wins,
    identifier_key,
    identifiers_match,
    money_text,
    name_key,
    outcome_note,
    winner_rows,
)

AWARDS = [
    {"lot_id": "LOT-0001", "status": "awarded", "supplier_name": "Belgo Facility Services", "supplier_id": "0832584553",
     "value": "8819.09", "currency": "EUR"},
    {"lot_id": "LOT-0002", "status": "awarded", "supplier_name": "M&G CLEANING", "supplier_id": "0879639451",
     "value": "13768.11", "currency": "EUR"},
    {"lot_id": "LOT-0003", "status": "not_awarded", "supplier_name": "", "supplier_id": "", "value": None},
]  # fmt: skip


def test_winner_rows_leave_out_lots_without_a_winner():
    rows = winner_rows(AWARDS)
    assert [r.supplier_name for r in rows] == ["Belgo Facility Services", "M&G CLEANING"]
    assert rows[1].value == Decimal("13768.11") and rows[1].name_key == "m g cleaning"


def test_identifiers_fold_punctuation_and_keep_countries_apart():
    assert identifier_key("DE 123.456.789") == "DE123456789"
    assert identifier_key("HRB 12345 B, Amtsgericht Charlottenburg") == "HRB12345B"
    assert identifiers_match("BE0879639451", "0879639451")  # a notice without the country prefix
    assert identifiers_match("0879639451", "BE0879639451")
    assert not identifiers_match("DE123456789", "AT123456789")
    assert not identifiers_match("", "")


def test_won_from_any_open_stage_lost_only_when_submitted_closed_cards_stay():
    rows = {7: winner_rows(AWARDS), 8: winner_rows(AWARDS), 9: winner_rows(AWARDS), 10: ()}
    ours = Identities(name_keys=frozenset({name_key("M & G Cleaning GmbH")}))
    cards = [
        CardState(1, 7, is_open=True, submitted=False),
        CardState(2, 8, is_open=False, submitted=False),
        CardState(3, 10, is_open=True, submitted=True),
    ]
    assert [(o.card_id, o.outcome) for o in card_outcomes(cards=cards, awards=rows, identities=ours)] == [(1, WON)]

    nobody = Identities()
    cards = [CardState(4, 9, is_open=True, submitted=True), CardState(5, 7, is_open=True, submitted=False)]
    outcomes = card_outcomes(cards=cards, awards=rows, identities=nobody)
    assert [(o.card_id, o.outcome, len(o.rows)) for o in outcomes] == [(4, LOST, 2)]
    assert outcome_note(outcomes[0], lots=3) == (
        "verloren: Zuschlag laut Bekanntmachung an Belgo Facility Services (Los 1, 8.819,09 €); "
        "M&G CLEANING (Los 2, 13.768,11 €)"
    )


def test_by_vat_id_a_single_lot_is_named_by_value_only():
    row = AwardRow("LOT-0001", "Müller Bau", "DE123456789", Decimal("125000"), "EUR")
    ours = Identities(id_keys=frozenset({identifier_key("DE 123 456 789")}))
    [outcome] = card_outcomes(cards=[CardState(1, 5, True, False)], awards={5: (row,)}, identities=ours)
    assert outcome_note(outcome, lots=1) == "gewonnen: Zuschlag laut Bekanntmachung (125.000 €)"
    assert money_text(Decimal("1234.5"), "PLN") == "1.234,50 PLN"


def test_competitor_wins_one_per_competitor_tender_and_lot():
    rows = {7: winner_rows(AWARDS)}
    watched = [Competitor(1, name_key="belgo facility services"), Competitor(2, id_key="BE0879639451")]
    found = competitor_wins(competitors=watched, awards=rows)
    assert [(f.competitor_id, f.tender_id, f.row.lot_id) for f in found] == [(1, 7, "LOT-0001"), (2, 7, "LOT-0002")]
