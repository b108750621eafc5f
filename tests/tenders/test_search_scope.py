"""Search in the title only ("nur im Titel/CPV", ``q_scope`` "title"): keywords must hit the title, or a CPV code the search names.

The security/IT case is the one a user met: a profile "Bewachung und Sicherheitsdienste" matched an awarded IT
consulting contract whose only hit was the word "Sicherheit" in the label of CPV 79000000 ("Dienstleistungen für
Unternehmen: Recht, Marketing, Consulting, Einstellungen, Druck und Sicherheit").
"""

from __future__ import annotations

from datetime import datetime

import pytest
from django.utils import translation

from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.formatting import filters_summary
from tenders.filters import STATUSES, FilterError, TenderFilters, parse_filters
from tenders.match_reasons import match_reasons
from tenders.models import Tender
from tenders.search import tender_search
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def tenders(db) -> dict[str, Tender]:
    records = {
        "it": NoticeRecordFactory(
            title="Beratung zur Einführung eines Dokumentenmanagementsystems",
            description="Konzeption, Migration und Schulung.",
            buyer_name="Landesamt für Digitalisierung",
            cpv_codes=("79000000",),
        ),
        "guard": NoticeRecordFactory(
            title="Sicherheitsdienst Rathaus und Bürgerbüro",
            description="Pfortendienst und Streifengänge.",
            buyer_name="Stadt Musterhausen",
            cpv_codes=("79710000",),
        ),
        "event": NoticeRecordFactory(
            title="Ordnungsdienst für Veranstaltungen",
            description="Einlasskontrolle, Sicherheit auf dem Festplatz.",
            buyer_name="Amt für Sicherheit und Ordnung",
            cpv_codes=("79713000",),
        ),
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    return {key: Tender.objects.get(title=record.title) for key, record in records.items()}


def found(tenders, **params) -> set[str]:
    params.setdefault("status", list(STATUSES))
    filters = parse_filters({k: v if isinstance(v, list) else [v] for k, v in params.items()})
    by_id = {tender.pk: key for key, tender in tenders.items()}
    return {by_id[pk] for pk in tender_search(filters=filters, order="relevance", now=NOW).values_list("id", flat=True)}


def test_a_word_only_in_a_cpv_label_is_found_anywhere_and_said_so(tenders):
    assert found(tenders, q="Sicherheit") == {"it", "guard", "event"}
    reasons = match_reasons(filters=TenderFilters(q="Sicherheit"), tenders=[tenders["it"]])[tenders["it"].pk]
    assert reasons.only_cpv_label


def test_in_the_title_leaves_out_label_description_and_buyer_hits(tenders):
    # "Sicherheitsdienst" states "Sicherheit" through its part; the event's "Sicherheit" is in the
    # description and the buyer's name only, the IT contract's in a CPV label only.
    assert found(tenders, q="Sicherheit", q_scope="title") == {"guard"}
    assert found(tenders, q="Sicherheit", q_scope="all") == {"it", "guard", "event"}


def test_in_the_title_a_cpv_code_of_the_search_counts_as_much_as_the_title(tenders):
    # The event's title says neither word, its code sits under the 797 the search names.
    assert found(tenders, q="Sicherheit", q_scope="title", cpv="797") == {"guard", "event"}
    # Without the scope, words and codes must both hold.
    assert found(tenders, q="Sicherheit", cpv="797") == {"guard", "event"}
    assert found(tenders, q="Rathaus", cpv="797") == {"guard"}


def test_in_the_title_exclusions_still_exclude(tenders):
    assert found(tenders, q="Sicherheit -Rathaus", q_scope="title") == set()
    # An excluded word elsewhere than the title does not exclude a title hit.
    assert found(tenders, q="Sicherheitsdienst -Pfortendienst", q_scope="title") == {"guard"}


def test_the_scope_is_parsed_named_and_summarised():
    assert parse_filters({"q": ["Dach"], "q_scope": ["all"]}).q_scope == ""
    assert parse_filters({"q": ["Dach"], "q_scope": ["title"]}).q_scope == "title"
    with pytest.raises(FilterError) as raised:
        parse_filters({"q": ["Dach"], "q_scope": ["cpv"]})
    assert "q_scope" in raised.value.errors
    with translation.override("de"):
        assert ("Suchbereich", "nur im Titel oder über den CPV-Code") in filters_summary(
            TenderFilters(q="Dach", q_scope="title")
        )
    with translation.override("en"):
        assert ("Search in", "only the title, or through the CPV code") in filters_summary(
            TenderFilters(q="Dach", q_scope="title")
        )


def test_ranking_survives_an_exclusion(tenders):
    # ts_rank ranks any tsquery with a NOT at 1e-20: the title hit would sit wherever the deadline put it.
    filters = TenderFilters(q="Sicherheit -Festplatzfest", status=STATUSES)
    ranked = list(tender_search(filters=filters, order="relevance", now=NOW))
    assert ranked[-1].pk == tenders["it"].pk  # a CPV label's word weighs least
    assert all(tender.rank > 1e-6 for tender in ranked)
