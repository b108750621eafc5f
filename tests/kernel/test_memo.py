"""The memo rule of every normalisation cache: short texts are remembered, long ones computed each time."""

from __future__ import annotations

from kernel.memo import short_text_memo


def test_short_texts_are_remembered_and_long_ones_computed_every_time():
    calls: list[tuple] = []

    @short_text_memo(max_chars=5, maxsize=16)
    def shout(text: str, times: int) -> str:
        calls.append((text, times))
        return text.upper() * times

    assert shout("kiel", 2) == shout("kiel", 2) == "KIELKIEL"
    assert calls == [("kiel", 2)]  # the second call came from the memo
    long = "x" * 6
    assert shout(long, 1) == shout(long, 1) == "XXXXXX"
    assert calls[1:] == [(long, 1), (long, 1)]  # computed twice, never kept
    assert shout.cache_info().currsize == 1
    assert shout.__name__ == "shout" and shout.max_chars == 5
    shout.cache_clear()
    assert shout.cache_info().currsize == 0


def test_the_memo_is_bounded():
    @short_text_memo(max_chars=10, maxsize=3)
    def same(text: str) -> str:
        return text

    for word in ("a", "b", "c", "d", "e"):
        same(word)
    assert same.cache_info().currsize == 3
