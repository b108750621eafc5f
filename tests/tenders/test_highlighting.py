"""Which words a query marks: whole words, compound parts, umlaut spellings, CPV labels; never the excluded."""

from __future__ import annotations

import pytest

from tenders.highlighting import Highlighter, has_hit, tender_highlights

pytestmark = pytest.mark.django_db


def _hits(q: str, text: str) -> list[str]:
    return [piece for piece, hit in Highlighter(q).segments(text) if hit]


def test_whole_words_stems_and_compound_parts_are_marked():
    assert _hits("Reinigung", "Gebäudereinigung und Reinigungen, Glas") == ["Gebäudereinigung", "Reinigungen"]
    # "Frontmähwerk" holds "mähe" (front|mäh(e)|werk): the index has that part too, so the mark tells the truth.
    assert _hits("Mäher", "Raupen- Schlegelmäher mit Frontmähwerk") == ["Schlegelmäher", "Frontmähwerk"]
    assert _hits("Sanierung Brücke", "Brückensanierung Talbrücke") == ["Brückensanierung", "Talbrücke"]
    assert _hits("Muell", "Abholung von Müll") == ["Müll"]


def test_excluded_words_and_or_are_not_marked():
    assert _hits("Reinigung -Glas", "Glasreinigung und Glas") == ["Glasreinigung"]
    assert _hits("Dach or Fenster", "Fenster und Dach und oder") == ["Fenster", "Dach"]


def test_segments_join_back_to_the_text_and_no_query_marks_nothing():
    text = "Los 1: <b>Gebäudereinigung</b> & Co."
    segments = Highlighter("Reinigung").segments(text)
    assert "".join(piece for piece, _hit in segments) == text
    assert Highlighter("").segments(text) == ((text, False),)
    assert not has_hit(Highlighter("-Reinigung").segments(text))


def test_snippet_is_a_window_around_the_first_hit():
    description = " ".join(f"Wort{i}" for i in range(100)) + " Unterhaltsreinigung " + " ".join(["Ende"] * 100)
    snippet = Highlighter("Reinigung").snippet(description)
    text = "".join(piece for piece, _hit in snippet)
    assert text.startswith("… ") and text.endswith(" …")
    assert "Unterhaltsreinigung" in text and len(text.split()) < 40
    assert Highlighter("Reinigung").snippet("nichts davon") == ()


def test_cpv_labels_are_exact_and_marked_when_hit():
    class Row:
        pk = 1
        title = "Dienste im Rathaus"  # the label is the only reason it matched
        description = ""
        cpv_codes = ["79713000", "45000000"]

    highlight = tender_highlights(q="Bewachung", tenders=[Row()])[1]
    assert [(hit.code, "".join(p for p, _ in hit.label), hit.hit) for hit in highlight.cpv] == [
        ("79713000", "Bewachungsdienste", True),
        ("45000000", "Bauarbeiten", False),
    ]
    assert not has_hit(highlight.title)


def test_a_hit_only_in_a_parent_label_shows_that_label_named_as_the_parent():
    """The search carries the labels of a code's groups and classes; a hit there is explained too."""

    class Row:
        pk = 1
        title = "Bewachung Kaserne"
        description = ""
        cpv_codes = ["79713000", "45000000"]

    highlight = tender_highlights(q="Detekteien", tenders=[Row()])[1]
    shown = [(hit.code, "".join(p for p, _ in hit.label), hit.hit, hit.parent_of) for hit in highlight.cpv]
    assert shown == [
        ("79713000", "Bewachungsdienste", False, ""),
        ("79700000", "Dienstleistungen von Detekteien und Sicherheitsdiensten", True, "79713000"),  # nearest hit
        ("45000000", "Bauarbeiten", False, ""),
    ]
    parent = highlight.cpv[1]
    assert [text for text, hit in parent.label if hit] == ["Detekteien"]
    # A parent's label counts by its whole words: the search does not hold the part "Leistungen" of its
    # "Dienstleistungen" (issue 30), so no parent explains that word.
    parts_only = tender_highlights(q="Leistungen", tenders=[Row()])[1]
    assert [(hit.code, hit.hit) for hit in parts_only.cpv] == [("79713000", False), ("45000000", False)]

    own = tender_highlights(q="Bewachung", tenders=[Row()])[1]  # the code's own label explains it: no parent
    assert [hit.code for hit in own.cpv] == ["79713000", "45000000"]
    assert [hit.code for hit in tender_highlights(q="", tenders=[Row()])[1].cpv] == ["79713000", "45000000"]


def test_a_text_nobody_prepared_costs_one_query_not_one_per_word(django_assert_num_queries):
    highlighter = Highlighter("Reinigung")
    text = "Gebäudereinigung, Unterhaltsreinigung, Glasreinigung und Reinigungsdienste"
    with django_assert_num_queries(1):
        assert len([piece for piece, hit in highlighter.segments(text) if hit]) == 4
    snippet_only = Highlighter("Reinigung")
    with django_assert_num_queries(1):
        assert has_hit(snippet_only.snippet("Fensterreinigung, Grundreinigung und Sonderreinigung"))


def test_a_prepared_page_is_not_read_word_by_word_again(monkeypatch, django_assert_num_queries):
    # A result page prepares its texts once; each title, snippet and label asks again and must be free.
    import tenders.highlighting as highlighting

    texts = ["Gebäudereinigung im Rathaus", "Unterhaltsreinigung und Glasreinigung der Schulen"]
    highlighter = Highlighter("Reinigung")
    highlighter.prepare(texts)
    read = []
    monkeypatch.setattr(highlighting, "text_words", lambda text: read.append(text) or ())
    with django_assert_num_queries(0):
        assert [piece for piece, hit in highlighter.segments(texts[0]) if hit] == ["Gebäudereinigung"]
        assert has_hit(highlighter.snippet(texts[1]))
        highlighter.prepare(texts)
    assert read == []


