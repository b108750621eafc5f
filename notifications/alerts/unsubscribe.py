"""Signed one-click unsubscribe tokens (``List-Unsubscribe``), per saved search or for the digest.

The token names the tenant schema as well: ids repeat across tenants, so a token
from one company's mail must never switch off another company's saved search.
Tokens do not expire on purpose; an old mail's unsubscribe link must keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

SALT = "notifications.alerts.unsubscribe"
SCOPE_SEARCH = "search"
SCOPE_DIGEST = "digest"


@dataclass(frozen=True)
class UnsubscribeTarget:
    scope: str  # search | digest
    object_id: int  # saved search id, or user id for the digest


def unsubscribe_token(*, scope: str, object_id: int, schema_name: str) -> str:
    if scope not in (SCOPE_SEARCH, SCOPE_DIGEST):
        raise ValueError(f"unknown unsubscribe scope {scope!r}")
    return signing.dumps([scope, int(object_id), schema_name], salt=SALT)


def unsubscribe_target(token: str, *, schema_name: str) -> UnsubscribeTarget | None:
    """The target of a valid token for this tenant; None for anything forged, altered or foreign."""
    try:
        scope, object_id, token_schema = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if token_schema != schema_name or scope not in (SCOPE_SEARCH, SCOPE_DIGEST) or not isinstance(object_id, int):
        return None
    return UnsubscribeTarget(scope=scope, object_id=object_id)
