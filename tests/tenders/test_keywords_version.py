"""Keyword answers kept per process follow the title vocabulary as well as the thesaurus (``keywords_version``).

A keyword query reads the vocabulary of title words (a compound's head offered as a service, goods named after
a word). A process that had answered "Reinigung" before "Reinigungsmitteln" entered the vocabulary kept listing
the cleaning-agent deliveries as cleaning work until its cache let the answer go.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import transaction

from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import keyword_query_build, keywords_version
from tenders.models import TenderSource
from tenders.search import tender_search
from tenders.services import notices_ingest
from tenders.suggestions import search_vocabulary_refresh
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

pytestmark = pytest.mark.django_db


def _ingest(**titles: str) -> dict[str, int]:
    records = [NoticeRecordFactory(source_notice_id=f"kv-{key}", title=title) for key, title in titles.items()]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    return dict(
        TenderSource.objects.filter(source_notice_id__startswith="kv-").values_list("source_notice_id", "tender_id")
    )


def _found(q: str) -> set[int]:
    return set(tender_search(filters=TenderFilters(q=q), order="relevance", now=NOW).values_list("id", flat=True))


def test_a_goods_title_new_to_the_vocabulary_is_left_out_by_a_process_that_answered_the_words_before():
    ids = _ingest(work="Reinigung Rathaus")
    search_vocabulary_refresh()
    assert _found("Reinigung") == {ids["kv-work"]}  # the answer for "Reinigung" is now kept by this process

    ids = _ingest(goods="Lieferung von Reinigungsmitteln")
    search_vocabulary_refresh()

    assert "reinigungsmitteln" in keyword_query_build(q="Reinigung").tsquery
    assert _found("Reinigung") == {ids["kv-work"]}


def test_every_refresh_is_a_new_version_and_a_rolled_back_one_is_never_reused():
    before = keywords_version()
    with transaction.atomic():
        _ingest(goods="Lieferung von Reinigungsmitteln")
        search_vocabulary_refresh()
        inside = keywords_version()
        transaction.set_rollback(True)
    # The words went back with the version they were computed under.
    assert keywords_version() == before != inside
    _ingest(other="Lieferung von Reinigungsgeräten")
    search_vocabulary_refresh()
    assert keywords_version() not in {before, inside}
