"""Saved searches are compiled anew when the title vocabulary their keywords read is refreshed.

The compiled SQL of a saved search is kept per process by ``keywords_version``; a goods title that entered the
vocabulary must reach the next matching round, as an edit of the thesaurus does.
"""

from __future__ import annotations

import pytest
from django.db import connection

from notifications.alerts.matching import search_conditions
from tenders.suggestions import search_vocabulary_refresh
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def test_a_saved_search_is_compiled_anew_after_a_vocabulary_refresh(alpha):
    ingest(notice(title="Reinigung Rathaus"))
    search_vocabulary_refresh()
    connection.set_tenant(alpha.tenant)
    search = saved_search(user(alpha.member_email), name="Reinigung", q="Reinigung")
    [before] = search_conditions([search])

    connection.set_schema_to_public()
    ingest(notice(title="Lieferung von Reinigungsmitteln"))
    search_vocabulary_refresh()
    connection.set_tenant(alpha.tenant)
    [after] = search_conditions([search])

    assert not any("reinigungsmitteln" in str(value) for value in before.params)
    assert any("reinigungsmitteln" in str(value) for value in after.params)
