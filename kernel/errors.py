"""The one application error: a refusal the person who asked can act on, with its message in German.

Services raise ``ApplicationError`` (or a subclass naming the domain); edges map it and never
guess: the partner API answers JSON with status 400/403/404 (``notifications.api.errors``),
portal pages render the message with that status (``config.middleware``), admin actions show it
as a message and management commands turn it into a ``CommandError`` (``config.edges``).

``message`` is for the request as a whole, ``fields`` maps an input (dotted for nested input, e.g.
``filters.cpv``) to its message, ``code`` is a stable machine-readable name, ``extra`` carries data
an edge may show. Messages may be lazy translations: edges render them in the request's language.

Plain Python on purpose: pure cores (filter parsing) raise it without importing Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class ApplicationError(Exception):
    """The request is refused (400 unless a subclass says otherwise)."""

    default_code: ClassVar[str] = "invalid"
    status: ClassVar[int] = 400

    def __init__(
        self,
        message: Any = "",
        *,
        code: str | None = None,
        fields: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ):
        self.message = message
        self.code = code or self.default_code
        self.fields = dict(fields or {})
        self.extra = dict(extra or {})
        super().__init__(self.text)

    @property
    def text(self) -> str:
        """The message, else every field's message ("name: message; ..."): never empty for a person."""
        if str(self.message):
            return str(self.message)
        return "; ".join(f"{name}: {message}" for name, message in self.fields.items())

    @property
    def messages(self) -> list[str]:
        """Every message, the general one first (for a list on a page or in a command's output)."""
        general = [str(self.message)] if str(self.message) else []
        return general + [str(message) for message in self.fields.values()]


class NotFound(ApplicationError):
    """What was asked for does not exist (or is not the asker's to see): 404."""

    default_code = "not_found"
    status = 404


class PermissionRefused(ApplicationError):
    """The asker may not do this: 403."""

    default_code = "permission_denied"
    status = 403
