"""Value objects returned by the fetcher.

Why separate: adapters persist ``ConditionalState`` between runs (ETag /
Last-Modified) and hand it back on the next ``get``; ``FetchResult`` is what
every adapter parses, so it has to be a plain, immutable, Django-free value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kernel.network.decoding import Decoded, decode_bytes

__all__ = ["ConditionalState", "FetchResult", "headers_to_dict"]

# Headers whose values cannot be comma-joined; on (rare, buggy) duplicates the first one wins.
_SINGLETON_HEADERS = frozenset(
    {"content-length", "content-type", "date", "etag", "last-modified", "location", "retry-after"}
)


def headers_to_dict(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Lower-cased header dict; repeated list-valued headers are joined with ", "."""
    result: dict[str, str] = {}
    for name, value in items:
        key = name.lower()
        if key not in result:
            result[key] = value
        elif key not in _SINGLETON_HEADERS:
            result[key] = f"{result[key]}, {value}"
    return result


@dataclass(frozen=True)
class ConditionalState:
    """Validators from a previous response; both optional."""

    etag: str | None = None
    last_modified: str | None = None

    @classmethod
    def from_headers(cls, headers: Mapping[str, str], previous: ConditionalState | None = None) -> ConditionalState:
        """Validators from response headers; a 304 may omit them, so fall back to ``previous``."""
        etag = headers.get("etag") or (previous.etag if previous else None)
        last_modified = headers.get("last-modified") or (previous.last_modified if previous else None)
        return cls(etag=etag, last_modified=last_modified)

    def request_headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


@dataclass(frozen=True)
class FetchResult:
    """Outcome of one successful ``get``/``post_json`` (2xx or 304).

    ``redirects`` lists the URLs that answered with a redirect, in order (``url`` first when
    there was any); ``final_url`` is where the body came from. ``headers`` are lower-cased;
    repeated headers are joined with ", " (see ``headers_to_dict``). ``elapsed`` covers retries, redirects and waits.
    """

    url: str
    final_url: str
    status: int
    headers: dict[str, str] = field(hash=False)
    body: bytes
    not_modified: bool
    conditional: ConditionalState
    elapsed: float
    redirects: tuple[str, ...] = ()

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")

    def decoded(self) -> Decoded:
        """Body as text, honouring the Content-Type charset (see :mod:`kernel.network.decoding`)."""
        return decode_bytes(self.body, content_type=self.content_type)
