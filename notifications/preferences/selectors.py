"""Reads for the settings pages."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from notifications.models import Delivery, MailboxSettings, SavedSearch, SmtpSettings


def smtp_settings_get() -> SmtpSettings | None:
    """The tenant's SMTP settings (one row at most, by constraint); every reader goes through here."""
    return SmtpSettings.objects.first()


def mailbox_settings_get(*, defer_password: bool = False) -> MailboxSettings | None:
    """The tenant's IMAP settings (one row at most, by constraint); every reader goes through here."""
    rows = MailboxSettings.objects.all()
    return (rows.defer("password") if defer_password else rows).first()


def saved_search_list_own(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    return SavedSearch.objects.filter(owner=user).order_by("name", "id")


def delivery_list(*, status: str = "", kind: str = "") -> QuerySet[Delivery]:
    """The outbox, newest first, with recipient user and profile joined; bodies are not loaded."""
    rows = (
        Delivery.objects.select_related("user", "saved_search")
        .defer("text_body", "html_body", "headers", "match_ids", "change_ids")
        .order_by("-created_at", "-id")
    )
    if status:
        rows = rows.filter(status=status)
    if kind:
        rows = rows.filter(kind=kind)
    return rows


def delivery_status_counts() -> dict[str, int]:
    """How many deliveries are in each status (one grouped query)."""
    return dict(Delivery.objects.order_by().values_list("status").annotate(n=Count("id")).values_list("status", "n"))
