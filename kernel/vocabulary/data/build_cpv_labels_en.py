"""Rebuild ``cpv_labels_en.csv.gz``: the official English labels of CPV 2008 for every code of ``cpv_labels.csv``.

Input: ``product_code_cpv/data/product_template_cpv.xml`` of github.com/OCA/product-attribute at commit
1a9474bb0e0503047da6ec0b385e241e5d5131e8, which lists the main vocabulary of Regulation (EC) No 213/2008
with its English labels (codes without leading zero and check digit; see ``README.md`` in this folder).

Run from the repository root:
``python kernel/vocabulary/data/build_cpv_labels_en.py product_template_cpv.xml``
"""

import csv
import gzip
import io
import sys
from pathlib import Path

from lxml import etree

HERE = Path(__file__).resolve().parent


def english_labels(path: str) -> dict[str, str]:
    # A downloaded file: no entity is expanded and nothing is fetched while parsing it.
    root = etree.parse(path, etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    labels = {}
    for record in root.iter("record"):
        fields = {field.get("name"): (field.text or "").strip() for field in record.findall("field")}
        labels[fields["code"].zfill(8)] = " ".join(fields["name"].split())
    return labels


def main(xml_path: str) -> None:
    with (HERE / "cpv_labels.csv").open(encoding="utf-8", newline="") as handle:
        codes = [row["code"].split("-", 1)[0] for row in csv.DictReader(handle)]
    english = english_labels(xml_path)
    missing = [code for code in codes if not english.get(code)]
    if missing:
        sys.exit(f"no English label for {len(missing)} codes, e.g. {missing[:5]}")
    text = io.StringIO()
    writer = csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(("code", "name"))
    for code in codes:  # only the codes of the German list: the input also holds a stray "00000004"
        writer.writerow((code, english[code]))
    # mtime=0: the same input gives the same bytes.
    with gzip.GzipFile(HERE / "cpv_labels_en.csv.gz", "wb", compresslevel=9, mtime=0) as out:
        out.write(text.getvalue().encode("utf-8"))


if __name__ == "__main__":
    main(sys.argv[1])
