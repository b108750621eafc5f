"""URLs read as browsers read them: the one parser of every host check, link and fetch target.

Why not ``urllib.parse``: it follows RFC 3986, browsers follow the WHATWG URL Standard, and
where they differ an attacker picks the reading. ``https://evil.example\\@www.tender24.de/x``
is host ``www.tender24.de`` to ``urlsplit`` but ``evil.example`` to every browser (a
backslash is a path separator in http(s) URLs). A check that reads a host must read the host
the user's browser (or our fetcher) will contact, so every such check parses here.

The parser is ada (``ada-url`` on PyPI: Python bindings of the C++ parser Node.js uses),
which follows the WHATWG URL Standard: tabs and newlines are removed, leading and trailing
C0 controls and spaces are stripped, ``\\`` is ``/`` in special schemes, hosts are
percent-decoded, IDNA-mapped (UTS #46) and lower-cased, and IPv4 numbers in any notation
(``0x7f.1``) become dotted quads.

Links we store or render (``link_refusal``) are held to more than a browser: no user name
or password (``user:pass@host`` shows the reader a host that is not the target), no control
characters, no backslash before the query, and its host as written must be the host browsers
read (RFC 3986 readers such as ``urllib.parse`` must not see another one). Pure: no Django,
nothing from the apps.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from ada_url import URL

__all__ = [
    "ParsedUrl",
    "UrlRefused",
    "host_normalised",
    "link_refusal",
    "parse_url",
    "url_host",
    "web_url",
]

WEB_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

# Reasons of ``UrlRefused`` and the sentences that name them in problems and errors.
INVALID, SCHEME, NO_HOST, USERINFO, CONTROL, BACKSLASH, AMBIGUOUS = (
    "invalid", "scheme", "no_host", "userinfo", "control", "backslash", "ambiguous",
)  # fmt: skip
_SENTENCES = {
    INVALID: "is no URL a browser can read",
    SCHEME: "is no http(s) link with a host",
    NO_HOST: "is no http(s) link with a host",
    USERINFO: "carries a user name or password before its host (user:pass@), which hides the real host",
    CONTROL: "contains control characters (tabs, newlines) that browsers remove before reading it",
    BACKSLASH: "has a backslash before its query, which browsers read as '/' (the host is not the one it shows)",
    AMBIGUOUS: "is written so that browsers read another host than other readers do",
}


class UrlRefused(ValueError):
    """A URL that is not read (``reason`` one of the constants above; ``str()`` is a full sentence)."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text[:120]!r} {_SENTENCES[reason]}")

    @property
    def sentence(self) -> str:
        """What is wrong, without the URL: "is no http(s) link with a host"."""
        return _SENTENCES[self.reason]


