"""Market summaries in the partner API: the page's figures, per currency and origin, behind a key and the throttle."""

from __future__ import annotations

import csv
import io

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from tenders.market import market_summary
from tests.tenders.market_corpus import BUYER, SUPPLIER, market_corpus


@pytest.fixture
def corpus(db) -> dict[str, int]:
    return market_corpus()


def test_supplier_summary_sums_per_currency_equal_its_award_rows(alpha_api, corpus):
    body = alpha_api.get("/api/v1/market/supplier/", {"name": "Hochbau Weber"}).json()
    assert (body["role"], body["name"], body["tenders_total"], body["tenders_summarised"]) == (
        "supplier",
        SUPPLIER,
        5,
        5,
    )
    assert body["totals"] == [
        {"origin": "award", "currency": "EUR", "tenders": 3, "sum": "171000.10", "median": "20000.00"},
        {"origin": "award", "currency": "CHF", "tenders": 1, "sum": "2000.00", "median": "2000.00"},
        {"origin": "award", "currency": "PLN", "tenders": 1, "sum": "14500000.00", "median": "14500000.00"},
    ]
    sums: dict[str, float] = {}
    for row in body["rows"]:
        for line in row["awards"]:
            if line["value"] is not None:
                sums[line["currency"]] = round(sums.get(line["currency"], 0) + float(line["value"]), 2)
    assert sums == {total["currency"]: float(total["sum"]) for total in body["totals"]}
    assert body["tenders_without_value"] == 1
    gorlitz = next(row for row in body["rows"] if row["tender_id"] == corpus["Brücke Görlitz"])
    assert [line["lot_id"] for line in gorlitz["awards"]] == ["LOT-1", "LOT-2"]  # LOT-1 repeated, counted once
    assert gorlitz["url"].endswith(f"/api/v1/tenders/{corpus['Brücke Görlitz']}/")
    assert gorlitz["portal_url"].endswith(f"/ausschreibung/{corpus['Brücke Görlitz']}/")


def test_buyer_summary_keeps_estimates_apart(alpha_api, corpus):
    body = alpha_api.get("/api/v1/market/buyer/", {"name": BUYER}).json()
    assert [(t["origin"], t["currency"], t["sum"]) for t in body["totals"]] == [
        ("award", "EUR", "321000.10"),
        ("award", "CHF", "2000.00"),
        ("award", "PLN", "17500000.00"),
        ("estimate", "EUR", "540000.00"),
        ("estimate", "PLN", "2000000.00"),
    ]
    radweg = next(row for row in body["rows"] if row["tender_id"] == corpus["Radweg Neiße"])
    assert radweg["amounts"] == [{"value": "40000.00", "currency": "EUR", "origin": "estimate"}]
    assert body["partners"] == [{"name": SUPPLIER, "tenders": 5}, {"name": "Budimex S.A.", "tenders": 3}]


@pytest.mark.parametrize("role", ["buyer", "supplier"])
def test_api_page_and_csv_give_the_same_totals(alpha_api, alpha_client, corpus, role):
    name = BUYER if role == "buyer" else SUPPLIER
    api = alpha_api.get(f"/api/v1/market/{role}/", {"name": name}).json()["totals"]
    path = "/markt/vergabestelle/export.csv" if role == "buyer" else "/markt/bieter/export.csv"
    text = alpha_client.get(path, {"name": name}).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    csv_totals = rows[rows.index([]) + 2 : -1]  # after the header of the totals, before "Ohne Wert"
    page = " ".join(alpha_client.get(path.removesuffix("export.csv"), {"name": name}).content.decode().split())
    expected = [(t.currency, str(t.tenders), f"{t.total:.2f}") for t in market_summary(role=role, name=name).totals]
    assert [(t["currency"], str(t["tenders"]), t["sum"]) for t in api] == expected
    assert [(line[1], line[2], line[3].replace(",", ".")) for line in csv_totals] == expected
    for currency, tenders, _sum in expected:
        assert f"({currency})</td><td>{tenders}</td>" in page


def test_a_name_is_required_and_a_key_too(alpha, alpha_api, corpus):
    missing = alpha_api.get("/api/v1/market/supplier/")
    assert missing.status_code == 400 and "name" in missing.json()["error"]["fields"]
    assert alpha_api.get("/api/v1/market/buyer/", {"name": "x" * 501}).status_code == 400
    anonymous = Client(HTTP_HOST=alpha.host).get("/api/v1/market/buyer/", {"name": BUYER})
    assert anonymous.status_code == 401


def test_unknown_names_are_an_empty_summary(alpha_api, db):
    body = alpha_api.get("/api/v1/market/supplier/", {"name": "Niemand GmbH"}).json()
    assert (body["tenders_total"], body["totals"], body["rows"]) == (0, [], [])


def test_market_endpoints_are_documented(db, tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    paths = yaml.safe_load(target.read_text(encoding="utf-8"))["paths"]
    for role in ("buyer", "supplier"):
        operation = paths[f"/api/v1/market/{role}/"]["get"]
        assert {p["name"] for p in operation["parameters"]} == {"name"}
        assert {"200", "400", "401", "429"} <= set(operation["responses"])
