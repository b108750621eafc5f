"""Bounded body download.

Why: a misconfigured portal (or a hostile redirect target) can send gigabytes or a
decompression bomb. The limit applies to the *decoded* bytes we keep, is checked
against Content-Length before reading, and the stream is cut as soon as it is
exceeded. A wall-clock deadline guards against slow-drip servers, which httpx's
per-operation timeouts do not catch.

Limits: Content-Length refers to the encoded (possibly compressed) size, so the
early check is only a shortcut; the streamed count is authoritative.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from kernel.network.errors import TooLarge

__all__ = ["read_limited"]


def read_limited(
    response: httpx.Response,
    url: str,
    *,
    limit: int,
    truncate: bool,
    deadline: float,
    clock: Callable[[], float],
) -> bytes:
    """Read at most ``limit`` bytes: raise :class:`TooLarge` (or keep the first ``limit`` bytes if
    ``truncate``, as RFC 9309 allows for robots.txt); raise ``httpx.ReadTimeout`` after ``deadline``."""
    declared = response.headers.get("content-length", "")
    if not truncate and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise TooLarge(url, limit=limit, declared=int(declared))
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            if truncate:
                chunks.append(chunk[: len(chunk) - (size - limit)])
                break
            raise TooLarge(url, limit=limit)
        chunks.append(chunk)
        if clock() > deadline:
            raise httpx.ReadTimeout(f"response from {url} not complete before the total deadline")
    return b"".join(chunks)
