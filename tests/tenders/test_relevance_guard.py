"""The relevance set (``bench.relevance_set``) through the portal's own search: recall, precision, negative cases.

The same corpus and measure as ``python bench/run.py relevance`` (current search, every status), so a change
that makes the words weaker or looser fails here, not only in a bench nobody ran.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from bench.relevance import current_top, load_corpus, negatives_shown, scores
from bench.relevance_set import QUERIES
from kernel.vocabulary.time_zone import BERLIN

RECALL_FLOOR = 0.95
# Measured 0.943 (81 queries): label-only hits through a label's compound parts ("Personalcomputern" for
# "Computer", "Dachanstricharbeiten" for "Anstricharbeiten") are not yet told apart from a description's.
PRECISION_FLOOR = 0.94
PRECISION_TARGET = 0.95


@pytest.fixture(scope="module")
def measured(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        from django.db import transaction

        with transaction.atomic():
            now = timezone.now().astimezone(BERLIN).replace(microsecond=0)
            ids = load_corpus(now)
            results = {q: current_top(q, now=now) for q, _keys in QUERIES}
            relevant = {q: {ids[key] for key in keys} for q, keys in QUERIES}
            figures = scores(results, relevant)
            wrong = negatives_shown(results, ids)
            transaction.set_rollback(True)
    return figures, wrong


def test_negative_cases_are_never_in_the_first_ten(measured):
    _figures, wrong = measured
    assert wrong == []


def test_recall_and_precision_hold(measured):
    figures, _wrong = measured
    assert figures["recall10"] >= RECALL_FLOOR
    assert figures["precision10"] >= PRECISION_FLOOR


@pytest.mark.xfail(strict=True, reason="precision@10 is 0.943; label compound parts still count (see floor)")
def test_precision_reaches_the_target(measured):
    figures, _wrong = measured
    assert figures["precision10"] >= PRECISION_TARGET
