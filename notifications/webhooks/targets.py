"""Which webhook URLs we are willing to POST to.

Why: a webhook URL is typed in by a customer and our worker sends requests to
it, so without a check it is a server-side request forgery vector (cloud
metadata, the database, the LAN). Rules: HTTPS only, no credentials in the URL,
and every address the host resolves to must be public (the SSRF guard of
``kernel.network``). The check runs when the webhook is saved and again before
every delivery; the HTTP transport re-checks at connect time (DNS rebinding).

Limit: plain ``http://`` is accepted only for loopback hosts and only where
loopback is allowed at all (``webhook_loopback_allowed``: ``SOURCES_ALLOW_LOOPBACK`` in
tests, ``WEBHOOKS_ALLOW_LOOPBACK`` on a local machine for the demo's receiver), because
nothing leaves the machine there. Production never allows either.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.utils.translation import gettext as _

from kernel.errors import ApplicationError
from kernel.network import ResolutionFailed, Resolver, SsrfRefused, resolve_and_check, system_resolver
from kernel.urls import AMBIGUOUS, BACKSLASH, CONTROL, USERINFO, link_refusal, parse_url

MAX_URL_LENGTH = 2000


class WebhookTargetRefused(ApplicationError):
    """The URL must not be used. ``retryable`` is True only for a DNS failure (may be temporary)."""

    default_code = "url"

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message, fields={"url": message})
        self.retryable = retryable


def webhook_loopback_allowed() -> bool:
    """Loopback targets (plain http included): tests, and the local demo's webhook receiver; never production."""
    return bool(settings.SOURCES_ALLOW_LOOPBACK or getattr(settings, "WEBHOOKS_ALLOW_LOOPBACK", False))


def _is_loopback_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def webhook_url_check(url: str, *, allow_loopback: bool, resolver: Resolver = system_resolver) -> str:
    """Return the URL (trimmed) if we may POST to it, else raise :class:`WebhookTargetRefused`."""
    url = (url or "").strip()
    if not url or len(url) > MAX_URL_LENGTH:
        raise WebhookTargetRefused(_("Bitte eine URL mit höchstens %(max)d Zeichen angeben.") % {"max": MAX_URL_LENGTH})
    # Read as a browser reads it (kernel.urls, WHATWG): a backslash is a path separator there, so
    # ``https://evil.example\\@hooks.example/`` would be a URL of evil.example while other readers see
    # hooks.example. A URL that readers disagree on, or that hides a host behind user:pass@, is refused.
    if not url.lower().startswith(("https:", "http:")):
        raise WebhookTargetRefused(_("Nur HTTPS-Adressen sind erlaubt."))
    refusal = link_refusal(url)
    if refusal is not None:
        if refusal.reason == USERINFO:
            raise WebhookTargetRefused(_("Zugangsdaten in der URL sind nicht erlaubt."))
        if refusal.reason in (BACKSLASH, AMBIGUOUS, CONTROL):
            raise WebhookTargetRefused(
                _("Die URL ist mehrdeutig: Browser lesen darin einen anderen Host als angezeigt.")
            )
        raise WebhookTargetRefused(_("Die URL ist ungültig."))
    parts = parse_url(url)
    host = parts.host.rstrip(".")
    port = parts.port
    scheme = parts.scheme
    if not host:
        raise WebhookTargetRefused(_("Die URL enthält keinen Host."))
    if scheme == "http" and not (allow_loopback and _is_loopback_host(host)):
        raise WebhookTargetRefused(_("Nur HTTPS-Adressen sind erlaubt."))
    port = port or (443 if scheme == "https" else 80)
    try:
        resolve_and_check(parts.href, host, port, resolver=resolver, allow_loopback=allow_loopback)
    except SsrfRefused as exc:
        raise WebhookTargetRefused(
            _("Der Host %(host)s zeigt auf eine interne Adresse (%(category)s) und ist nicht erlaubt.")
            % {"host": host, "category": exc.category}
        ) from exc
    except ResolutionFailed as exc:
        raise WebhookTargetRefused(
            _("Der Host %(host)s lässt sich nicht auflösen.") % {"host": host}, retryable=True
        ) from exc
    return parts.href  # the serialised form: the delivery's HTTP client reads the host that was checked