def test_thesaurus_words_are_marked_in_texts_but_not_in_cpv_labels():
    from types import SimpleNamespace

    highlighter = Highlighter("Müllabfuhr")
    assert [piece for piece, hit in highlighter.segments("Abfallentsorgung Restmüll, Bauschutt") if hit] == [
        "Abfallentsorgung",
        "Restmüll",
    ]
    label = "Transport von Haushaltsabfällen"  # "Abfall" is a synonym of "Müll": not looked for in labels
    assert has_hit(highlighter.segments(label)) and not has_hit(highlighter.segments(label, synonyms=False))
    tender = SimpleNamespace(pk=1, title="Abfallentsorgung", description="", cpv_codes=["90512000"])
    marks = tender_highlights(q="Müllabfuhr", tenders=[tender])[1]
    assert has_hit(marks.title) and not marks.cpv[0].hit
    assert not has_hit(Highlighter("Reinigung -Müllabfuhr").segments("Abfallentsorgung"))


def test_a_description_that_repeats_the_title_says_nothing_more():
    from tenders.highlighting import description_beyond_title

    assert description_beyond_title("Reinigung Schule", "Reinigung Schule") == ""
    assert description_beyond_title("Reinigung Schule", "  reinigung   SCHULE. ") == ""
    assert description_beyond_title("Reinigung Schule Nord", "Reinigung Schule …") == ""  # a cut copy
    assert (
        description_beyond_title("Reinigung Schule", "Reinigung Schule – Unterhaltsreinigung") == "Unterhaltsreinigung"
    )
    assert description_beyond_title("Reinigung Schule", "Reinigung Schulen und Kitas") == "Reinigung Schulen und Kitas"
    assert description_beyond_title("Reinigung", "Glasreinigung der Fenster") == "Glasreinigung der Fenster"
    assert description_beyond_title("", "Text") == "Text"


def test_the_snippet_never_repeats_the_title():
    class Row:
        pk = 1
        title = "Reinigung Grundschule Nord"
        description = "Reinigung Grundschule Nord"
        cpv_codes = []

    class Longer(Row):
        pk = 2
        description = "Reinigung Grundschule Nord: Unterhaltsreinigung und Glasreinigung der Fenster"

    highlights = tender_highlights(q="Reinigung", tenders=[Row(), Longer()])
    assert highlights[1].snippet == ()
    assert has_hit(highlights[1].title)
    assert "".join(text for text, _hit in highlights[2].snippet) == "Unterhaltsreinigung und Glasreinigung der Fenster"


def test_a_text_asked_again_is_answered_from_its_first_marking(monkeypatch):
    # A page's rows share CPV labels: each label is split and marked once per highlighter.
    import tenders.highlighting as highlighting

    highlighter = Highlighter("Reinigung")
    label = "Reinigungsdienste für Gebäude"
    first = highlighter.segments(label, synonyms=False)
    monkeypatch.setattr(highlighting, "text_pieces", lambda text: pytest.fail(f"split again: {text!r}"))
    assert highlighter.segments(label, synonyms=False) is first
    monkeypatch.undo()
    # the flags are part of what was asked: a label's parts that do not count give another marking
    assert has_hit(highlighter.segments("Glasreinigung"))
    assert not has_hit(highlighter.segments("Glasreinigung", parts=False))
    assert not has_hit(Highlighter("Glas").segments("Glasreinigung", parts=False))


def test_words_stemmed_once_are_known_to_the_next_page_of_the_process(django_assert_num_queries):
    text = "Gebäudereinigung, Unterhaltsreinigung und Glasreinigung im Rathaus"
    first, again, third = (Highlighter("Reinigung") for _ in range(3))  # three requests' highlighters
    with django_assert_num_queries(1):
        marked = first.segments(text)
    with django_assert_num_queries(0):
        assert again.segments(text) == marked
    # A new word among known ones: only it is asked for, in one statement.
    with django_assert_num_queries(1) as captured:
        assert has_hit(third.segments("Grundreinigung der Schulen"))
    (asked,) = captured.captured_queries
    assert "grundreinigung" in asked["sql"] and "unterhaltsreinigung" not in asked["sql"]


def test_kept_stems_mark_exactly_as_stems_read_fresh():
    from tenders.highlighting import stems_forget

    texts = [
        "Unterhaltsreinigung und Glasreinigung der Grundschulen",
        "Straßenbauarbeiten: Fahrbahnerneuerung, Gehwege und Straßenreinigung",
        "Bewachungsdienste für Gemeinschaftsunterkünfte",
    ]
    queries = ["Reinigung", "Straße", "Bewachung Unterkunft"]
    fresh = []
    for q in queries:
        stems_forget()
        fresh.append([Highlighter(q).segments(text) for text in texts])
    warm = [[Highlighter(q).segments(text) for text in texts] for q in queries]  # every word known by now
    assert warm == fresh
    assert any(has_hit(segments) for row in warm for segments in row)


def test_the_kept_stems_stay_within_their_bound(monkeypatch):
    import tenders.highlighting as highlighting

    monkeypatch.setattr(highlighting, "STEMS_REMEMBERED", 5)
    for n, word in enumerate(["Reinigung", "Glasreinigung", "Unterhaltsreinigung", "Grundreinigung"] * 3):
        assert has_hit(Highlighter("Reinigung").segments(f"{word} Los {n}"))
        assert len(highlighting._known_stems) <= 5
