"""German postcodes as places: their point, their Kreis (Landkreis or kreisfreie Stadt), distances.

From GeoNames' postal codes (``data/postcode_places.txt`` and ``data/kreise.csv``, see
``data/README.md``), shipped with the package: nothing is downloaded at run time.

- A postcode's point is the mean of its GeoNames places: a rural postcode spanning several
  villages sits between them, so a radius is measured from about the middle of the postcode area.
- A Kreis is named by its Kreisschlüssel (the first five digits of the AGS, "09162"), carries its
  NUTS-3 codes (matched by name, several in Thuringia: NUTS 2021 and 2024) and a point, the mean
  of its postcodes' points, which stands in for a place known only by its NUTS-3 code.
- A postcode crossing a Kreis border (178 of 10,813) belongs to each of its Kreise.

Distances are great-circle distances (haversine) on a sphere of the Earth's mean radius: within
Germany they differ from the ellipsoid by under 0.5 %, far below the size of a postcode area.
"""

from __future__ import annotations

import csv
import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kernel.vocabulary.folding import typed_fold
from kernel.vocabulary.regions import normalise_nuts

_DATA = Path(__file__).with_name("data")
EARTH_RADIUS_KM = 6371.0088  # IUGG mean radius
_KM_PER_DEGREE_LATITUDE = math.pi * EARTH_RADIUS_KM / 180


@dataclass(frozen=True)
class Point:
    lat: float
    lon: float


@dataclass(frozen=True)
class Kreis:
    key: str  # Kreisschlüssel, 5 digits
    name: str  # the NUTS name ("München, Kreisfreie Stadt"), GeoNames' where NUTS has none
    nuts: tuple[str, ...]  # NUTS-3 codes
    point: Point


@dataclass(frozen=True)
class _Places:
    points: dict[str, Point]  # postcode -> point
    kreise_of: dict[str, tuple[str, ...]]  # postcode -> Kreis keys
    kreise: dict[str, Kreis]  # key -> Kreis
    by_nuts: dict[str, str]  # NUTS-3 code -> Kreis key
    postcodes_of: dict[str, tuple[str, ...]]  # Kreis key -> postcodes
    # Postcodes sorted by latitude, for a band search before the exact distance, with their unit vectors.
    latitudes: tuple[float, ...]
    by_latitude: tuple[tuple[str, tuple[float, float, float]], ...]
    kreis_vectors: tuple[tuple[Kreis, tuple[float, float, float]], ...]  # by key


@lru_cache(maxsize=1)
def _places() -> _Places:
    points: dict[str, Point] = {}
    kreise_of: dict[str, tuple[str, ...]] = {}
    postcodes_of: dict[str, list[str]] = {}
    for line in (_DATA / "postcode_places.txt").read_text(encoding="utf-8").splitlines():
        code, lat, lon, keys = line.split()
        points[code] = Point(float(lat), float(lon))
        kreise_of[code] = tuple(keys.split(","))
        for key in kreise_of[code]:
            postcodes_of.setdefault(key, []).append(code)
    kreise: dict[str, Kreis] = {}
    with (_DATA / "kreise.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter=";"):
            point = Point(float(row["lat"]), float(row["lon"]))
            kreise[row["key"]] = Kreis(row["key"], row["name"], tuple(row["nuts"].split()), point)
    by_nuts = {code: kreis.key for kreis in kreise.values() for code in kreis.nuts}
    ordered = sorted(points, key=lambda code: points[code].lat)
    kreis_vectors = tuple((kreise[key], _unit_vector(kreise[key].point)) for key in sorted(kreise))
    return _Places(
        points=points,
        kreise_of=kreise_of,
        kreise=kreise,
        by_nuts=by_nuts,
        postcodes_of={key: tuple(codes) for key, codes in postcodes_of.items()},
        latitudes=tuple(points[code].lat for code in ordered),
        by_latitude=tuple((code, _unit_vector(points[code])) for code in ordered),
        kreis_vectors=kreis_vectors,
    )


def _unit_vector(point: Point) -> tuple[float, float, float]:
    lat, lon = math.radians(point.lat), math.radians(point.lon)
    return (math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon), math.sin(lat))


def _within(origin: Point, km: float):
    """A test "is this unit vector within ``km`` of ``origin``": a dot product against the cosine of the
    angle, the same great circle as ``distance_km`` at a fifth of its cost (thousands of postcodes per call)."""
    x, y, z = _unit_vector(origin)
    least = math.cos(min(km / EARTH_RADIUS_KM, math.pi))
    return lambda v: x * v[0] + y * v[1] + z * v[2] >= least


def distance_km(a: Point, b: Point) -> float:
    """Great-circle distance in km (haversine)."""
    lat1, lat2 = math.radians(a.lat), math.radians(b.lat)
    dlat, dlon = lat2 - lat1, math.radians(b.lon - a.lon)
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def postcode_point(postal_code: str | None) -> Point | None:
    """The point of a known five-digit German postcode, or None."""
    return _places().points.get((postal_code or "").strip())


