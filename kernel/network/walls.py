"""Detect "walls": answers that are HTTP 200 but are not the page we asked for.

Why: portals answer a search with a login form, a cookie-consent interstitial
or a friendly error page - with status 200. Parsed naively that looks like
"no tenders today". A wall is never "zero results": adapters call
:func:`detect_wall` (or :func:`raise_for_wall`) before parsing and record a
``Blocked`` FetchRun instead of an empty one.

Signals, in order:

1. The final URL differs from the requested one and the *new* parts of its host
   or path look like a login (login, signin, anmelden, openid-connect, auth, sso,
   identity hosts such as ``id.dtvp.de``), consent (consent, cookie) or error page
   (error, fehler, maintenance/wartung, 404/500/502/503). Words already present in
   the requested URL are ignored, so ``/errors/`` -> ``/errors`` is no wall.
2. ``expected_marker`` (supplied by the adapter: a substring such as
   ``class="result-list"`` or a compiled regex) is missing from the text. If the
   page then contains a password field it is reported as ``"login"``, otherwise
   ``"missing-result-container"``.

Limits: query strings are not inspected (they usually carry the return URL, i.e.
our own words); a wall served at the requested URL is only caught by the marker.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from kernel.network.errors import Blocked
from kernel.network.result import FetchResult
from kernel.urls import ParsedUrl, UrlRefused, parse_url

__all__ = ["detect_wall", "raise_for_wall"]

Marker = str | re.Pattern[str]

_LOGIN_SUBSTRINGS = ("login", "logon", "signin", "sign-in", "anmelden", "anmeldung", "openid-connect")
_LOGIN_WORDS = re.compile(r"^(o?auth\d*|authn|authz|authori[sz]e|authenticat\w*|sso|saml\d*|cas|idp|keycloak)$")
_IDENTITY_HOST_LABELS = frozenset(
    {"id", "login", "auth", "sso", "account", "accounts", "identity", "idp", "iam", "keycloak", "signin"}
)
_CONSENT_SUBSTRINGS = ("consent", "cookie", "einwilligung")
_ERROR_SUBSTRINGS = ("error", "fehler", "maintenance", "wartung")
_ERROR_WORDS = frozenset({"404", "500", "502", "503"})
_PASSWORD_FIELD = re.compile(r"""<input\b[^>]*\btype\s*=\s*["']?password""", re.IGNORECASE)


def _words(url: str) -> tuple[set[str], str]:
    """Lower-cased host labels, path segments and their sub-words, plus the first host label."""
    parts = _parsed(url)
    host = parts.host if parts else ""
    labels = [label for label in host.split(".") if label]
    words: set[str] = set(labels)
    for segment in unquote(parts.path if parts else "").lower().split("/"):
        if segment:
            words.add(segment)
            words.update(w for w in re.split(r"[-_.;,=+~\s]+", segment) if w)
    return words, (labels[0] if len(labels) > 2 else "")


def _url_wall(requested_url: str, final_url: str) -> str | None:
    requested_words, requested_first = _words(requested_url)
    final_words, final_first = _words(final_url)
    new_words = final_words - requested_words

    def contains(substrings: tuple[str, ...]) -> bool:
        return any(s in word for word in new_words for s in substrings)

    identity_host = final_first in _IDENTITY_HOST_LABELS and final_first != requested_first
    if identity_host or contains(_LOGIN_SUBSTRINGS) or any(_LOGIN_WORDS.match(w) for w in new_words):
        return "login"
    if contains(_CONSENT_SUBSTRINGS):
        return "consent"
    if contains(_ERROR_SUBSTRINGS) or new_words & _ERROR_WORDS:
        return "error-page"
    return None


def _parsed(url: str) -> ParsedUrl | None:
    # Read as the fetcher read it (WHATWG, kernel.urls): the host of a hop is the host it went to.
    try:
        return parse_url(url)
    except UrlRefused:
        return None


def _same_url(a: str, b: str) -> bool:
    pa, pb = _parsed(a), _parsed(b)
    if pa is None or pb is None:
        return a == b
    return (pa.host, pa.path.rstrip("/"), pa.query) == (pb.host, pb.path.rstrip("/"), pb.query)


def _marker_present(text: str, marker: Marker) -> bool:
    if isinstance(marker, re.Pattern):
        return marker.search(text) is not None
    return marker in text


def detect_wall(*, requested_url: str, final_url: str, text: str, expected_marker: Marker | None) -> str | None:
    """Return "login" | "consent" | "error-page" | "missing-result-container", or None if no wall."""
    if not _same_url(requested_url, final_url):
        reason = _url_wall(requested_url, final_url)
        if reason is not None:
            return reason
    if expected_marker is not None and not _marker_present(text, expected_marker):
        return "login" if _PASSWORD_FIELD.search(text) else "missing-result-container"
    return None


def raise_for_wall(result: FetchResult, *, expected_marker: Marker | None, text: str | None = None) -> None:
    """Raise :class:`Blocked` if ``result`` is a wall. A 304 has no body, so only its URL is judged."""
    if result.not_modified:
        expected_marker, text = None, ""
    elif text is None:
        text = result.decoded().text
    reason = detect_wall(
        requested_url=result.url, final_url=result.final_url, text=text, expected_marker=expected_marker
    )
    if reason is not None:
        raise Blocked(result.final_url, reason)
