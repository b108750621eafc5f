"""The place filters as conditions over ``Tender``: Landkreis / kreisfreie Stadt, and a radius.

Both become sets computed in Python from the shipped postcode data (``kernel.vocabulary.places``),
so PostgreSQL only looks values up in indexes, whatever the radius:

- postcodes: ``postal_code = ANY(%s)`` on ``tender_plz_idx``;
- NUTS-3 codes: ``postal_code = '' AND nuts_codes && %s`` on the partial GIN index
  ``tender_nuts_no_plz_gin``, which holds only tenders without a postcode.

The postcode decides where there is one: it is the more precise place, and a tender whose postcode
lies outside the Kreis is not pulled in by a broader or stale NUTS code. A tender known only by its
NUTS-3 code is in its Kreis; for a radius it stands at its Kreis' point (the mean of the Kreis'
postcodes), so "within 50 km of 70173" finds a notice saying only "DE111" (Stuttgart), but not one
saying only a Kreis whose middle is farther away even if its edge is nearer. A tender with neither
(or a postcode the data does not know) has no place these filters can judge and is not found.
"""

from __future__ import annotations

from django.db.models import Q

from kernel.vocabulary.places import kreis_by_key, kreis_postcodes, kreise_within, postcodes_within


def _place_q(postcodes: list[str], nuts: list[str]) -> Q:
    condition = Q(postal_code__any=postcodes) if postcodes else Q(pk__in=[])
    if nuts:
        condition |= Q(postal_code="", nuts_codes__overlap=nuts)
    return condition


def kreis_q(keys: tuple[str, ...]) -> Q:
    """Tenders in any of the Kreise (by Kreisschlüssel)."""
    found = [kreis for key in keys if (kreis := kreis_by_key(key)) is not None]
    postcodes = sorted({code for kreis in found for code in kreis_postcodes(kreis.key)})
    nuts = sorted({code for kreis in found for code in kreis.nuts})
    return _place_q(postcodes, nuts)


def radius_q(postal_code: str, km: int) -> Q:
    """Tenders whose place lies within ``km`` of the postcode's point (see the module's rule)."""
    postcodes = list(postcodes_within(postal_code, float(km)))
    nuts = sorted({code for kreis in kreise_within(postal_code, float(km)) for code in kreis.nuts})
    return _place_q(postcodes, nuts)
