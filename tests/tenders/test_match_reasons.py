""" "Warum gefunden": which words hit which field, which CPV code, which filter - and a hit only through a CPV label.

The IT case is the one a user met in the demo: a profile "Bewachung und Sicherheitsdienste" matched an IT
consulting contract whose only hit was the word "Sicherheit" in the label of CPV 79000000 ("Dienstleistungen
für Unternehmen: Recht, Marketing, Consulting, Einstellungen, Druck und Sicherheit", the real CPV 2008 label).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from kernel.records import Lot
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters, effective_filters
from tenders.fulltext import keyword_query_build
from tenders.match_reasons import WordHits, match_reasons
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def tenders(db) -> dict[str, Tender]:
    records = {
        "cleaning": NoticeRecordFactory(
            title="Unterhaltsreinigung Rathaus",
            description="Reinigung der Büroflächen und Sanitärräume.",
            buyer_name="Stadt Reinbek",
            cpv_codes=("90911200",),
            bundesland="Schleswig-Holstein",
            postal_code="21465",
            estimated_value=Decimal("180000"),
            lots=(Lot(lot_id="LOT-1", title="Glasreinigung"),),
        ),
        "it": NoticeRecordFactory(
            title="Beratung zur Einführung eines Dokumentenmanagementsystems",
            description="Konzeption, Migration und Schulung.",
            buyer_name="Landesamt für Digitalisierung",
            cpv_codes=("79000000",),
            bundesland="Bayern",
        ),
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    return {key: Tender.objects.get(title=record.title) for key, record in records.items()}


def _reasons(filters, tender):
    return match_reasons(filters=filters, tenders=[tender])[tender.pk]


def test_each_field_the_keywords_hit_is_named_with_its_words(tenders):
    reasons = _reasons(TenderFilters(q="Reinigung"), tenders["cleaning"])
    by_field = {hit.field: hit.words for hit in reasons.words}
    assert by_field["title"] == ("Unterhaltsreinigung",)  # a compound part counts, as in the search
    assert by_field["description"] == ("Reinigung",)
    assert by_field["lots"] == ("Glasreinigung",)
    assert "Reinigung" in " ".join(by_field["cpv_labels"])
    assert by_field.get("buyer") is None  # "Reinbek" is no hit
    assert not reasons.only_cpv_label


def test_a_hit_only_through_a_cpv_label_says_so(tenders):
    reasons = _reasons(TenderFilters(q="Sicherheit"), tenders["it"])
    assert [(hit.field, hit.words) for hit in reasons.words] == [("cpv_labels", ("Sicherheit",))]
    assert reasons.only_cpv_label
    assert reasons.as_json()["only_cpv_label"] is True


def test_cpv_codes_and_other_filters_name_the_tenders_own_values(tenders):
    filters = effective_filters(
        TenderFilters(cpv=("9091",), bundesland=("Schleswig-Holstein",), value_min=Decimal("100000"))
    )
    reasons = _reasons(filters, tenders["cleaning"])
    assert [(c.filter, c.code) for c in reasons.cpv] == [("9091", "90911200")]
    assert dict(reasons.filters) == {
        "bundesland": "Schleswig-Holstein",
        "value_min": "180000.00",
        "status": "active",
    }
    assert reasons.words == () and not reasons.only_cpv_label


def test_reasons_for_a_page_cost_two_queries_whatever_its_length(tenders, django_assert_max_num_queries):
    rows = list(Tender.objects.all()) * 10
    # Compiled once per process and thesaurus version (tenders.fulltext): a page then reads the version and its
    # reasons, however many rows it has.
    keyword_query_build(q="Reinigung Beratung")
    with django_assert_max_num_queries(2):
        match_reasons(filters=TenderFilters(q="Reinigung Beratung"), tenders=rows)


def test_without_keywords_no_query_at_all(tenders, django_assert_num_queries):
    with django_assert_num_queries(0):
        reasons = match_reasons(filters=TenderFilters(bundesland=("Bayern",)), tenders=[tenders["it"]])
    assert dict(reasons[tenders["it"].pk].filters) == {"bundesland": "Bayern"}


def test_a_label_counts_as_the_search_holds_it_the_codes_own_by_its_parts_a_class_by_its_words(db):
    records = [
        NoticeRecordFactory(source_notice_id="own", title="Ausstattung Schulungsräume", cpv_codes=("30213000",)),
        # 50334400 sits under 50300000 "Reparatur, Wartung … in Verbindung mit Personalcomputern, …"
        NoticeRecordFactory(source_notice_id="class", title="Computer-Wartung Telefonanlage", cpv_codes=("50334400",)),
    ]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    own, telephone = (Tender.objects.get(sources__source_notice_id=r.source_notice_id) for r in records)
    reasons = match_reasons(filters=TenderFilters(q="Computer"), tenders=[own, telephone])
    # "Personalcomputer" is the code's own label: the search finds the tender through its part, and says so
    assert [(hit.field, hit.words) for hit in reasons[own.pk].words] == [("cpv_labels", ("Personalcomputer",))]
    assert reasons[own.pk].only_cpv_label
    # the class label's "Personalcomputern" is no reason: the search does not hold that label's parts
    assert [(hit.field, hit.words) for hit in reasons[telephone.pk].words] == [("title", ("Computer",))]
    # a class label's whole words still count
    by_word = match_reasons(filters=TenderFilters(q="Büromaschinen"), tenders=[telephone])[telephone.pk]
    assert by_word.words == (WordHits(field="cpv_labels", words=("Büromaschinen",)),)


def test_several_profiles_share_one_stemming_of_the_tender(tenders, django_assert_num_queries):
    from tenders.highlighting import stems_forget
    from tenders.match_reasons import match_reasons_by_filters

    tender = tenders["cleaning"]
    filters = {
        "reinigung": TenderFilters(q="Reinigung"),
        "rathaus": TenderFilters(q="Rathaus Sanitär"),
        "land": TenderFilters(bundesland=("Schleswig-Holstein",)),  # no keywords: nothing to compile or stem
    }
    expected = {key: _reasons(one, tender) for key, one in filters.items()}
    stems_forget()  # as a process that has not seen the tender's words yet
    with django_assert_num_queries(2 + 1):  # each profile's keywords once, the tender's words once for all
        together = match_reasons_by_filters(filters_by_key=filters, tender=tender)
    assert together == expected
    assert {hit.field for hit in together["rathaus"].words} >= {"title", "description"}


def test_a_buyers_name_counts_by_its_whole_words_as_the_search_holds_it(db):
    record = NoticeRecordFactory(
        title="Pflege der Außenanlagen", description="Rasen und Hecken.", buyer_name="Stadtwerke Husum"
    )
    notices_ingest(records=[record], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get(title=record.title)
    from tenders.search import tender_search

    # "Werke" is only a compound part of the buyer's name: the search does not find the tender by it …
    assert not tender_search(filters=TenderFilters(q="Werke"), order="newest", now=NOW).filter(pk=tender.pk).exists()
    assert match_reasons(filters=TenderFilters(q="Werke"), tenders=[tender])[tender.pk].words == ()
    # … and a whole word of the name is a reason, in the buyer field
    by_name = match_reasons(filters=TenderFilters(q="Stadtwerke"), tenders=[tender])[tender.pk]
    assert by_name.words == (WordHits(field="buyer", words=("Stadtwerke",)),)


def test_rows_sharing_a_text_decide_its_words_once_and_keep_their_own_reasons(db, monkeypatch):
    import tenders.match_reasons as module

    shared = {"buyer_name": "Gebäudemanagement Reinigung Nord", "cpv_codes": ("90911200",)}
    records = [
        NoticeRecordFactory(source_notice_id="a", title="Glasreinigung Schule", description="", **shared),
        NoticeRecordFactory(source_notice_id="b", title="Winterdienst Rathaus", description="", **shared),
    ]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    rows = [Tender.objects.get(sources__source_notice_id=r.source_notice_id) for r in records]
    filters = TenderFilters(q="Reinigung")
    alone = {row.pk: match_reasons(filters=filters, tenders=[row])[row.pk] for row in rows}
    decided = []
    real = module._text_hits
    monkeypatch.setattr(
        module, "_text_hits", lambda h, text, **flags: decided.append((text, *flags.values())) or real(h, text, **flags)
    )
    together = match_reasons(filters=filters, tenders=rows)
    assert together == alone
    assert len(decided) == len(set(decided))  # the buyer and the CPV labels of both rows: decided once
    assert decided.count(("Gebäudemanagement Reinigung Nord", False, True)) == 1
    a, b = (together[row.pk] for row in rows)
    assert [(hit.field, hit.words) for hit in a.words][:2] == [("title", ("Glasreinigung",)), ("buyer", ("Reinigung",))]
    assert [hit.field for hit in b.words][0] == "buyer"


def test_a_fields_words_are_counted_across_its_texts_each_spelling_once(db):
    from tenders.highlighting import Highlighter
    from tenders.match_reasons import MAX_WORDS_PER_FIELD, _hits

    highlighter = Highlighter("Reinigung")
    texts = [("Reinigung und REINIGUNG", True), ("reinigung, Glasreinigung", True), ("Bodenreinigung", True)]
    assert _hits(highlighter, texts, known={}) == ("Reinigung", "Glasreinigung", "Bodenreinigung")
    many = [
        (" ".join(f"{prefix}reinigung" for prefix in ("Glas", "Boden", "Fenster", "Grund", "Bau", "Teppich")), True)
    ]
    assert len(_hits(highlighter, many, known={})) == MAX_WORDS_PER_FIELD
