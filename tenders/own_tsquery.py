"""The base of the search's own tsquery expressions (thesaurus rewrite, phrases, title forms, constants)."""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery
from django.db.models import Func


class OwnTsQuery(SearchQuery):
    """A tsquery whose SQL this project writes (its ``as_sql`` or ``template``), not Django's ``to_tsquery`` of a
    text in a configuration. A SearchQuery, so ``@@`` lookups and SearchRank take it as the tsquery it is (they
    wrap anything else), and ``~`` negates it as any SearchQuery; no configuration, no search type."""

    def __init__(self, *expressions, invert: bool = False):
        self.config, self.invert = None, invert
        Func.__init__(self, *expressions)
