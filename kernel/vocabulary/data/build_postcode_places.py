"""Rebuild ``postcode_places.txt`` and ``kreise.csv`` from the GeoNames-derived German postcode list.

Input: ``zipcodes.de.csv`` from github.com/zauberware/postal-codes-json-xml-csv (``data/DE.zip``,
commit a6e8df1e94385a76d8c8c2f8260b2cd020298c19), itself GeoNames' DE postal code dump (CC BY 4.0),
and ``nuts_names.csv`` beside this script (the NUTS-3 names). Run from the repository root:
``python kernel/vocabulary/data/build_postcode_places.py zipcodes.de.csv`` (writes both files here).

``postcode_places.txt``: ``<PLZ> <lat> <lon> <Kreis key>[,<Kreis key>…]``, one line per postcode; the
point is the mean of the postcode's GeoNames places (4 decimals, about 10 m), the keys are every
Kreis (5-digit Kreisschlüssel, the AGS' first five digits) one of its places lies in.
``kreise.csv``: ``key;nuts;name;lat;lon``, one line per Kreis; ``nuts`` its NUTS-3 codes (space
separated: Thuringia's Kreise carry their NUTS 2021 and 2024 codes), the point the mean of its
places, the name the NUTS name when one was matched, else GeoNames' name.

NUTS-3 codes are matched by name within the Land (GeoNames keys do not name NUTS codes): both
names are reduced to a base name and a kind (kreisfreie Stadt / Landkreis, from "Kreisfreie Stadt",
"Stadtkreis", "Landkreis", "Kreis" and NUTS' ", Kreisfreie Stadt" / ", Landkreis" suffixes), the
abbreviations NUTS uses are spelled out, and a NUTS name without a kind matches a base name that is
unique in its Land. ``MANUAL`` lists what names cannot decide, each checked by hand.
"""

from __future__ import annotations

import collections
import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent

# AGS Land key (first two digits) -> NUTS level 1.
LAND_NUTS = {
    "01": "DEF", "02": "DE6", "03": "DE9", "04": "DE5", "05": "DEA", "06": "DE7", "07": "DEB", "08": "DE1",
    "09": "DE2", "10": "DEC", "11": "DE3", "12": "DE4", "13": "DE8", "14": "DED", "15": "DEE", "16": "DEG",
}  # fmt: skip

# Kreis key -> NUTS-3 codes, where names do not decide (each checked against the NUTS 2024 list):
MANUAL = {
    "02000": ("DE600",),  # "Hamburg, Freie und Hansestadt" - "Hamburg"
    "11000": ("DE300",),  # "Berlin, Stadt" - "Berlin"
    # Eisenach joined the Wartburgkreis in 2021 (GeoNames lists its postcodes there): its old code too.
    "16063": ("DEG0P", "DEG0R", "DEG0N"),
    "07132": ("DEB13",),  # "Landkreis Altenkirchen" - "Altenkirchen (Westerwald)"
    "09471": ("DE245",),  # "Bamberg" (the Landkreis: Bavarian city keys are 09x6x) - "Bamberg, Landkreis"
    "09564": ("DE254",),  # "Nuremberg" - "Nürnberg, Kreisfreie Stadt"
    "09762": ("DE272",),  # "Kaufbeuren" - "Kaufbeuren, Kreisfreie Stadt"
    "09763": ("DE273",),  # "Kreisfreie Stadt Kempten" - "Kempten (Allgäu), Kreisfreie Stadt"
    "09776": ("DE27A",),  # "Landkreis Lindau" - "Lindau (Bodensee)"
    "14628": ("DED2F",),  # "Landkreis Sächsische Schweiz" - "Sächsische Schweiz-Osterzgebirge"
    "15002": ("DEE02",),  # "Kreisfreie Stadt Halle" - "Halle (Saale), Kreisfreie Stadt"
    "15003": ("DEE03",),  # "Landeshauptstadt Magdeburg" - "Magdeburg, Kreisfreie Stadt"
}

_ABBREVIATIONS = (
    (r"\ba\. ?d\. ?", "an der "),
    (r"\bi\. ?d\. ?", "in der "),
    (r"\ba\. ?", "am "),
    (r"\bi\. ?", "im "),
    (r"\bopf\.?", "oberpfalz"),
)


