"""Rebuild ``nuts_names.csv`` from the code lists of the eForms SDK (github.com/OP-TED/eForms-SDK).

Inputs (genericode files of that repository, CC BY 4.0, see ``README.md`` in this folder):

- ``codelists/nuts_nuts-deu-lvl3.gc`` at commit 3242fbf7c703810ce36eb797c467b54ce6ae7f0f
  (SDK 1.15.1): the German NUTS 2024 level-3 codes, labels in every EU language;
- ``codelists/nuts.gc`` at commit 576d4047692e5e96efa207b945207accdf10648d (SDK 1.8, NUTS 2021):
  every NUTS code with its native name and parent; the levels 1 and 2 of Germany, and the level-3
  codes NUTS 2024 retired, come from here (older notices still carry them);
- ``codelists/country.gc`` at commit 3242fbf7c703810ce36eb797c467b54ce6ae7f0f: the German and
  English name of each NUTS country (level 0).

Run from the repository root:
``python kernel/vocabulary/data/build_nuts_names.py nuts_nuts-deu-lvl3.gc nuts.gc country.gc
> kernel/vocabulary/data/nuts_names.csv``
"""

import csv
import sys

from lxml import etree

# NUTS country code -> ISO 3166-1 alpha-3 (the key of country.gc). NUTS writes Greece "EL" and the
# United Kingdom "UK"; every other NUTS country code is the ISO alpha-2 code.
NUTS_COUNTRIES = {
    "AL": "ALB", "AT": "AUT", "BE": "BEL", "BG": "BGR", "CH": "CHE", "CY": "CYP", "CZ": "CZE", "DE": "DEU",
    "DK": "DNK", "EE": "EST", "EL": "GRC", "ES": "ESP", "FI": "FIN", "FR": "FRA", "HR": "HRV", "HU": "HUN",
    "IE": "IRL", "IS": "ISL", "IT": "ITA", "LI": "LIE", "LT": "LTU", "LU": "LUX", "LV": "LVA", "ME": "MNE",
    "MK": "MKD", "MT": "MLT", "NL": "NLD", "NO": "NOR", "PL": "POL", "PT": "PRT", "RO": "ROU", "RS": "SRB",
    "SE": "SWE", "SI": "SVN", "SK": "SVK", "TR": "TUR", "UA": "UKR", "UK": "GBR", "XK": "XKX",
}  # fmt: skip


def rows(path: str) -> list[dict[str, str]]:
    # Downloaded files: no entity is expanded and nothing is fetched while parsing them.
    root = etree.parse(path, etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    return [
        {value.get("ColumnRef"): (value.findtext("SimpleValue") or "").strip() for value in row.findall("Value")}
        for row in root.find("SimpleCodeList").findall("Row")
    ]


def main(level3_path: str, nuts2021_path: str, country_path: str) -> None:
    names: dict[str, tuple[str, str]] = {}
    countries = {row["code"]: row for row in rows(country_path)}
    for nuts, alpha3 in NUTS_COUNTRIES.items():
        names[nuts] = (countries[alpha3]["deu_label"], countries[alpha3]["eng_label"])
    for row in rows(level3_path):
        names[row["code"]] = (row["deu_label"], row["eng_label"] or row["deu_label"])
    for row in rows(nuts2021_path):
        code = row["code"]
        # NUTS 2021 has native names only (``Name``), which for Germany are the German ones.
        if code.startswith("DE") and len(code) > 2 and code not in names:
            names[code] = (row["Name"], row["Name"])
    writer = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(("code", "de", "en"))
    for code in sorted(names):
        writer.writerow((code, *names[code]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
