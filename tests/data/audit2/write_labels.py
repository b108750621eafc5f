"""The audit's labels (labels.json), written by hand from the raw XML: the table ``H`` is the hand reading; titles,
buyer and supplier names, towns and publication numbers are copied out of the XML by the plain reader below so they
carry no typing errors. Imports nothing of the product. Run from the repository: ``python tests/data/audit2/write_labels.py``
(needs the notices unpacked into tests/data/audit2/notices/)."""

import json
from pathlib import Path

from lxml import etree

HERE = Path(__file__).resolve().parent
N = HERE / "notices"


def L(el):
    return etree.QName(el).localname if isinstance(el.tag, str) else None


def kids(el, name):
    return [c for c in el if L(c) == name]


def path(el, p):
    cur = [el]
    for s in p.split("/"):
        cur = [c for x in cur for c in kids(x, s)]
    return cur


def t(el, p):
    h = path(el, p)
    return " ".join((h[0].text or "").split()) if h else ""


def strings(name):
    r = etree.parse(str(N / name)).getroot()
    pp = path(r, "ProcurementProject")[0]
    names = path(pp, "Name")
    de = [n for n in names if n.get("languageID") == "DEU"]
    title = " ".join(((de or names)[0].text or "").split())
    buyer_id = t(path(r, "ContractingParty")[0], "Party/PartyIdentification/ID")
    ext = path(r, "UBLExtensions/UBLExtension/ExtensionContent/EformsExtension")[0]
    orgs = {
        t(c, "PartyIdentification/ID"): c for o in path(ext, "Organizations/Organization") for c in kids(o, "Company")
    }
    return title, t(orgs[buyer_id], "PartyName/Name"), orgs


def org(orgs, oid):
    return t(orgs[oid], "PartyName/Name"), t(orgs[oid], "PostalAddress/CityName")


