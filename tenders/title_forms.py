"""Forms of a query word that the title vocabulary holds: a compound's head offered as a service, goods named after it.

Both are looked up by the keyword statement in ``tenders_search_vocabulary`` (``tenders.suggestions``), so they
depend on the titles seen; ``tenders.fulltext`` puts them into a keyword query.
"""

from __future__ import annotations

from kernel.vocabulary.search_words import SERVICE_WORDS
from tenders.own_tsquery import OwnTsQuery


def tsquery_operand(word: str, weights: str) -> str:
    """``word`` as one quoted ``to_tsquery`` operand restricted to ``weights``: never an operator."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "':" + weights


# A compound's head counts where a title offers its work as a service: "Reinigungsdienste" or
# "Reinigungsdienstleistungen" for "Gebäudereinigung". Not as the head of another compound
# ("Straßenreinigung", "Kanalreinigung": other work), not for supplies ("Reinigungsmittel"), not in
# descriptions. The forms searched are the title words that exist (the vocabulary of
# ``tenders.suggestions``, refreshed daily): the tsquery then holds a few real lexemes the planner
# estimates from the statistics, where a prefix (``'reinigung':*``) made it expect 65,000 matches for a
# rare word and walk the deadline index of a million rows. Each form is one term among the word's many,
# so ts_rank mostly puts such a tender below one that says the compound.
_SERVICE_FORM = "^{head}(s|n|e|en|es)?(" + "|".join(SERVICE_WORDS) + ")$"
# The title words (A) of the search vocabulary that begin with a word (LIKE) and have one of its forms (regex):
# one tsquery text, for ``HeadQuery`` and ``GoodsQuery``.
_TITLE_FORMS_SQL = (
    "SELECT string_agg(v.word || ':A', ' | ') FROM tenders_search_vocabulary v WHERE v.word LIKE %s AND v.word ~ %s"
)


class HeadQuery(OwnTsQuery):
    """The title words that are a compound query word's head followed by a service word, in titles (A)."""

    def __init__(self, head: str):
        self.head = head  # word_head returns letters only: no LIKE wildcard, no regex operator
        super().__init__()

    def as_sql(self, compiler, connection, **extra_context):
        sql = f"coalesce(to_tsquery('german', ({_TITLE_FORMS_SQL})), ''::tsquery)"
        return sql, [self.head + "%", _SERVICE_FORM.format(head=self.head)]


# Goods named after the work they serve: "Reinigungsmittel" are no "Reinigung", "Mähgeräte" no "Mahd".
GOODS_WORDS = (
    "mittel",
    "mitteln",
    "gerät",
    "geräte",
    "geräten",
    "maschine",
    "maschinen",
    "material",
    "materialien",
    "fahrzeug",
    "fahrzeuge",
    "fahrzeugen",
    "produkte",
    "produkten",
    "artikel",
    "bedarf",
    "zubehör",
)
MIN_GOODS_WORD = 5
_GOODS_FORM = "^{word}(s|n|e|en|es)?(" + "|".join(GOODS_WORDS) + ")$"


class GoodsQuery(OwnTsQuery):
    """Titles (A) naming goods after a plain query word ("Reinigungsmitteln" for "Reinigung"), not the word itself."""

    def __init__(self, word: str):
        self.word = word
        super().__init__()

    def as_sql(self, compiler, connection, **extra_context):
        sql = f"coalesce(to_tsquery('german', ({_TITLE_FORMS_SQL})) && !!to_tsquery('german', %s), ''::tsquery)"
        sql = f"!!({sql})" if self.invert else sql
        return sql, [self.word + "%", _GOODS_FORM.format(word=self.word), tsquery_operand(self.word, "A")]