def postcode_kreise(postal_code: str | None) -> tuple[Kreis, ...]:
    """The Kreise a postcode lies in (two or three for one crossing a border); () if unknown."""
    places = _places()
    return tuple(places.kreise[key] for key in places.kreise_of.get((postal_code or "").strip(), ()))


def kreise() -> tuple[Kreis, ...]:
    """Every Kreis, by name (for pickers)."""
    return tuple(sorted(_places().kreise.values(), key=lambda kreis: (kreis.name.casefold(), kreis.key)))


def kreis_by_key(key: str | None) -> Kreis | None:
    return _places().kreise.get((key or "").strip())


def _name_key(name: str) -> str:
    return " ".join(name.replace(",", " ").casefold().split())


@lru_cache(maxsize=1)
def _by_name() -> dict[str, str]:
    # Exact names only, as NUTS writes them or with the kind first ("München, Landkreis", "Landkreis
    # München"); an ambiguous bare name ("München") is not guessed.
    names = {}
    for kreis in _places().kreise.values():
        names[_name_key(kreis.name)] = kreis.key
        base, _, kind = kreis.name.rpartition(", ")
        if base:
            names[_name_key(f"{kind} {base}")] = kreis.key
    return names


def kreis_lookup(raw: str | None) -> Kreis | None:
    """The Kreis a user or partner means: its key ("09162"), a NUTS-3 code ("DE212") or its exact name."""
    text = (raw or "").strip()
    places = _places()
    if text.isascii() and text.isdigit():
        return places.kreise.get(text)
    if (code := normalise_nuts(text)) and code in places.by_nuts:
        return places.kreise[places.by_nuts[code]]
    key = _by_name().get(_name_key(text))
    return places.kreise[key] if key else None


@lru_cache(maxsize=1)
def _suggestion_index() -> tuple[tuple[tuple[str, ...], Kreis], ...]:
    return tuple((tuple(re.findall(r"\w+", typed_fold(kreis.name))), kreis) for kreis in kreise())


def kreis_suggestions(term: str, *, limit: int = 10) -> list[Kreis]:
    """Kreise for a picker: by Kreisschlüssel or NUTS-3 code prefix ("0916", "DE21"), or by name, every
    typed word the start of a word of the name ("münch land" → "München, Landkreis").

    Names that start with the first word lead ("Neustadt" before "Bad Neustadt a.d. Saale"), then by name.
    """
    text = term.strip()
    if not text:
        return []
    code = text.upper().replace(" ", "")
    # A NUTS prefix has a digit after "DE" ("DE21", "DEG0"); "Deg" is the start of Deggendorf.
    if code.isascii() and (code.isdigit() or re.fullmatch(r"DE[0-9A-G][0-9A-Z]{0,2}", code) and re.search(r"\d", code)):
        found = [
            kreis
            for kreis in kreise()
            if kreis.key.startswith(code) or any(nuts.startswith(code) for nuts in kreis.nuts)
        ]
        return sorted(found, key=lambda kreis: kreis.key)[:limit]
    words = re.findall(r"\w+", typed_fold(text))
    if not words:
        return []
    found = [
        (0 if names[0].startswith(words[0]) else 1, kreis)
        for names, kreis in _suggestion_index()
        if all(any(name.startswith(word) for name in names) for word in words)
    ]
    # kreise() is in name order and sorting is stable: within a rank, by name.
    return [kreis for _rank, kreis in sorted(found, key=lambda pair: pair[0])][:limit]


def kreis_postcodes(key: str) -> tuple[str, ...]:
    """The postcodes with a place in the Kreis (sorted)."""
    return _places().postcodes_of.get(key, ())


@lru_cache(maxsize=1024)  # saved searches repeat the same few circles every matching round
def postcodes_within(center: str, km: float) -> tuple[str, ...]:
    """Every known postcode whose point lies within ``km`` of ``center``'s point (sorted); () if unknown."""
    places = _places()
    origin = places.points.get(center)
    if origin is None:
        return ()
    # Only postcodes within the latitude band can be near enough; the band is exact (a degree of
    # latitude is the same length everywhere), the distance decides inside it.
    band = km / _KM_PER_DEGREE_LATITUDE
    first = bisect_left(places.latitudes, origin.lat - band)
    last = bisect_right(places.latitudes, origin.lat + band)
    near = _within(origin, km)
    return tuple(sorted(code for code, vector in places.by_latitude[first:last] if near(vector)))


@lru_cache(maxsize=1024)
def kreise_within(center: str, km: float) -> tuple[Kreis, ...]:
    """Every Kreis whose point lies within ``km`` of ``center``'s point (by key); () if unknown."""
    origin = postcode_point(center)
    if origin is None:
        return ()
    near = _within(origin, km)
    return tuple(kreis for kreis, vector in _places().kreis_vectors if near(vector))