# file: (notice_type, deadline, participation_deadline, published, procedure_type, main_cpv, nuts, postal_code, town,
#        bundesland, estimated_value, currency, lots, awards [(lot, supplier ORG id, value, currency, date, tenders, outcome)])
A, C, P = "award", "contract_notice", "prior_information"
# fmt: off
H = {
 "converter_18-156915-001-EXP.xml": (A, None, None, "2018-04-11", "restricted", "71222000", [], "", "", "Sachsen-Anhalt", None, None, 1,
    [("LOT-0000", "ORG-0002", None, None, "2018-03-27", 16, "awarded"), ("LOT-0000", "ORG-0003", None, None, "2018-03-27", 16, "awarded")]),
 "converter_18-412273-001-EXP.xml": (A, None, None, "2018-09-15", "negotiated_with_call", "45234116", ["FRL03"], "", "", "", None, None, 5,
    [("LOT-0001", "ORG-0002", "4625137.40", "EUR", "2018-08-23", 5, "awarded"), ("LOT-0002", "ORG-0004", "535873.21", "EUR", "2018-08-24", 3, "awarded"),
     ("LOT-0003", "ORG-0005", "369648.37", "EUR", "2018-08-23", 5, "awarded"), ("LOT-0004", None, None, None, None, None, "not_awarded"),
     ("LOT-0005", None, None, None, None, None, "not_awarded")]),
 "converter_19-318420-001-EXP.xml": (A, None, None, "2019-07-05", "negotiated_with_call", "79950000", ["FRI33"], "", "", "", "6500000", "EUR", 1,
    [("LOT-0000", "ORG-0002", "6883000", "EUR", "2019-05-30", 1, "awarded")]),
 "converter_20-155018-001-EXP.xml": (P, None, None, "2020-03-30", "", "45212200", ["DE26C"], "", "", "Bayern", None, None, 0, []),
 "converter_20-156983-001-EXP.xml": (C, "2020-05-08T12:00:00+01:00", None, "2020-03-31", "restricted", "45000000", ["UKM50", "UKM62", "UKM71"], "", "", "", "12000000.00", "GBP", 7, []),
 "converter_20-157399-001-EXP.xml": (A, None, None, "2020-03-31", "open", "90620000", ["NO072"], "", "", "", None, None, 1,
    [("LOT-0000", o, None, None, "2019-09-24", 6, "awarded") for o in ("ORG-0002", "ORG-0003", "ORG-0004", "ORG-0005")]),
 "converter_20-157543-001-EXP.xml": (A, None, None, "2020-03-31", "open", "79212000", [], "", "", "", None, None, 3,
    [("LOT-0001", "ORG-0002", "7834899.64", "EUR", "2020-03-18", 7, "awarded"), ("LOT-0002", "ORG-0003", "1205369.20", "EUR", "2020-03-18", 4, "awarded"),
     ("LOT-0003", "ORG-0003", "602684.60", "EUR", "2020-03-18", 4, "awarded")]),
 "converter_20-560391-001-EXP.xml": (C, "2020-12-11T12:00:00+01:00", None, "2020-11-13", "", "79100000", ["NO043", "NO051", "NO052"], "", "", "", None, None, 3, []),
 "converter_20-620029-001-EXP.xml": (C, None, None, "2020-12-11", "", "45251000", [], "", "", "Baden-Württemberg", None, None, 1, []),
 "converter_21-000061-001-EXP.xml": (A, None, None, "2021-01-06", "open", "73000000", [], "", "", "", None, None, 2, "auto"),
 "converter_21-000934-001-EXP.xml": (A, None, None, "2021-01-11", "open", "90700000", [], "", "", "", None, None, 1,
    [("LOT-0000", "ORG-0002", "1490000.00", "EUR", "2020-12-15", 1, "awarded")]),
 "converter_21-051959-001-EXP.xml": (C, "2021-03-01T08:00:00+01:00", None, "2021-02-02", "open", "80000000", ["DEE02"], "", "", "Sachsen-Anhalt", None, None, 30, []),
 "converter_21-139343-001-EXP.xml": (A, None, None, "2021-03-19", "negotiated_without_call", "75211200", ["UKM95"], "", "", "", None, None, 2,
    [("LOT-0001", "ORG-0002", "200000000.00", "GBP", "2016-10-10", None, "awarded"), ("LOT-0002", "ORG-0015", "200000000.00", "EUR", "2016-10-10", None, "awarded")]),
 "converter_21-149886-001-EXP.xml": (A, None, None, "2021-03-24", "negotiated_without_call", "92200000", ["FRF12"], "", "", "", None, None, 1,
    [("LOT-0000", "ORG-0002", "3000000", "EUR", "2021-02-24", None, "awarded")]),
 "converter_21-298854-001-EXP.xml": (A, None, None, "2021-06-11", "negotiated_without_call", "75200000", ["FRF22"], "", "", "", None, None, 6, "auto"),
 "converter_21-362579-001-EXP.xml": (A, None, None, "2021-07-13", "negotiated_with_call", "38112100", [], "", "", "", None, None, 1,
    [("LOT-0000", "ORG-0002", "1220020", "EUR", "2021-06-15", 2, "awarded")]),
 "converter_21-362774-001-EXP.xml": (C, "2021-08-10T09:30:00+01:00", None, "2021-07-13", "open", "45317000", ["DE23A"], "", "", "Bayern", "40000", "EUR", 1, []),
 "converter_21-363066-001-EXP.xml": (C, "2021-08-10T10:00:00+01:00", None, "2021-07-13", "negotiated_with_call", "71320000", [], "", "", "Hessen", None, None, 1, []),
 "converter_21-364240-001-EXP.xml": (A, None, None, "2021-07-13", "restricted", "85300000", ["SE121"], "", "", "", None, None, 1,
    [("LOT-0000", None, None, None, None, None, "not_awarded")]),
 "converter_21-635824-001-EXP.xml": (A, None, None, "2021-12-08", "", "80570000", ["DE712"], "", "", "Hessen", None, None, 1,
    [("LOT-0001", "ORG-0002", "1500000.00", "EUR", "2021-11-24", 9, "awarded"), ("LOT-0001", "ORG-0003", "1500000.00", "EUR", "2021-11-19", 9, "awarded")]),
 "converter_22-023722-001-EXP.xml": (A, None, None, "2022-01-18", "negotiated_without_call", "79340000", [], "", "", "", None, None, 4, "auto"),
 "converter_22-086633-001-EXP.xml": (A, None, None, "2022-02-18", "open", "33151400", [], "", "", "", None, None, 8, "auto"),
 "converter_22-091559-001-EXP.xml": (A, None, None, "2022-02-21", "open", "33600000", [], "", "", "Baden-Württemberg", None, None, 5, "auto"),
 "converter_22-104446-001-EXP.xml": (C, "2022-03-23T12:00:00+01:00", None, "2022-02-28", "open", "71600000", [], "", "", "", None, None, 3, []),
 "converter_22-109282-001-EXP.xml": (A, None, None, "2022-03-03", "open", "85120000", ["ITC41"], "", "", "", None, None, 3, "auto"),
 "ted_2024-OJS012-00032045.xml": (C, "2024-03-18T12:00:00+01:00", None, "2024-01-17", "open", "71000000", ["AT312"], "", "Leonding", "", None, None, 1, []),
 "ted_2024-OJS015-00041387.xml": (C, "2024-03-04T12:00:00+02:00", None, "2024-01-22", "restricted", "71000000", ["FRI23"], "", "Saint-Yrieix-la-Perche", "", None, None, 1, []),
 "ted_2024-OJS017-00047522.xml": (C, "2024-02-28T12:00:00+02:00", None, "2024-01-24", "open", "90511100", ["FRJ12"], "", "", "", None, None, 2, []),
 "ted_2024-OJS018-00050164.xml": (C, "2024-04-11T15:00:00+01:00", None, "2024-01-25", "open", "71300000", ["AT312"], "", "", "", None, None, 1, []),
 "ted_2024-OJS028-00082127.xml": (P, None, None, "2024-02-08", "negotiated_with_call", "45000000", ["AT332"], "", "Innsbruck", "", None, None, 1, []),
 "ted_2024-OJS044-00127505.xml": (P, None, None, "2024-03-01", "other", "79610000", [], "", "", "", "1000000", "EUR", 1, []),
 "ted_2024-OJS044-00128154.xml": (C, "2024-03-18T11:30:00+01:00", None, "2024-03-01", "open", "34110000", ["PL912"], "", "", "", None, None, 7, []),
 "ted_2024-OJS044-00129266.xml": (C, None, "2024-04-18T12:00:00+02:00", "2024-03-01", "restricted", "71200000", ["FRE12"], "", "AIX NOULETTE", "", None, None, 1, []),
 "ted_2024-OJS047-00137599.xml": (P, None, None, "2024-03-06", "competitive_dialogue", "09121000", [], "", "", "", None, None, 1, []),
 "ted_2024-OJS048-00140913.xml": (C, None, None, "2024-03-07", "", "45200000", [], "", "", "", None, None, 1, []),
 "ted_2024-OJS052-00152054.xml": (P, None, None, "2024-03-13", "", "55400000", ["BE255"], "", "", "", "12960000", "EUR", 1, []),
 "ted_2024-OJS056-00163529.xml": (C, None, "2024-04-15T14:00:00+02:00", "2024-03-19", "restricted", "79710000", ["BE211"], "", "Antwerpen", "", None, None, 1, []),
 "ted_2024-OJS064-00189213.xml": (C, "2024-05-27T12:00:00+00:00", None, "2024-03-29", "open", "79100000", [], "", "", "", "40040000", "EUR", 4, []),
 "ted_2024-OJS198-00612681.xml": (C, "2024-11-18T10:00:00+01:00", None, "2024-10-10", "open", "85149000", "lots", "", "", "", None, None, 25, []),
 # Doffin: a change of the procedure 7e315dc5-… (no publication date: the dispatch day stands for it); the tender's
 # publication is its first notice's, doffin_2023-100718 of 2023-11-09 (first labelled 2023-12-06, see AUDIT.md)
 "doffin_2023-101942.xml": ("change", None, None, "2023-11-09", "negotiated_with_call", "33111700", ["NO074"], "", "", "", None, None, 1, []),
}
# The procedure's earlier notice: one tender with the change above, whose fields it shows (the newer version).
SAME_TENDER = {"doffin_2023-100718.xml": "doffin_2023-101942.xml"}
# fmt: on


