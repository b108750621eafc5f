"""Rebuild ``country_names.csv`` from the country code list of the eForms SDK (github.com/OP-TED/eForms-SDK).

Input: ``codelists/country.gc`` at commit 3242fbf7c703810ce36eb797c467b54ce6ae7f0f (SDK 1.15.1,
CC BY 4.0, see ``README.md`` in this folder): every ISO 3166-1 alpha-3 code eForms knows, with its
label in every EU language; the German and English ones are kept.

Run from the repository root:
``python kernel/vocabulary/data/build_country_names.py country.gc > kernel/vocabulary/data/country_names.csv``
"""

import csv
import sys

from build_nuts_names import rows


def main(country_path: str) -> None:
    writer = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(("code", "de", "en"))
    for row in sorted(rows(country_path), key=lambda row: row["code"]):
        writer.writerow((row["code"], row["deu_label"], row["eng_label"] or row["deu_label"]))


if __name__ == "__main__":
    main(sys.argv[1])
