"""Which mail servers (SMTP out, IMAP in) a tenant may configure.

Why: the worker connects to whatever host is stored here, and the error it reports
back (test mail, mailbox check) would let a customer probe our internal network.
So the host must be a plain host name or IP whose every address is public — the
same SSRF rule as for source fetching (loopback only where ``SOURCES_ALLOW_LOOPBACK``) —
or an internal server the operator approved for this protocol and port (``grants``, from
``accounts.selectors.internal_relay_grants``).

Limit: checked when saved; a host whose DNS later points inward is caught only
by the component that connects (which checks the address it connects to the same way).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.translation import gettext as _

from kernel.errors import ApplicationError
from kernel.network import (
    RelayGrant,
    ResolutionFailed,
    Resolver,
    SsrfRefused,
    relay_exemption,
    resolve_and_check,
    system_resolver,
)

_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")
_IPV6 = re.compile(r"^\[?[0-9a-f:.]+\]?$")


def mail_host_check(
    host: str,
    port: int,
    *,
    allow_loopback: bool,
    protocol: str = "smtp",
    grants: Sequence[RelayGrant] = (),
    resolver: Resolver = system_resolver,
) -> str:
    """Return the normalised host name, or raise ``ApplicationError`` with a message for the form's ``host``."""
    host = (host or "").strip().rstrip(".").lower()
    if not (_HOST.match(host) or _IPV6.match(host)):
        raise _host_refused(_("Bitte einen Hostnamen wie mail.example.de angeben."))
    exempt = relay_exemption(grants, protocol=protocol, host=host.strip("[]"), port=port)
    try:
        resolve_and_check(
            f"//{host}:{port}", host, port, resolver=resolver, allow_loopback=allow_loopback, exempt=exempt
        )
    except SsrfRefused as exc:
        raise _host_refused(
            _("Der Server %(host)s liegt in einem internen Netz (%(category)s) und ist nicht erlaubt.")
            % {"host": host, "category": exc.category}
            + " "
            + _("Interne Mailserver gibt der Betreiber der Plattform frei; bitte dort nachfragen.")
        ) from exc
    except ResolutionFailed as exc:
        raise _host_refused(_("Der Server %(host)s lässt sich nicht auflösen.") % {"host": host}) from exc
    return host.strip("[]")


def _host_refused(message: str) -> ApplicationError:
    return ApplicationError(fields={"host": message}, code="host")
