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


def test_a_profile_matches_through_the_thesaurus_and_sees_an_edit_at_once(alpha):
    from kernel.vocabulary.synonyms import SynonymEntry
    from tenders.models import SynonymGroup
    from tenders.services.synonyms import synonym_group_save

    first = ingest(
        notice(title="Abfallentsorgung Restmüll und Bioabfall", cpv_codes=("90511000",)),
        notice(title="Erneuerung der Fußgängerbrücke", cpv_codes=("45221119",)),
        notice(title="Abfallentsorgung Sperrmüll", cpv_codes=("90511000",)),
    )
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    waste = saved_search(owner, name="Müllabfuhr", q="Müllabfuhr -Sperrmüll")
    bridges = saved_search(owner, name="Brückensanierung", q="Brückensanierung")
    matches_insert(conditions=search_conditions(active_searches()), tender_ids=first.created, now=timezone.now())
    got = set(TenderMatch.objects.values_list("saved_search_id", "tender_id"))
    assert got == {(waste.pk, first.created[0]), (bridges.pk, first.created[1])}

    # The profiles' SQL is cached by their filters; the thesaurus is read when the statement runs.
    connection.set_schema_to_public()
    SynonymGroup.objects.filter(words__contains=["Sanierung"]).delete()
    synonym_group_save(entry=SynonymEntry(words=("Sanierung", "Ertüchtigung")))
    second = ingest(
        notice(title="Ertüchtigung der Talbrücke", cpv_codes=("45221119",)),
        notice(title="Erneuerung der Kanalbrücke", cpv_codes=("45221119",)),
    )
    connection.set_tenant(alpha.tenant)
    matches_insert(conditions=search_conditions(active_searches()), tender_ids=second.created, now=timezone.now())
    new = set(TenderMatch.objects.values_list("saved_search_id", "tender_id")) - got
    assert new == {(bridges.pk, second.created[0])}


def test_a_profile_matches_a_codes_own_label_by_its_parts_not_a_class_label(alpha):
    # Issue 30: 50334400 sits under 50300000 "… in Verbindung mit Personalcomputern, …"; that class's parts are
    # not searched, so a telephone system is no "Computer" match. 30213000 "Personalcomputer" is the code's own.
    delta = ingest(
        notice(title="Ausstattung Schulungsräume", cpv_codes=("30213000",)),
        notice(title="Wartung der Telefonanlage", cpv_codes=("50334400",)),
    )
    connection.set_tenant(alpha.tenant)
    computers = saved_search(user(alpha.member_email), name="Computer", q="Computer")
    matches_insert(conditions=search_conditions(active_searches()), tender_ids=delta.created, now=timezone.now())
    assert set(TenderMatch.objects.values_list("saved_search_id", "tender_id")) == {(computers.pk, delta.created[0])}
