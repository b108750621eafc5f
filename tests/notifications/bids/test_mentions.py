"""Which handles a comment names, and whom they mean: pure, no database."""

from __future__ import annotations

from notifications.bids.mentions import MAX_MENTIONS, Person, mention_handles, mentioned_people

ANNA = Person(id=1, email="anna.schmidt@alpha.example", first_name="Anna", last_name="Schmidt")
BERT = Person(id=2, email="b.mueller@alpha.example", first_name="Bert", last_name="Müller")
CARL = Person(id=3, email="carl@alpha.example")
CARL_TOO = Person(id=4, email="carl@elsewhere.example")


def test_handles_are_read_at_word_starts_only_lower_cased_once_each():
    text = "@Anna.Schmidt bitte prüfen, cc @b.mueller. Mail an x@alpha.example ist keine Erwähnung; @anna.schmidt"
    assert mention_handles(text) == ["anna.schmidt", "b.mueller"]


def test_a_person_is_named_by_first_and_last_name_or_by_the_local_part_of_the_address():
    assert mentioned_people("@bert.müller und @anna.schmidt", [ANNA, BERT]) == [BERT, ANNA]
    assert mentioned_people("(@b.mueller)", [ANNA, BERT]) == [BERT]


def test_an_ambiguous_or_unknown_handle_mentions_nobody():
    assert mentioned_people("@carl @niemand", [CARL, CARL_TOO]) == []


def test_mentions_are_bounded():
    text = " ".join(f"@p{i}" for i in range(MAX_MENTIONS + 10))
    assert len(mention_handles(text)) == MAX_MENTIONS
