"""EMAIL_URL: the platform's outgoing mail in one value, read into Django's EMAIL_* settings.

The platform's mail carries first-login links (``platform_init``, ``tenant_create``), invitations
and password resets; tenants' alert mails go through each tenant's own SMTP settings instead.

    smtp://user:password@mail.example:587      SMTP with STARTTLS (required), port 587 by default
    smtp://relay.internal:25?starttls=off      SMTP without TLS: a relay or catcher on a trusted network
    smtps://user:password@mail.example:465     SMTP over TLS from the first byte, port 465 by default
    console://                                  mails written to the process's output (development only)
    anymail://postmark                          an ESP through django-anymail, by its backend's module name;
                                                its token comes from its own variable (ANYMAIL_POSTMARK_SERVER_TOKEN)

User and password are percent-encoded where they hold ``@ : / ? #`` or ``%``. ``?timeout=SECONDS``
(default 20) bounds every SMTP operation: without it Django's backend waits for ever on a silent server.
Refusals name the problem, never the password.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_TIMEOUT_SECONDS = 20
_DEFAULT_PORTS = {"smtp": 587, "smtps": 465}
_OFF = {"0", "off", "false", "no"}
_ON = {"1", "on", "true", "yes"}
# Modules of anymail.backends that are no ESP.
_NOT_PROVIDERS = {"base", "base_requests", "console", "test"}
EXAMPLES = "smtp://user:password@mail.example:587, smtps://…:465, console://, anymail://postmark"


@dataclass(frozen=True)
class EmailConfig:
    backend: str
    host: str = "localhost"
    port: int = 25
    username: str = ""
    password: str = ""
    use_tls: bool = False
    use_ssl: bool = False
    timeout: int = DEFAULT_TIMEOUT_SECONDS

    def settings(self) -> dict[str, object]:
        """Django's names for these values (``globals().update(…)`` in a settings module)."""
        return {
            "EMAIL_BACKEND": self.backend,
            "EMAIL_HOST": self.host,
            "EMAIL_PORT": self.port,
            "EMAIL_HOST_USER": self.username,
            "EMAIL_HOST_PASSWORD": self.password,
            "EMAIL_USE_TLS": self.use_tls,
            "EMAIL_USE_SSL": self.use_ssl,
            "EMAIL_TIMEOUT": self.timeout,
        }


def _refuse(problem: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"EMAIL_URL: {problem} (examples: {EXAMPLES}; see .env.example).")


def _options(query: str, allowed: set[str]) -> dict[str, str]:
    options = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise _refuse(f"unknown option {', '.join(unknown)}; known here: {', '.join(sorted(allowed)) or 'none'}")
    return options


def _timeout(options: dict[str, str]) -> int:
    raw = options.get("timeout", str(DEFAULT_TIMEOUT_SECONDS))
    if not raw.isdigit() or int(raw) == 0:
        raise _refuse(f"timeout must be a whole number of seconds above 0, not {raw!r}")
    return int(raw)


def _smtp(scheme: str, parts) -> EmailConfig:
    options = _options(parts.query, {"timeout"} | ({"starttls"} if scheme == "smtp" else set()))
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is no number; the URL (with its password) stays out of the message
        raise _refuse("the port must be a number") from None
    if not host:
        raise _refuse(f"{scheme}:// needs a host")
    starttls = options.get("starttls", "on").lower()
    if starttls not in _ON | _OFF:
        raise _refuse(f"starttls must be on or off, not {starttls!r}")
    return EmailConfig(
        backend=SMTP_BACKEND,
        host=host,
        port=port or _DEFAULT_PORTS[scheme],
        username=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        use_tls=scheme == "smtp" and starttls in _ON,
        use_ssl=scheme == "smtps",
        timeout=_timeout(options),
    )


def _anymail(parts) -> EmailConfig:
    provider = parts.netloc.lower()
    if parts.username or parts.password:
        raise _refuse("anymail:// takes no credentials; set the ESP's own ANYMAIL_… variable")
    _options(parts.query, set())
    if (
        not provider.isidentifier()
        or provider in _NOT_PROVIDERS
        or importlib.util.find_spec(f"anymail.backends.{provider}") is None
    ):
        raise _refuse(f"anymail://{provider} names no django-anymail backend (e.g. postmark, mailgun, amazon_ses)")
    return EmailConfig(backend=f"anymail.backends.{provider}.EmailBackend")


def email_config(url: str) -> EmailConfig:
    """The mail settings an EMAIL_URL stands for; ImproperlyConfigured for anything else."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme in _DEFAULT_PORTS:
        return _smtp(scheme, parts)
    if scheme == "console":
        if parts.netloc or parts.path.strip("/"):
            raise _refuse("console:// takes nothing after the scheme")
        _options(parts.query, set())
        return EmailConfig(backend=CONSOLE_BACKEND)
    if scheme == "anymail":
        return _anymail(parts)
    raise _refuse(f"unknown scheme {scheme + '://' if scheme else '(none)'}")
