"""One-click triage from a mail: signed links "prüfen" / "nicht relevant" for one tender, one person, one tenant.

A mail row links to a confirmation page, never to the change itself: link scanners and preview panes fetch
every link of a mail, so the GET only shows what the button will do, and the POST (signed in, CSRF) moves the
card through the board's services. The token names the person the mail went to, the tender, the action and the
tenant's schema (ids repeat across tenants: another company's token is "not found" here), and it expires: a
digest is acted on within days, and an old forwarded mail should not keep moving cards.

Below the engines so the mails (``notifications.alerts``) make the links the board's pages (``notifications.bids``)
read. Pure apart from Django's signing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core import signing

SALT = "notifications.bid_links.triage"
REVIEW = "pruefen"
DISMISS = "nicht_relevant"
ACTIONS = (REVIEW, DISMISS)
MAX_AGE = timedelta(days=14)


def card_url(base_url: str, card_id: int) -> str:
    # A card's page on the board, for mails (reminders, mentions, award outcomes); the path is a public URL.
    return f"{base_url}/angebote/karte/{int(card_id)}/"


class TriageLinkExpired(Exception):
    """The token was genuine but is older than ``MAX_AGE``."""


@dataclass(frozen=True)
class TriageTarget:
    user_id: int
    tender_id: int
    action: str


def triage_token(*, user_id: int, tender_id: int, action: str, schema_name: str) -> str:
    if action not in ACTIONS:
        raise ValueError(f"unknown triage action {action!r}")
    return signing.dumps([int(user_id), int(tender_id), action, schema_name], salt=SALT, compress=True)


def triage_target(token: str, *, schema_name: str, max_age: timedelta = MAX_AGE) -> TriageTarget | None:
    """What a valid token of this tenant asks; None for anything forged, altered, foreign or malformed.

    Raises ``TriageLinkExpired`` for a genuine token of this tenant that is too old (the page says so).
    """
    try:
        payload = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired as exc:
        try:  # only a token of this tenant is "expired" here; another tenant's stays "not found"
            expired = signing.loads(token, salt=SALT)
        except (signing.BadSignature, ValueError, TypeError):
            return None
        if isinstance(expired, list) and len(expired) == 4 and expired[3] == schema_name:
            raise TriageLinkExpired from exc
        return None
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if not (isinstance(payload, list) and len(payload) == 4):
        return None
    user_id, tender_id, action, token_schema = payload
    if token_schema != schema_name or action not in ACTIONS:
        return None
    if not (isinstance(user_id, int) and isinstance(tender_id, int)):
        return None
    return TriageTarget(user_id=user_id, tender_id=tender_id, action=action)
