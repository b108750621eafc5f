"""Writes of the portal: saved searches (Suchprofile), triage and a user's preferences.

Each service owns its transaction and checks who may do it; views only parse
input and call these.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from kernel.errors import ApplicationError, NotFound, PermissionRefused
from notifications.models import SavedSearch, Triage, TriageStatus
from notifications.portal.selectors import saved_search_can_edit
from tenders.filter_limits import text_problem
from tenders.filters import FilterError, TenderFilters, filters_checked
from tenders.models import Tender

NAME_MAX_LENGTH = 200
NOTE_MAX_LENGTH = 5000

# --- saved searches ---------------------------------------------------------------------------------------------


def _clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise ApplicationError(fields={"name": _("Bitte einen Namen angeben.")})
    if len(name) > NAME_MAX_LENGTH:
        raise ApplicationError(fields={"name": _("Der Name ist zu lang (höchstens 200 Zeichen).")})
    if text_problem(name, max_length=NAME_MAX_LENGTH):
        raise ApplicationError(fields={"name": _("Der Name enthält unzulässige Steuerzeichen.")})
    return name


def _require_unique_name(*, owner_id: int, name: str, exclude_pk: int | None = None) -> None:
    same = SavedSearch.objects.filter(owner_id=owner_id, name__iexact=name)
    if exclude_pk is not None:
        same = same.exclude(pk=exclude_pk)
    if same.exists():
        raise _duplicate_name()


def _duplicate_name() -> ApplicationError:
    return ApplicationError(
        fields={"name": _("Sie haben bereits ein Suchprofil mit diesem Namen.")}, code="duplicate_name"
    )


def _require_filters(filters: TenderFilters) -> TenderFilters:
    # Filters built in code (not parsed from input) pass the same bounds as typed ones.
    try:
        filters = filters_checked(filters)
    except FilterError as exc:
        fields = {f"filters.{name}": message for name, message in exc.errors.items()}
        raise ApplicationError(fields=fields, code=exc.code) from exc
    # A profile without any filter would alert on every tender in Germany.
    if filters.is_empty:
        raise ApplicationError(
            fields={"filters": _("Bitte mindestens einen Filter setzen (z. B. Suchbegriffe oder CPV).")}
        )
    return filters


def _save_unique(saved_search: SavedSearch) -> None:
    """Save; two requests racing to the same name end in the constraint, answered like the check above."""
    try:
        with transaction.atomic():
            saved_search.save()
    except IntegrityError as exc:
        if "saved_search_owner_name_unique" in str(exc):
            raise _duplicate_name() from exc
        raise


@transaction.atomic
def saved_search_create(
    *,
    owner: AbstractBaseUser,
    name: str,
    filters: TenderFilters,
    is_shared: bool = False,
    instant_alert: bool = False,
    email_enabled: bool = True,
    is_active: bool = True,
    now: datetime | None = None,
) -> SavedSearch:
    """A new profile; it matches only tenders first seen from now on (no flood of old tenders)."""
    name = _clean_name(name)
    _require_unique_name(owner_id=owner.pk, name=name)
    saved_search = SavedSearch(
        owner=owner,
        name=name,
        filters=_require_filters(filters).to_json(),
        is_shared=is_shared,
        instant_alert=instant_alert,
        email_enabled=email_enabled,
        is_active=is_active,
        active_since=now or timezone.now(),
    )
    _save_unique(saved_search)
    return saved_search


@transaction.atomic
def saved_search_update(
    *,
    saved_search: SavedSearch,
    actor: AbstractBaseUser,
    name: str | None = None,
    filters: TenderFilters | None = None,
    is_shared: bool | None = None,
    instant_alert: bool | None = None,
    email_enabled: bool | None = None,
    is_active: bool | None = None,
    now: datetime | None = None,
) -> SavedSearch:
    """Change a profile (owner, or a tenant admin for shared ones); arguments left as None stay unchanged.

    Re-activation restarts ``active_since``: tenders seen while the profile was off do not arrive as a burst.
    """
    locked = SavedSearch.objects.select_for_update().get(pk=saved_search.pk)
    if not saved_search_can_edit(user=actor, saved_search=locked):
        raise PermissionRefused(_("Dieses Suchprofil darf nur sein Eigentümer oder ein Administrator ändern."))
    if is_active and not locked.is_active:
        locked.active_since = now or timezone.now()
    if name is not None:
        locked.name = _clean_name(name)
        _require_unique_name(owner_id=locked.owner_id, name=locked.name, exclude_pk=locked.pk)
    if filters is not None:
        locked.filters = _require_filters(filters).to_json()
        # New filters are a new chance: matching marks the profile again if they still cannot be evaluated.
        locked.failing_since, locked.failing_reason = None, ""
    for field, value in (
        ("is_shared", is_shared),
        ("instant_alert", instant_alert),
        ("email_enabled", email_enabled),
        ("is_active", is_active),
    ):
        if value is not None:
            setattr(locked, field, value)
    _save_unique(locked)
    return locked


@transaction.atomic
def saved_search_delete(*, saved_search: SavedSearch, actor: AbstractBaseUser) -> None:
    """Delete a profile with its matches (same permission as editing)."""
    if not saved_search_can_edit(user=actor, saved_search=saved_search):
        raise PermissionRefused(_("Dieses Suchprofil darf nur sein Eigentümer oder ein Administrator löschen."))
    SavedSearch.objects.filter(pk=saved_search.pk).delete()


# --- triage -----------------------------------------------------------------------------------------------------


@transaction.atomic
def triage_set(*, user: AbstractBaseUser, tender_id: int, status: str, note: str | None = None) -> Triage:
    """The user's verdict on a tender (one row per user and tender). ``note=None`` keeps the current note."""
    if status not in TriageStatus.values:
        raise ApplicationError(fields={"status": _("Unbekannter Status.")})
    if not Tender.objects.filter(pk=tender_id).exists():
        raise NotFound(_("Diese Ausschreibung gibt es nicht."))
    defaults: dict = {"status": status}
    if note is not None:
        note = note.strip()
        if len(note) > NOTE_MAX_LENGTH:
            raise ApplicationError(fields={"note": _("Die Notiz ist zu lang (höchstens 5000 Zeichen).")})
        defaults["note"] = note
    triage, _created = Triage.objects.update_or_create(user=user, tender_id=tender_id, defaults=defaults)
    return triage
