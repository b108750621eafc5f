"""Saved searches with place filters are matched by the one statement exactly as the portal filters them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from notifications.alerts.matching import active_searches, matches_insert, search_conditions
from notifications.models import SavedSearch
from tenders.models import Tender
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def test_kreis_and_radius_searches_match_the_tenders_of_their_place(alpha):
    delta = ingest(
        notice(title="Stuttgart Mitte", postal_code="70173", nuts_codes=("DE111",)),
        notice(title="Tübingen", postal_code="72070", nuts_codes=("DE142",)),  # 30.09 km from 70173
        notice(title="Heilbronn", postal_code="74072", nuts_codes=("DE117",)),  # 41.23 km
        notice(title="Nur NUTS Göppingen", postal_code="", nuts_codes=("DE114",)),  # Kreis point 38.51 km
        notice(title="München", postal_code="80331", nuts_codes=("DE212",)),
    )
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    radius = saved_search(owner, name="40 km um Stuttgart", umkreis_plz="70173", umkreis_km=40)
    kreis = saved_search(owner, name="Göppingen und München", kreis=("08117", "09162"))
    both = saved_search(owner, name="Kreis und Umkreis", kreis=("08111",), umkreis_plz="80331", umkreis_km=50)

    created = matches_insert(
        conditions=search_conditions(active_searches()), tender_ids=delta.created, now=timezone.now()
    )
    title_of = dict(Tender.objects.filter(pk__in=delta.created).values_list("pk", "title"))
    name_of = dict(SavedSearch.objects.values_list("pk", "name"))
    found: dict[str, set[str]] = {}
    for match in created:
        found.setdefault(name_of[match.saved_search_id], set()).add(title_of[match.tender_id])
    assert found[radius.name] == {"Stuttgart Mitte", "Tübingen", "Nur NUTS Göppingen"}
    assert found[kreis.name] == {"Nur NUTS Göppingen", "München"}
    assert both.name not in found  # Stuttgart is not within 50 km of München