def auto_awards(name, orgs):
    """Where every lot result names its own tenders and contracts one to one: (lot, lead tenderer) per signed tender,
    read the simple way; used only on notices whose raw dump showed that shape (checked by hand)."""
    r = etree.parse(str(N / name)).getroot()
    ext = path(r, "UBLExtensions/UBLExtension/ExtensionContent/EformsExtension")[0]
    nr = path(ext, "NoticeResult")[0]
    tenders = {t(x, "ID"): x for x in path(nr, "LotTender")}
    parties = {t(x, "ID"): x for x in path(nr, "TenderingParty")}
    contracts = {t(x, "ID"): x for x in path(nr, "SettledContract")}
    rows = []
    for lr in path(nr, "LotResult"):
        lot = t(lr, "TenderLot/ID")
        code = t(lr, "TenderResultCode")
        stats = {
            t(s, "StatisticsCode"): int(t(s, "StatisticsNumeric")) for s in path(lr, "ReceivedSubmissionsStatistics")
        }
        if code == "clos-nw":
            rows.append((lot, None, None, None, None, stats.get("tenders"), "not_awarded"))
            continue
        for tid in [t(x, "ID") for x in path(lr, "LotTender")]:
            ten = tenders[tid]
            signed = [c for c in contracts.values() if tid in [t(x, "ID") for x in path(c, "LotTender")]]
            if not signed:
                continue
            tp = parties[t(ten, "TenderingParty/ID")]
            members = path(tp, "Tenderer")
            lead = next((m for m in members if t(m, "GroupLeadIndicator") == "true"), members[0])
            amount = path(ten, "LegalMonetaryTotal/PayableAmount")
            rows.append(
                (
                    lot,
                    t(lead, "ID"),
                    amount[0].text if amount else None,
                    amount[0].get("currencyID") if amount else None,
                    t(signed[0], "IssueDate")[:10] or None,
                    stats.get("tenders"),
                    "awarded",
                )
            )
    return rows


