"""Every connection carries the session settings of ``config.settings.base.session_options`` (work_mem)."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from config.settings.base import DATABASE_WORK_MEM, session_options


def test_a_connection_has_the_work_mem_that_keeps_a_frequent_words_bitmap_exact(db):
    with connection.cursor() as cursor:
        cursor.execute("SHOW work_mem")
        assert cursor.fetchone()[0] == DATABASE_WORK_MEM == "16MB"


@pytest.mark.parametrize(
    ("value", "options"),
    [("16MB", "-c work_mem=16MB"), ("65536kB", "-c work_mem=65536kB"), ("1GB", "-c work_mem=1GB"), ("", "")],
)
def test_session_options_are_built_from_a_size(value, options):
    assert session_options(value) == options


@pytest.mark.parametrize("value", ["16", "16 MB", "-1MB", "16MB -c statement_timeout=0", "0MB"])
def test_anything_but_a_size_stops_the_start(value):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_WORK_MEM"):
        session_options(value)
