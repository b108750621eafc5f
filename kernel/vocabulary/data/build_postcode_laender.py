"""Rebuild ``postcode_laender.txt`` from the GeoNames-derived German postcode list.

Input: ``zipcodes.de.csv`` from github.com/zauberware/postal-codes-json-xml-csv (``data/DE.zip``,
commit a6e8df1e94385a76d8c8c2f8260b2cd020298c19), itself GeoNames' DE postal code dump (CC BY 4.0).
Run (from the repository root, output to ``kernel/vocabulary/data/postcode_laender.txt``):
``python kernel/vocabulary/data/build_postcode_laender.py zipcodes.de.csv > …/postcode_laender.txt``

Output: one line per run of consecutive known postcodes in one Land, ``<first>-<last> <Land code>``.
A postcode listed under several Länder (a few straddle a border, a few are company postcodes) ends a
run and is left out: it decides nothing.
"""

import collections
import csv
import sys

# GeoNames mixes German and English state names.
LAND_CODES = {
    "Baden-Württemberg": "BW",
    "Bayern": "BY",
    "Bavaria": "BY",
    "Berlin": "BE",
    "Land Berlin": "BE",
    "Brandenburg": "BB",
    "Bremen": "HB",
    "Hamburg": "HH",
    "Hessen": "HE",
    "Mecklenburg-Vorpommern": "MV",
    "Mecklenburg-Western Pomerania": "MV",
    "Niedersachsen": "NI",
    "Lower Saxony": "NI",
    "Nordrhein-Westfalen": "NW",
    "Rheinland-Pfalz": "RP",
    "Saarland": "SL",
    "Sachsen": "SN",
    "Saxony": "SN",
    "Sachsen-Anhalt": "ST",
    "Saxony-Anhalt": "ST",
    "Schleswig-Holstein": "SH",
    "Thüringen": "TH",
    "Thuringia": "TH",
}


def main(path: str) -> None:
    lands: dict[str, set[str]] = collections.defaultdict(set)
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            code = row["zipcode"].strip()
            if len(code) == 5 and code.isdigit() and row["state"] in LAND_CODES:
                lands[code].add(LAND_CODES[row["state"]])
    runs: list[list] = []
    for code in sorted(lands):
        land = next(iter(lands[code])) if len(lands[code]) == 1 else None
        if runs and land is not None and runs[-1][2] == land:
            runs[-1][1] = code
        else:
            runs.append([code, code, land])
    for first, last, land in runs:
        if land is not None:
            sys.stdout.write(f"{first}-{last} {land}\n")


if __name__ == "__main__":
    main(sys.argv[1])
