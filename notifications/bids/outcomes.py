"""Who the tenant is in award notices (tenant admins) and whom the team watches (every member): the writes.
The reads, with the board's win rate, are ``notifications.bids.outcome_selectors``.

Identities are the company's own records: names and former names, USt-IdNr, Handelsregisternummer and
addresses; an award notice naming one of them decides the tender's card (``notifications.alerts.awards``).
Because a wrong identity would move the team's cards, only tenant admins edit them. Watching a competitor
only tells the person who added it, so every member may add one (and remove their own; admins any).
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

import re
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.roles import user_is_tenant_admin
from kernel.errors import ApplicationError, NotFound, PermissionRefused
from notifications.alerts.award_rules import identifier_key, name_key
from notifications.models import (
    CompanyIdentity,
    IdentityKind,
    WatchedCompetitor,
)
from tenders.filter_limits import text_problem

VALUE_MAX_LENGTH = 300
_VAT_ID = re.compile(r"^[A-Z]{2}[0-9A-Z]{2,13}$")
_GERMAN_VAT_ID = re.compile(r"^DE\d{9}$")


def _clean(value: str, *, field: str) -> str:
    value = " ".join((value or "").split())
    if not value:
        raise ApplicationError(fields={field: _("Bitte einen Wert eingeben.")})
    if len(value) > VALUE_MAX_LENGTH or text_problem(value, max_length=VALUE_MAX_LENGTH):
        raise ApplicationError(fields={field: _("Der Wert ist zu lang oder enthält unzulässige Zeichen.")})
    return value


def identity_key(*, kind: str, value: str) -> str:
    """The key an identity is matched by; a USt-IdNr must look like one ("DE" and nine digits for Germany)."""
    if kind == IdentityKind.VAT_ID:
        key = identifier_key(value)
        if not _VAT_ID.match(key) or (key.startswith("DE") and not _GERMAN_VAT_ID.match(key)):
            raise ApplicationError(fields={"value": _("Keine gültige USt-IdNr. (z. B. DE123456789).")})
        return key
    key = identifier_key(value) if kind == IdentityKind.REGISTER_NO else name_key(value)
    if not key:
        raise ApplicationError(fields={"value": _("Bitte einen Wert eingeben.")})
    return key


@transaction.atomic
def company_identity_add(
    *, actor: AbstractBaseUser, kind: str, value: str, now: datetime | None = None
) -> CompanyIdentity:
    if not user_is_tenant_admin(actor):
        raise PermissionRefused(_("Die eigenen Firmenangaben ändern nur Administratoren."))
    if kind not in IdentityKind.values:
        raise ApplicationError(fields={"kind": _("Unbekannte Art.")})
    value = _clean(value, field="value")
    key = identity_key(kind=kind, value=value)
    existing = CompanyIdentity.objects.filter(kind=kind, key=key).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return CompanyIdentity.objects.create(
                kind=kind, value=value, key=key, created_by=actor, created_at=now or timezone.now()
            )
    except IntegrityError:  # added at the same moment by someone else: the same record
        return CompanyIdentity.objects.get(kind=kind, key=key)


@transaction.atomic
def company_identity_remove(*, actor: AbstractBaseUser, identity_id: int) -> None:
    if not user_is_tenant_admin(actor):
        raise PermissionRefused(_("Die eigenen Firmenangaben ändern nur Administratoren."))
    if not CompanyIdentity.objects.filter(pk=identity_id).delete()[0]:
        raise NotFound(_("Diesen Eintrag gibt es nicht."))


@transaction.atomic
def watched_competitor_add(
    *, actor: AbstractBaseUser, name: str = "", identifier: str = "", now: datetime | None = None
) -> WatchedCompetitor:
    """Watch a competitor by name, identifier or both; watching the same one again returns the first row."""
    name = " ".join((name or "").split())
    identifier = " ".join((identifier or "").split())
    if not name and not identifier:
        raise ApplicationError(fields={"name": _("Bitte einen Namen oder eine Kennung eingeben.")})
    label = _clean(name or identifier, field="name")
    if identifier:
        _clean(identifier, field="identifier")
    keys = {"name_key": name_key(name) if name else "", "id_key": identifier_key(identifier) if identifier else ""}
    if not any(keys.values()):
        raise ApplicationError(fields={"name": _("Bitte einen Namen oder eine Kennung eingeben.")})
    existing = WatchedCompetitor.objects.filter(**keys).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return WatchedCompetitor.objects.create(
                label=label, created_by=actor, created_at=now or timezone.now(), **keys
            )
    except IntegrityError:
        return WatchedCompetitor.objects.get(**keys)


@transaction.atomic
def watched_competitor_remove(*, actor: AbstractBaseUser, competitor_id: int) -> None:
    competitor = WatchedCompetitor.objects.filter(pk=competitor_id).first()
    if competitor is None:
        raise NotFound(_("Diesen Eintrag gibt es nicht."))
    if competitor.created_by_id != actor.pk and not user_is_tenant_admin(actor):
        raise PermissionRefused(_("Nur wer den Wettbewerber beobachtet, oder ein Administrator kann ihn entfernen."))
    competitor.delete()
