"""The thesaurus in the operator console: searched by its words, and safe against two operators editing at once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test import Client

from kernel.vocabulary.synonyms import SynonymEntry
from tenders.models import SynonymGroup
from tenders.services.synonyms import synonym_group_save, synonym_groups_lock
from tests.fixtures.tenants import PUBLIC_HOST, operator_sign_in

ADD = "/admin/tenders/synonymgroup/add/"


@pytest.mark.django_db
def test_the_list_is_searched_by_words_and_narrower_terms(public_client):
    operator_sign_in(public_client)
    synonym_group_save(entry=SynonymEntry(words=("Kehricht", "Fegegut"), narrower=("Laubkehricht",), basis="Test"))
    for term in ("fegegut", "Laubkehr", "Test"):
        page = public_client.get("/admin/tenders/synonymgroup/", {"q": term}).content.decode()
        assert "Kehricht" in page, term
    assert "Kehricht" not in public_client.get("/admin/tenders/synonymgroup/", {"q": "Brücke"}).content.decode()


@pytest.mark.usefixtures("committed")
def test_the_lock_needs_a_transaction():
    with pytest.raises(RuntimeError):
        synonym_groups_lock()


@pytest.mark.usefixtures("committed")
def test_an_edit_waits_for_a_concurrent_one_and_then_says_the_word_is_taken():
    client = operator_sign_in(Client(HTTP_HOST=PUBLIC_HOST))
    saved, release, responses = threading.Event(), threading.Event(), []

    def other_operator():
        try:
            with transaction.atomic():  # another operator's save, not yet committed
                synonym_group_save(entry=SynonymEntry(words=("Kehricht",), narrower=(), basis="A"))
                saved.set()
                release.wait(10)
        finally:
            connection.close()

    def this_operator():
        try:
            responses.append(client.post(ADD, {"words": "Kehricht, Fegegut", "narrower": "", "basis": "B"}))
        finally:
            connection.close()

    first = threading.Thread(target=other_operator)
    first.start()
    assert saved.wait(10)
    second = threading.Thread(target=this_operator)
    second.start()
    second.join(1.0)
    waited = second.is_alive()  # the form's check waits for the other edit instead of missing its word
    release.set()
    first.join(10)
    second.join(10)
    assert waited
    response = responses[0]
    assert response.status_code == 200
    assert "Schon in einer anderen Gruppe: Kehricht" in response.content.decode()
    assert list(
        SynonymGroup.objects.filter(words__overlap=["Kehricht", "Fegegut"]).values_list("basis", flat=True)
    ) == ["A"]
