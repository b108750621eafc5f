"""Writes to the procurement thesaurus: an operator's edit in the admin and the load of the shipped file."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, transaction

from kernel.errors import ApplicationError
from kernel.vocabulary.synonyms import SynonymEntry, entry_problems
from tenders.fulltext import synonym_rewrite_text
from tenders.models import SynonymGroup


def _taken_words(*, words: Sequence[str], exclude_id: int | None) -> list[str]:
    """Words of ``words`` that already stand in another group, compared as searched (stems: Abfall = Abfälle)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT DISTINCT new.w FROM unnest(%s::text[]) AS new(w)
            JOIN (SELECT websearch_to_tsquery('german', w) AS q
                  FROM tenders_synonymgroup g, unnest(g.words) AS w WHERE g.id IS DISTINCT FROM %s) AS old
              ON old.q = websearch_to_tsquery('german', new.w)
            """,
            [list(words), exclude_id],
        )
        return sorted(row[0] for row in cursor.fetchall())


def _stopwords(words: Sequence[str]) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w FROM unnest(%s::text[]) AS w WHERE numnode(websearch_to_tsquery('german', w)) = 0", [list(words)]
        )
        return [row[0] for row in cursor.fetchall()]


def synonym_group_problems(*, entry: SynonymEntry, group_id: int | None = None) -> list[str]:
    """Every reason ``entry`` cannot be stored (as group ``group_id``); empty when it can."""
    problems = entry_problems(entry)
    if problems:
        return problems
    if taken := _taken_words(words=entry.words, exclude_id=group_id):
        problems.append(f"Schon in einer anderen Gruppe: {', '.join(taken)}. Ein Wort steht in einer Gruppe.")
    if empty := _stopwords([*entry.words, *entry.narrower]):
        problems.append(f"Füllwörter werden nicht gesucht: {', '.join(empty)}.")
    return problems


def synonym_groups_lock() -> None:
    """Hold off every other thesaurus edit until the current transaction ends.

    So two edits cannot each put the same word into a different group, and a check made
    under the lock (an admin form's) still holds when the group is saved. Readers (searches,
    matching) are not blocked.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("synonym_groups_lock() holds only inside a transaction")
    with connection.cursor() as cursor:
        cursor.execute("LOCK TABLE tenders_synonymgroup IN SHARE ROW EXCLUSIVE MODE")


@transaction.atomic
def synonym_group_save(*, entry: SynonymEntry, group_id: int | None = None) -> SynonymGroup:
    """Create (or replace the words of) one group; raises ApplicationError listing every problem."""
    synonym_groups_lock()
    if problems := synonym_group_problems(entry=entry, group_id=group_id):
        raise ApplicationError(" ".join(problems), code="synonym_group")
    group = SynonymGroup(pk=group_id) if group_id is not None else SynonymGroup()
    group.words = list(entry.words)
    group.narrower = list(entry.narrower)
    group.basis = entry.basis
    group.rewrite = synonym_rewrite_text([*entry.words, *entry.narrower])
    group.save()
    return group


@transaction.atomic
def synonyms_load(*, entries: Sequence[SynonymEntry]) -> tuple[int, list[str]]:
    """Add the groups of ``entries`` no word of which is present yet; (groups added, words skipped).

    Groups operators have edited stay as they are: a group is skipped when one of its words
    already stands in a group.
    """
    added, skipped = 0, []
    for entry in entries:
        if _taken_words(words=entry.words, exclude_id=None):
            skipped.append(entry.words[0])
            continue
        synonym_group_save(entry=entry)
        added += 1
    return added, skipped
