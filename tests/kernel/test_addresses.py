import pytest

from kernel.addresses import (
    bundesland_for_place,
    country_is_germany,
    name_without_contact_block,
    split_town,
    town_in_text,
)
from kernel.identifiers import canonical_publication_number
from kernel.placeholders import placeholder_amount, plausible_buyer_id, without_placeholder


def test_split_town_legacy_forms():
    assert split_town("10178 Berlin", "") == ("Berlin", "10178")  # real legacy DÖE notice 17750180
    assert split_town("10178 Alexanderstraße 3, Berlin", "") == ("Berlin", "10178")
    assert split_town("Garching", "85748") == ("Garching", "85748")
    assert split_town("Frankfurt, Main", "") == ("Frankfurt, Main", "")


def test_split_town_drops_a_street_without_house_number():
    # Real legacy DÖE award 19191760 (Kreis Pinneberg): "PLZ street, town" with a street named "Am Rathaus".
    assert split_town("25421 Am Rathaus, Pinneberg", "") == ("Pinneberg", "25421")
    assert split_town("04109 In der Aue, Leipzig", "") == ("Leipzig", "04109")
    assert split_town("10178 Hauptstraße, Berlin", "") == ("Berlin", "10178")
    # A town with a qualifier after its comma stays whole.
    assert split_town("25813 Husum, Nordsee", "") == ("Husum, Nordsee", "25813")
    assert split_town("15230 Frankfurt, Oder", "") == ("Frankfurt, Oder", "15230")


def test_name_without_contact_block():
    assert (
        name_without_contact_block("Landratsamt Harz\nFriedrich-Ebert-Str. 42\n38820 Halberstadt") == "Landratsamt Harz"
    )
    assert name_without_contact_block("Amt X Tel. 030 123 E-Mail: a@b.de") == "Amt X"
    assert name_without_contact_block("Stiftung Humboldt Forum im Berliner Schloss") == (
        "Stiftung Humboldt Forum im Berliner Schloss"
    )


def test_town_in_text():
    assert town_in_text("Landkreis Harz\nSternstraße 11\n38820 Halberstadt") == ("Halberstadt", "38820")
    assert town_in_text("ganz Deutschland") == ("", "")


def test_bundesland_for_place():
    assert bundesland_for_place(nuts_codes=("DE212",), postal_code="85748", country="DEU") == "Bayern"
    assert bundesland_for_place(nuts_codes=("DE212",), postal_code="10178", country="DEU") == "Berlin"
    assert bundesland_for_place(nuts_codes=(), postal_code="38820", country="") == "Sachsen-Anhalt"
    assert bundesland_for_place(nuts_codes=(), postal_code="", country="", buyer_nuts="DE3") == "Berlin"
    assert bundesland_for_place(nuts_codes=("AT130",), postal_code="", country="", buyer_nuts="DE3") == ""
    assert bundesland_for_place(nuts_codes=(), postal_code="", country="AUT", buyer_nuts="DE3") == ""


def test_a_foreign_buyers_postcode_is_no_german_place():
    # Two TED notices of an Italian buyer in Ispra (PLZ 21027, no place of performance stated) were filed
    # under Hamburg, whose postcodes start 20-22.
    assert (
        bundesland_for_place(nuts_codes=(), postal_code="", country="", buyer_postal_code="21027", buyer_country="ITA")
        == ""
    )
    assert bundesland_for_place(nuts_codes=(), postal_code="21027", country="", buyer_country="ITA") == ""
    assert (
        bundesland_for_place(nuts_codes=(), postal_code="", country="", buyer_postal_code="21027", buyer_country="DEU")
        == "Hamburg"
    )
    assert bundesland_for_place(nuts_codes=(), postal_code="21027", country="DEU", buyer_country="ITA") == "Hamburg"


def test_a_foreign_buyers_seat_names_no_land_even_for_a_place_in_germany():
    # A French buyer's work in Germany with no postcode or NUTS code: Paris 75015 is also Bretten's postcode.
    place = {"nuts_codes": (), "postal_code": "", "country": "DEU"}
    assert bundesland_for_place(**place, buyer_postal_code="75015", buyer_country="FRA") == ""
    assert bundesland_for_place(**place, buyer_postal_code="75015", buyer_country="DEU") == "Baden-Württemberg"
    assert bundesland_for_place(**place, buyer_nuts="FR101", buyer_country="FRA") == ""


@pytest.mark.parametrize(
    ("nuts_codes", "postal_code", "country"),
    [
        (("AT130",), "", ""),  # a place abroad by its NUTS code
        (("FR101",), "75015", ""),  # a foreign postcode beside a foreign NUTS code
        (("CH031",), "", "DEU"),  # only foreign NUTS codes: the country field is the buyer's
        ((), "75015", "FRA"),
        (("DE212",), "80331", "AUT"),  # a stated foreign country wins over German-looking codes
    ],
)
def test_no_land_for_a_place_abroad(nuts_codes, postal_code, country):
    place = {"nuts_codes": nuts_codes, "postal_code": postal_code, "country": country}
    assert bundesland_for_place(**place, buyer_nuts="DE212", buyer_postal_code="80331") == ""


def test_a_german_nuts_code_names_its_land_by_level_one():
    assert bundesland_for_place(nuts_codes=("AT130", "DEA23"), postal_code="", country="DEU") == "Nordrhein-Westfalen"
    assert bundesland_for_place(nuts_codes=("DEG0N",), postal_code="", country="") == "Thüringen"


def test_publication_numbers():
    assert canonical_publication_number("00615938-2024") == "615938-2024"
    assert canonical_publication_number("615938-2024") == "615938-2024"
    assert canonical_publication_number("2024/S 123-615938") == "615938-2024"
    assert canonical_publication_number("24d29507-f9dd-4712-aef0-9d864df3af8e") == ""


def test_placeholders():
    from decimal import Decimal

    assert placeholder_amount(Decimal("1")) and placeholder_amount(Decimal("0"))
    assert not placeholder_amount(Decimal("1.01")) and not placeholder_amount(None)
    assert without_placeholder("Standort der beauftragten Firma") == ""
    assert without_placeholder("Halle (Saale)") == "Halle (Saale)"
    assert plausible_buyer_id("-") == "" and plausible_buyer_id("Stadt Worms") == ""
    assert plausible_buyer_id("991-12345-67") == "991-12345-67"


@pytest.mark.parametrize(("country", "german"), [("DEU", True), ("de", True), ("", True), (None, True), ("FRA", False)])
def test_a_postcode_is_a_plz_only_in_germany_or_where_no_country_is_stated(country, german):
    assert country_is_germany(country) is german
