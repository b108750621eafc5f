"""Memos for pure functions of short texts: the one rule for every normalisation cache.

Postcodes, dates, towns, names and titles recur across the notices of a feed, so their
normalised values are remembered per process. A field holding a pasted paragraph (broken or
hostile input) would only fill the memo and keep the text alive, so a call with a text argument
longer than ``max_chars`` is computed and not kept. Arguments must be hashable; results should be
immutable (they are shared between callers).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import Any

__all__ = ["short_text_memo"]


def short_text_memo(*, max_chars: int, maxsize: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``lru_cache(maxsize)`` for calls whose text arguments are all at most ``max_chars`` long.

    The wrapper exposes ``cache_info``, ``cache_clear`` and ``max_chars``; positional arguments only.
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        remembered = lru_cache(maxsize=maxsize)(func)

        def call(*args):
            for arg in args:
                if isinstance(arg, str) and len(arg) > max_chars:
                    return func(*args)
            return remembered(*args)

        update_wrapper(call, func)
        call.cache_info = remembered.cache_info  # type: ignore[attr-defined]
        call.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
        call.max_chars = max_chars  # type: ignore[attr-defined]
        return call

    return decorate
