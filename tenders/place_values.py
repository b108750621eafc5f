"""Parsers of the place filters: Landkreis / kreisfreie Stadt (``kreis``) and a radius around a
postcode (``umkreis_plz`` + ``umkreis_km``). Pure; same contract as ``tenders.filter_values``.

A Kreis is stored by its Kreisschlüssel ("09162"): it is named by key, NUTS-3 code ("DE212") or
exact name ("München, Landkreis", "Landkreis München"), so a partner can send what a notice carries
and the portal what its picker shows. The radius takes both parts or neither: a postcode without a
distance (or the other way round) would silently mean something the user did not choose.
"""

from __future__ import annotations

import re

from kernel.vocabulary.places import kreis_lookup, postcode_point
from tenders.filter_values import raw_values

MIN_RADIUS_KM = 1
MAX_RADIUS_KM = 300  # beyond it a radius is most of Germany: a Bundesland filter says that better


def kreise(params, name: str, errors: dict[str, str]) -> tuple[str, ...]:
    keys = []
    # A name holds a comma ("München, Landkreis"): a value that names a Kreis as a whole is not split.
    parts = [
        part.strip()
        for value in raw_values(params, name)
        for part in ([value] if kreis_lookup(value) else value.split(","))
        if part.strip()
    ]
    for raw in parts:
        if (kreis := kreis_lookup(raw)) is None:
            errors[name] = (
                f"Unbekannter Landkreis bzw. kreisfreie Stadt {raw!r}: Kreisschlüssel (5 Ziffern), "
                "NUTS-3-Code (z. B. DE212) oder Namen wie „München, Landkreis“ angeben."
            )
        else:
            keys.append(kreis.key)
    return tuple(dict.fromkeys(keys))


def _single(params, name: str) -> str:
    # No comma splitting: "70173, 50" in one field is a typo, not two values.
    values = [value.strip() for value in raw_values(params, name) if value.strip()]
    return values[0] if values else ""


def radius_postcode(params, name: str, errors: dict[str, str]) -> str:
    plz = _single(params, name)
    if not plz:
        return ""
    if not re.fullmatch(r"[0-9]{5}", plz):
        errors[name] = "Umkreis: die PLZ hat 5 Ziffern."
        return ""
    if postcode_point(plz) is None:
        errors[name] = f"Die PLZ {plz} ist nicht bekannt; bitte eine deutsche Postleitzahl angeben."
        return ""
    if not _single(params, "umkreis_km"):
        errors["umkreis_km"] = f"Umkreis: bitte die Entfernung in km angeben ({MIN_RADIUS_KM} bis {MAX_RADIUS_KM})."
    return plz


def radius_km(params, name: str, errors: dict[str, str]) -> int | None:
    raw = _single(params, name)
    if not raw:
        return None
    match = re.fullmatch(r"([0-9]{1,4})\s*(km)?", raw, flags=re.IGNORECASE)
    if match is None or not MIN_RADIUS_KM <= int(match.group(1)) <= MAX_RADIUS_KM:
        errors[name] = f"Umkreis: eine ganze Zahl von {MIN_RADIUS_KM} bis {MAX_RADIUS_KM} km."
        return None
    if not _single(params, "umkreis_plz"):
        errors["umkreis_plz"] = "Umkreis: bitte die PLZ angeben, um die gesucht wird."
    return int(match.group(1))