@dataclass(frozen=True)
class ParsedUrl:
    """A URL as the WHATWG URL Standard reads it. ``href`` is its serialisation, which every
    reader (``urlsplit``, httpx, browsers) reads the same way."""

    href: str
    scheme: str  # lower case, without ":"
    username: str
    password: str
    host: str  # ASCII (IDNA), lower case; an IPv6 address without brackets; "" for host-less schemes
    port: int | None  # None: the scheme's default
    path: str
    query: str  # without "?"
    fragment: str  # without "#"

    @property
    def has_userinfo(self) -> bool:
        return bool(self.username or self.password)

    @property
    def effective_port(self) -> int | None:
        return self.port if self.port is not None else DEFAULT_PORTS.get(self.scheme)

    @property
    def authority(self) -> str:
        """``host[:port]`` as the serialisation writes it (IPv6 in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}" if self.port is not None else host


def parse_url(text: str, *, base: str | None = None) -> ParsedUrl:
    """``text`` (resolved against ``base`` as a browser resolves an href) read by the WHATWG rules.

    Raises ``UrlRefused`` (reason ``invalid``) for what a browser cannot read either.
    """
    if not isinstance(text, str) or (base is not None and not isinstance(base, str)):
        raise UrlRefused(str(text), INVALID)
    try:
        url = URL(text, base=base) if base else URL(text)
    except ValueError:
        raise UrlRefused(text, INVALID) from None
    port = url.port
    return ParsedUrl(
        href=url.href,
        scheme=url.protocol.rstrip(":"),
        username=url.username,
        password=url.password,
        host=url.hostname.strip("[]"),
        port=int(port) if port else None,
        path=url.pathname,
        query=url.search.removeprefix("?"),
        fragment=url.hash.removeprefix("#"),
    )


def web_url(text: str, *, base: str | None = None) -> ParsedUrl:
    """An http(s) URL with a host and without user name or password, or ``UrlRefused``."""
    parsed = parse_url(text, base=base)
    if parsed.scheme not in WEB_SCHEMES:
        raise UrlRefused(text, SCHEME)
    if not parsed.host:
        raise UrlRefused(text, NO_HOST)  # http(s) URLs always have one; kept for readers of this rule
    if parsed.has_userinfo:
        raise UrlRefused(text, USERINFO)
    return parsed


def url_host(text: str, *, base: str | None = None) -> str:
    """The host a browser would contact for ``text`` (any scheme), "" when it cannot be read."""
    try:
        return parse_url(text, base=base).host
    except UrlRefused:
        return ""


def link_refusal(text: str) -> UrlRefused | None:
    """Why ``text`` may not be stored or rendered as a link, or None when it may (as given).

    A link is kept as it was written, so what it was written as must mean the same to every
    reader: the browser a user clicks in, and each check that reads its host.
    """
    if not isinstance(text, str):
        return UrlRefused(str(text), SCHEME)
    refused = _refusal(text)
    return None if refused is None else UrlRefused(*refused)


# A pure rule over the text, and the ingest asks it twice per link (at the boundary, then when the record is
# stored): two WHATWG and one RFC 3986 reading were a tenth of the writer's time. Answers are cached as
# (text, reason), never as exception instances a caller might raise and so change.
@lru_cache(maxsize=8192)
def _refusal(text: str) -> tuple[str, str] | None:
    refused = _refusal_of(text)
    return None if refused is None else (refused.text, refused.reason)


def _refusal_of(text: str) -> UrlRefused | None:
    candidate = text.strip()
    if not candidate.isprintable():  # control characters browsers strip or act on
        return UrlRefused(candidate, CONTROL)
    try:
        parsed = web_url(candidate)
    except UrlRefused as refused:
        return refused
    if "\\" in candidate.partition("?")[0].partition("#")[0]:
        return UrlRefused(candidate, BACKSLASH)
    written = _rfc3986_host(candidate)
    if not written or host_normalised(parsed.host) != host_normalised(written):
        return UrlRefused(candidate, AMBIGUOUS)
    return None


def _rfc3986_host(text: str) -> str:
    # The other reading: RFC 3986 as urllib.parse implements it, which checks outside this module
    # (and every Python library) apply. A link kept as written must name the same host to both:
    # "https:/host" (no "//"), "%2e" in a host, "0x7f.1" or a NFKC-changing host do not.
    try:
        return urlsplit(text).hostname or ""
    except ValueError:
        return ""


def host_normalised(host: str) -> str:
    """A host name as a URL's host reads it: IDNA (ASCII), lower case, no brackets, no trailing dot.

    For comparing configured host names with parsed hosts; a name IDNA refuses stays as given
    (lower-cased), so it matches nothing a parsed URL can produce.
    """
    host = host.strip().strip("[]").rstrip(".").lower()
    if host.isascii() or any(c in host for c in "/\\?#@:%") or not host.isprintable():
        return host
    # The URL parser's own host step (UTS #46 mapping, then Punycode), not a second IDNA library.
    return url_host(f"http://{host}/").rstrip(".") or host