labels = {}
for name, (kind, dl, part, pub, ptype, cpv, nuts, plz, town, land, value, cur, lots, awards) in H.items():
    title, buyer, orgs = strings(name)
    if nuts == "lots":  # every lot's own NUTS, 25 lots
        r = etree.parse(str(N / name)).getroot()
        nuts = sorted(
            {
                t(x, "Address/CountrySubentityCode")
                for lot_el in path(r, "ProcurementProjectLot")
                for x in path(lot_el, "ProcurementProject/RealizedLocation")
            }
            - {""}
        )
    if awards == "auto":
        awards = auto_awards(name, orgs)
    rows = []
    for lot, oid, val, curr, day, received, outcome in awards:
        supplier, stown = org(orgs, oid) if oid else (None, None)
        rows.append(
            {
                "lot": lot,
                "supplier": supplier,
                "town": stown,
                "value": val,
                "currency": curr,
                "date": day,
                "tenders_received": received,
                "outcome": outcome,
            }
        )
    r = etree.parse(str(N / name)).getroot()
    ext = path(r, "UBLExtensions/UBLExtension/ExtensionContent/EformsExtension")[0]
    number, _, year = t(ext, "Publication/NoticePublicationID").partition("-")
    labels[name] = {
        "publication_number": f"{int(number)}-{year}" if number else None,
        "notice_id": t(r, "ID"),
        "notice_type": kind,
        "title": title,
        "buyer": buyer,
        "deadline": dl,
        "participation_deadline": part,
        "published": pub,
        "procedure_type": ptype,
        "main_cpv": cpv,
        "nuts": sorted(nuts),
        "postal_code": plz,
        "town": town,
        "bundesland": land,
        "estimated_value": value,
        "currency": cur,
        "lots": lots,
        "awards": rows,
    }
for name, other in SAME_TENDER.items():
    notice_id = t(etree.parse(str(N / name)).getroot(), "ID")
    labels[name] = {"publication_number": None, "notice_id": notice_id, "same_tender_as": other}
(HERE / "labels.json").write_text(json.dumps(labels, ensure_ascii=False, indent=1) + "\n")
print(len(labels), sum(len(v.get("awards", ())) for v in labels.values()))
