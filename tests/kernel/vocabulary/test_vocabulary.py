from kernel.vocabulary.contract_nature import contract_nature_code
from kernel.vocabulary.legal_basis import above_eu_threshold, legal_basis_code, legal_basis_label
from kernel.vocabulary.postcodes import bundesland_for_postcode
from kernel.vocabulary.procedures import procedure_type_code


def test_legal_basis_codes_and_labels():
    assert legal_basis_code("vgv") == "vgv" and legal_basis_label("vgv") == "VgV"
    assert legal_basis_code("VOB/A EU") == "vob-a-eu" and legal_basis_label("vob-a-eu") == "VOB/A-EU"
    assert legal_basis_code("UVgO") == "uvgo"
    assert legal_basis_code("32014L0025") == "eu-2014-25"
    assert legal_basis_code("") == "" and legal_basis_code("Landesrecht XY") == "other"
    assert above_eu_threshold(["vgv"]) is True
    assert above_eu_threshold(["uvgo"]) is False
    assert above_eu_threshold(["other"]) is None


def test_eforms_de_procedure_codes():
    assert procedure_type_code("de-open") == "public_tender"
    assert procedure_type_code("de-restricted-wo-call") == "limited_tender"
    assert procedure_type_code("de-comp-wo-call") == "negotiated_award"


def test_contract_nature():
    assert contract_nature_code("goods") == "supplies"
    assert contract_nature_code("works") == "works"
    assert contract_nature_code("combined") == ""


def test_postcode_table():
    assert bundesland_for_postcode("85748") == "Bayern"
    assert bundesland_for_postcode("67547") == "Rheinland-Pfalz"
    assert bundesland_for_postcode("99084") == "Thüringen"
    assert bundesland_for_postcode("1234") == "" and bundesland_for_postcode("00000") == ""