def _base(name: str) -> tuple[str, str]:
    """(base name, kind) of a Kreis name; kind "stadt", "land" or "" (not said)."""
    text = name.strip()
    kind = ""
    for pattern, found in (
        (r"^(kreisfreie stadt|stadtkreis|stadt) ", "stadt"),
        (r"^(landkreis|kreis) ", "land"),
        (r", (kreisfreie stadt|stadtkreis|stadt|hansestadt|freie und hansestadt)$", "stadt"),
        (r", (landkreis|kreis)$", "land"),
    ):
        lowered = text.lower()
        if match := re.search(pattern, lowered):
            kind = found
            text = text[: match.start()] + text[match.end() :]
    text = text.lower()
    for pattern, spelled in _ABBREVIATIONS:
        text = re.sub(pattern, spelled, text)
    text = re.sub(r"\s*\((de|landkreis)\)", "", text)  # "Friesland (DE)"
    text = re.sub(r"[^a-zäöüß0-9]+", " ", text).strip()
    text = text.replace("stadtregion", "städteregion")
    return text, kind


def _nuts3_names() -> dict[str, str]:
    with (HERE / "nuts_names.csv").open(encoding="utf-8", newline="") as handle:
        return {
            row["code"]: row["de"]
            for row in csv.DictReader(handle)
            if re.fullmatch(r"DE[0-9A-G][0-9A-Z]{2}", row["code"])
        }


def _matched(key: str, names: set[str], nuts3: dict[str, str]) -> tuple[str, ...]:
    if key in MANUAL:
        return MANUAL[key]
    land = LAND_NUTS[key[:2]]
    in_land = {code: _base(name) for code, name in nuts3.items() if code.startswith(land)}
    bases = {_base(name) for name in names}
    found = set()
    for base, kind in bases:
        same_base = {code: nuts_kind for code, (nuts_base, nuts_kind) in in_land.items() if nuts_base == base}
        if kind:
            # "München, Landkreis" for "Landkreis München"; "Göppingen" (no city of that name) too.
            exact = {code for code, nuts_kind in same_base.items() if nuts_kind == kind}
            found |= exact or {code for code, nuts_kind in same_base.items() if nuts_kind == ""}
        elif len(set(same_base.values())) == 1:
            # "Frankfurt (Oder)": one kind of that name in the Land, so no doubt which.
            found |= set(same_base)
    return tuple(sorted(found))


def main(path: str) -> None:
    places: dict[str, list[tuple[float, float, str]]] = collections.defaultdict(list)
    kreis_names: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            code, key = row["zipcode"].strip(), row["community_code"].strip()
            if not (len(code) == 5 and code.isdigit() and re.fullmatch(r"[0-9]{5}", key)):
                continue
            places[code].append((float(row["latitude"]), float(row["longitude"]), key))
            kreis_names[key][row["community"].strip()] += 1
    nuts3 = _nuts3_names()
    kreis_points: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    with (HERE / "postcode_places.txt").open("w", encoding="utf-8") as out:
        for code in sorted(places):
            rows = places[code]
            lat = sum(r[0] for r in rows) / len(rows)
            lon = sum(r[1] for r in rows) / len(rows)
            keys = sorted({r[2] for r in rows})
            out.write(f"{code} {lat:.4f} {lon:.4f} {','.join(keys)}\n")
            for key in keys:
                points = [(r[0], r[1]) for r in rows if r[2] == key]
                kreis_points[key].append(
                    (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
                )
    unmatched = []
    with (HERE / "kreise.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter=";", lineterminator="\n")
        writer.writerow(["key", "nuts", "name", "lat", "lon"])
        for key in sorted(kreis_names):
            codes = _matched(key, set(kreis_names[key]), nuts3)
            if not codes:
                unmatched.append((key, dict(kreis_names[key])))
            # The name with the kind in it ("Landkreis München"), when GeoNames has several spellings.
            geonames_name = max(kreis_names[key], key=lambda name: (bool(_base(name)[1]), kreis_names[key][name]))
            # The NUTS name of its first code (by MANUAL's order, else the newest, Thuringia's 2024 code).
            first = codes[0] if key in MANUAL else codes[-1] if codes else ""
            name = nuts3.get(first, geonames_name)
            points = kreis_points[key]
            lat = sum(p[0] for p in points) / len(points)
            lon = sum(p[1] for p in points) / len(points)
            writer.writerow([key, " ".join(codes), name, f"{lat:.4f}", f"{lon:.4f}"])
    codes_used = collections.Counter(
        code for key in kreis_names for code in _matched(key, set(kreis_names[key]), nuts3)
    )
    twice = [code for code, count in codes_used.items() if count > 1]
    sys.stderr.write(
        f"{len(places)} postcodes, {len(kreis_names)} Kreise, unmatched {unmatched}, codes used twice {twice}\n"
    )
    sys.stderr.write(f"NUTS-3 codes not matched: {sorted(set(nuts3) - set(codes_used))}\n")


if __name__ == "__main__":
    main(sys.argv[1])
