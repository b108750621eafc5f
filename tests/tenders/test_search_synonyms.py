"""The procurement thesaurus: a word finds the words meaning the same work, wherever tenders are searched."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from kernel.errors import ApplicationError
from kernel.vocabulary.synonyms import SynonymEntry, shipped_thesaurus
from kernel.vocabulary.time_zone import BERLIN
from tenders.filter_query import filters_q
from tenders.filters import TenderFilters
from tenders.fulltext import synonym_rewrite_text
from tenders.models import SynonymGroup, Tender
from tenders.search import tender_search
from tenders.services import notices_ingest
from tenders.services.synonyms import synonym_group_problems, synonym_group_save, synonyms_load
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

pytestmark = pytest.mark.django_db

_TENDERS = {
    "rest": ("Abfallentsorgung Restmüll und Bioabfall", "Sammlung und Transport im Kreisgebiet.", ("90511000",)),
    "papier": ("Altpapierentsorgung Verwaltung", "Abholung von Akten.", ("90511000",)),
    "bruecke": ("Erneuerung der Fußgängerbrücke am Bahnhof", "Neue Kappen und Geländer.", ("45221119",)),
    "unterhalt": ("Unterhaltsreinigung Rathaus", "Tägliche Reinigung der Büros.", ("90919200",)),
    "gebaeude": ("Gebäudereinigung Schulzentrum", "Zwei Jahre.", ("90911200",)),
    # Only the CPV labels (90911200 sits under "Wohnungs-, Gebäude- und Fensterreinigung") say "Fenster".
    "grund": ("Grundreinigung der Sporthallen", "In den Sommerferien.", ("90911200",)),
}


@pytest.fixture
def ids() -> dict[str, int]:
    records = {
        key: NoticeRecordFactory(source_notice_id=f"synonym-{key}", title=title, description=text, cpv_codes=codes)
        for key, (title, text, codes) in _TENDERS.items()
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    by_notice = dict(Tender.objects.values_list("sources__source_notice_id", "id"))
    return {key: by_notice[record.source_notice_id] for key, record in records.items()}


def found(ids, q: str) -> set[str]:
    by_id = {tender_id: key for key, tender_id in ids.items()}
    return {
        by_id[pk]
        for pk in tender_search(filters=TenderFilters(q=q), order="relevance", now=NOW).values_list("id", flat=True)
    }


def test_the_shipped_thesaurus_is_loaded_and_valid():
    entries = shipped_thesaurus()
    assert len(entries) >= 40
    assert SynonymGroup.objects.count() == len(entries)
    for group in SynonymGroup.objects.all():
        entry = SynonymEntry(words=tuple(group.words), narrower=tuple(group.narrower), basis=group.basis)
        assert group.basis, group
        assert synonym_group_problems(entry=entry, group_id=group.pk) == [], group
        assert group.rewrite == synonym_rewrite_text([*group.words, *group.narrower])


def test_muellabfuhr_finds_abfallentsorgung(ids):
    assert found(ids, "Müllabfuhr") == {"rest", "papier"}  # papier: "Altpapierentsorgung" is a narrower word
    assert found(ids, "Muellabfuhr") == {"rest", "papier"}
    assert found(ids, "Abfallentsorgung") == {"rest", "papier"}


def test_a_synonym_applies_to_a_compound_part_and_next_to_other_words(ids):
    assert found(ids, "Sanierung Brücke") == {"bruecke"}
    assert found(ids, "Brückensanierung") == {"bruecke"}
    assert found(ids, "Instandsetzung") == {"bruecke"}


def test_narrower_words_are_found_one_way(ids):
    assert found(ids, "Gebäudereinigung") == {"gebaeude", "unterhalt", "grund"}
    assert "gebaeude" not in found(ids, "Unterhaltsreinigung")


def test_exclusions_and_phrases_stay_as_typed(ids):
    assert found(ids, "Müllabfuhr -Restmüll") == {"papier"}
    assert found(ids, "Müllabfuhr -Altpapierentsorgung") == {"rest"}
    # An excluded word is not expanded: "-Müllabfuhr" excludes that word, not Abfallentsorgung.
    assert found(ids, "Abfallentsorgung -Müllabfuhr") == {"rest", "papier"}
    assert found(ids, '"Sanierung der Fußgängerbrücke"') == set()
    assert found(ids, '"Erneuerung der Fußgängerbrücke"') == {"bruecke"}


def test_synonyms_do_not_reach_cpv_labels_but_the_typed_word_does(ids):
    assert "grund" in found(ids, "Fensterreinigung")  # the typed word, in a CPV label
    assert "grund" not in found(ids, "Glasreinigung")  # its synonym is not looked for in labels


def test_an_operators_edit_applies_to_the_next_search(ids):
    assert found(ids, "Kehricht") == set()
    group = synonym_group_save(entry=SynonymEntry(words=("Kehricht",), narrower=("Bioabfall",), basis="Test"))
    assert found(ids, "Kehricht") == {"rest"}
    group.delete()
    assert found(ids, "Kehricht") == set()


def test_a_word_stands_in_one_group_only_and_must_be_searchable():
    with pytest.raises(ApplicationError, match="Schon in einer anderen Gruppe: Abfälle"):
        synonym_group_save(entry=SynonymEntry(words=("Kehricht", "Abfälle")))
    with pytest.raises(ApplicationError, match="Füllwörter"):
        synonym_group_save(entry=SynonymEntry(words=("Kehricht",), narrower=("und",)))
    with pytest.raises(ApplicationError, match="nur ein Wort"):
        synonym_group_save(entry=SynonymEntry(words=("Müll abfuhr",)))
    assert not SynonymGroup.objects.filter(words__contains=["Kehricht"]).exists()


def test_loading_the_thesaurus_again_keeps_edited_groups(ids):
    group = SynonymGroup.objects.get(words__contains=["Müllabfuhr"])
    synonym_group_save(entry=SynonymEntry(words=("Müllabfuhr",), basis="edited"), group_id=group.pk)
    before = SynonymGroup.objects.count()
    added, skipped = synonyms_load(entries=shipped_thesaurus())
    assert (added, SynonymGroup.objects.count()) == (0, before)
    assert SynonymGroup.objects.get(pk=group.pk).words == ["Müllabfuhr"]
    assert found(ids, "Müllabfuhr") == set()  # the edit holds: no synonyms left for it
    SynonymGroup.objects.all().delete()
    call_command("load_synonyms")
    assert SynonymGroup.objects.count() == len(shipped_thesaurus())


def test_the_search_command_uses_the_synonyms(ids, capsys):
    call_command("search", "Müllabfuhr", "--format", "jsonl")
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {row["id"] for row in rows} == {ids["rest"], ids["papier"]}


def test_the_planner_sees_the_rewritten_query_as_a_constant(ids):
    """An expression evaluated only at run time gets a default selectivity: a rare word then walked the
    deadline index of a million rows. The rewritten tsquery is a constant the statistics apply to."""
    queryset = Tender.objects.filter(filters_q(TenderFilters(q="Müllabfuhr"), now=NOW)).values("id")
    sql, params = queryset.query.sql_with_params()
    assert "ts_rewrite" not in sql
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Bitmap Index Scan on tender_search_gin" in plan
    assert "''abfallentsorg'':ABC" in plan  # the synonym, in the constant the index is scanned with


def test_operators_edit_the_thesaurus_in_the_admin(public_client, ids):
    from tests.fixtures.tenants import operator_sign_in

    operator_sign_in(public_client)
    add = "/admin/tenders/synonymgroup/add/"
    refused = public_client.post(add, {"words": "Kehricht, Abfälle", "narrower": "", "basis": "Test"})
    assert refused.status_code == 200 and "Schon in einer anderen Gruppe: Abfälle" in refused.content.decode()
    response = public_client.post(add, {"words": "Kehricht", "narrower": "Bioabfall", "basis": "Test"})
    assert response.status_code == 302
    group = SynonymGroup.objects.get(words=["Kehricht"])
    assert group.rewrite == synonym_rewrite_text(["Kehricht", "Bioabfall"])
    assert found(ids, "Kehricht") == {"rest"}
    assert "Kehricht" in public_client.get("/admin/tenders/synonymgroup/").content.decode()


def test_loading_a_file_with_an_unsearchable_word_says_why_and_adds_nothing_of_it(tmp_path):
    thesaurus = tmp_path / "synonyms.txt"
    thesaurus.write_text("Kehricht > und | Test\n", encoding="utf-8")
    with pytest.raises(CommandError, match="Füllwörter werden nicht gesucht: und"):
        call_command("load_synonyms", file=thesaurus)
    assert not SynonymGroup.objects.filter(words__contains=["Kehricht"]).exists()


@pytest.mark.django_db
def test_keywords_are_compiled_once_per_thesaurus_version(django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tenders.fulltext import keyword_query_build

    word = "Zaunprüfwort"
    first = keyword_query_build(q=word)
    with CaptureQueriesContext(connection) as queries:
        assert keyword_query_build(q=word) == first
    assert len(queries.captured_queries) == 1 and "ts_rewrite" not in queries.captured_queries[0]["sql"]
    # An edit of the thesaurus is a new version: the keywords are compiled anew, with the new group.
    synonym_group_save(entry=SynonymEntry(words=("Zaunprüfwort", "Einfriedungsprüfwort")))
    with CaptureQueriesContext(connection) as queries:
        edited = keyword_query_build(q=word)
    assert any("ts_rewrite" in query["sql"] for query in queries.captured_queries)
    assert edited != first and "einfriedungsprufwort" in edited.tsquery or "einfriedungsprüfwort" in edited.tsquery
