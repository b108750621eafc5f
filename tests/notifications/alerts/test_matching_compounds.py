"""Saved searches match through the same vector as the portal: compound parts and CPV labels included."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from notifications.alerts.matching import active_searches, matches_insert, search_conditions
from notifications.models import TenderMatch
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def test_a_profile_for_a_word_matches_its_compounds_and_cpv_labels(alpha):
    delta = ingest(
        notice(title="Unterhaltsreinigung Grundschule", cpv_codes=("90919300",)),
        notice(title="Objektschutz Rathaus", cpv_codes=("79713000",)),
        notice(title="Dachdeckerarbeiten Kita", cpv_codes=("45261210",)),
    )
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    cleaning = saved_search(owner, name="Reinigung", q="Reinigung")
    guarding = saved_search(owner, name="Bewachung", q="Bewachung")
    matches_insert(conditions=search_conditions(active_searches()), tender_ids=delta.created, now=timezone.now())
    got = set(TenderMatch.objects.values_list("saved_search_id", "tender_id"))
    assert got == {(cleaning.pk, delta.created[0]), (guarding.pk, delta.created[1])}
