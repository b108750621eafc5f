"""The place filters against PostgreSQL: exactly the tenders inside the radius or the Kreis, through the indexes."""

# ruff: noqa: S608  (identifiers are the model's own table and columns; every value is a parameter)

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import connection

from kernel.vocabulary.places import kreis_postcodes, kreise
from kernel.vocabulary.time_zone import BERLIN
from tenders.filter_query import filters_q
from tenders.filters import parse_filters
from tenders.models import Tender
from tenders.search import tender_search
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

# key: (postcode, NUTS codes, hand-computed distance in km from 70173 Stuttgart to the postcode's point
# or, without a postcode, to the point of its Kreis; see tests/kernel/vocabulary/test_places.py)
PLACES = {
    "stuttgart": ("70173", ("DE111",), 0.0),
    "esslingen": ("73728", ("DE113",), 9.95),
    "boeblingen": ("71032", ("DE112",), 15.93),
    "tuebingen": ("72070", ("DE142",), 30.09),
    "pforzheim": ("75175", ("DE129",), 36.47),
    "heilbronn": ("74072", ("DE117",), 41.23),
    "karlsruhe": ("76133", ("DE122",), 62.90),
    "muenchen": ("80331", ("DE212",), 190.06),
    # Known only by a NUTS-3 code: the Kreis' point stands in for the place.
    "nuts_stuttgart": ("", ("DE111",), 0.44),
    "nuts_goeppingen": ("", ("DE114",), 38.51),
    "nuts_heilbronn_stadt": ("", ("DE117",), 41.74),
    "nuts_muenchen": ("", ("DE212",), 190.0),
    # The postcode decides where there is one, whatever NUTS code the notice also names.
    "muenchen_coded_stuttgart": ("80331", ("DE111",), 190.06),
    "nowhere": ("", (), None),
    "level2_only": ("", ("DE11",), None),
}


@pytest.fixture
def ids(db) -> dict[str, int]:
    records = {
        key: NoticeRecordFactory(title=f"Ausschreibung {key}", postal_code=plz, nuts_codes=nuts, bundesland="")
        for key, (plz, nuts, _km) in PLACES.items()
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    by_title = dict(Tender.objects.values_list("title", "pk"))
    return {key: by_title[f"Ausschreibung {key}"] for key in records}


def found(ids: dict[str, int], query: str) -> set[str]:
    by_id = {pk: key for key, pk in ids.items()}
    filters = parse_filters({k: [v] for k, v in (part.split("=") for part in query.split("&"))})
    return {by_id[pk] for pk in tender_search(filters=filters, order="deadline", now=NOW).values_list("id", flat=True)}


def test_the_ingest_keeps_postcode_and_nuts_codes_as_the_filters_read_them(ids):
    tender = Tender.objects.get(pk=ids["nuts_goeppingen"])
    assert (tender.postal_code, tender.nuts_codes) == ("", ["DE114"])


@pytest.mark.parametrize("km", [1, 10, 20, 35, 40, 50, 100, 200, 300])
def test_a_radius_finds_exactly_the_tenders_within_it(ids, km):
    expected = {key for key, (_plz, _nuts, distance) in PLACES.items() if distance is not None and distance <= km}
    assert found(ids, f"umkreis_plz=70173&umkreis_km={km}") == expected


def test_a_radius_of_40_km_by_name(ids):
    assert found(ids, "umkreis_plz=70173&umkreis_km=40") == {
        "stuttgart",
        "esslingen",
        "boeblingen",
        "tuebingen",
        "pforzheim",
        "nuts_stuttgart",
        "nuts_goeppingen",
    }


def test_a_kreis_finds_its_postcodes_and_the_tenders_known_only_by_its_nuts_code(ids):
    assert found(ids, "kreis=08111") == {"stuttgart", "nuts_stuttgart"}
    assert found(ids, "kreis=DE212") == {"muenchen", "nuts_muenchen", "muenchen_coded_stuttgart"}
    assert found(ids, "kreis=Landkreis Tübingen") == {"tuebingen"}
    assert found(ids, "kreis=DE117") == {"heilbronn", "nuts_heilbronn_stadt"}
    assert found(ids, "kreis=DE21H") == set()  # Landkreis München: neither the city's postcode nor its code


def test_several_kreise_are_or_and_place_filters_combine_with_and(ids):
    assert found(ids, "kreis=DE111,DE114") == {"stuttgart", "nuts_stuttgart", "nuts_goeppingen"}
    assert found(ids, "kreis=DE212&umkreis_plz=70173&umkreis_km=50") == set()
    assert found(ids, "kreis=DE111&umkreis_plz=80331&umkreis_km=200") == {"stuttgart", "nuts_stuttgart"}
    assert found(ids, "plz=7&umkreis_plz=70173&umkreis_km=20") == {"stuttgart", "esslingen", "boeblingen"}


def _plan(filters_query: str) -> str:
    filters = parse_filters({k: [v] for k, v in (part.split("=") for part in filters_query.split("&"))})
    queryset = Tender.objects.filter(filters_q(filters, now=NOW)).values("pk")
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.django_db
def test_place_filters_are_index_lookups_on_a_realistic_table():
    # 60,000 tenders over every postcode (a sixth without one, known by a NUTS-3 code only), analysed:
    # the radius and the Kreis must be index lookups, never a scan of the table.
    notices_ingest(records=[NoticeRecordFactory(title="Vorlage")], now=NOW, use_fingerprint=False)
    skipped = ("id", "postal_code", "nuts_codes")
    columns = [f.column for f in Tender._meta.concrete_fields if f.column not in skipped and not f.generated]
    listed = ", ".join(f'"{column}"' for column in columns)
    postcodes = sorted({code for kreis in kreise() for code in kreis_postcodes(kreis.key)})
    nuts = sorted(code for kreis in kreise() for code in kreis.nuts)
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{Tender._meta.db_table}" ({listed}, "postal_code", "nuts_codes") '
            f"SELECT {listed}, CASE WHEN mod(n, 6) = 0 THEN '' ELSE codes.plz END, ARRAY[codes.nuts]::varchar(5)[] "
            f'FROM "{Tender._meta.db_table}" t, generate_series(1, 60000) n, '
            "LATERAL (SELECT (%s::text[])[1 + mod(n, %s)] AS plz, (%s::text[])[1 + mod(n, %s)] AS nuts) codes",
            [postcodes, len(postcodes), nuts, len(nuts)],
        )
        cursor.execute(f'ANALYZE "{Tender._meta.db_table}"')
    radius = _plan("umkreis_plz=70173&umkreis_km=40")
    assert "tender_plz_idx" in radius and "tender_nuts_no_plz_gin" in radius, radius
    assert "Seq Scan" not in radius, radius
    kreis = _plan("kreis=DE212")
    assert "tender_plz_idx" in kreis and "tender_nuts_no_plz_gin" in kreis and "Seq Scan" not in kreis, kreis
