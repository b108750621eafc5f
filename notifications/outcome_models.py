"""Who the tenant is in award notices, and whom it watches (each tenant's own schema).

Declared beside ``notifications.bid_models`` and re-exported by ``notifications.models``. An award notice
names a winner by name (any legal form, spelling, case) and often by an identifier (USt-IdNr, a national
company number); each row keeps the value as entered for people and a normalised ``key`` for matching:
names folded like the market view's supplier keys (``tenders.merging.normalise_name``: legal forms, case,
umlauts), identifiers without spaces, dots and dashes (``notifications.alerts.award_rules``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class IdentityKind(models.TextChoices):
    NAME = "name", _("Firmenname")
    FORMER_NAME = "former_name", _("früherer Name")
    VAT_ID = "vat_id", _("USt-IdNr.")
    REGISTER_NO = "register_no", _("Handelsregisternummer")
    ADDRESS = "address", _("Anschrift")


# Kinds compared with an award row's supplier name, and kinds compared with its supplier identifier.
NAME_IDENTITY_KINDS = (IdentityKind.NAME, IdentityKind.FORMER_NAME)
ID_IDENTITY_KINDS = (IdentityKind.VAT_ID, IdentityKind.REGISTER_NO)


class CompanyIdentity(models.Model):
    """One way an award notice can name the tenant's own company. Addresses are recorded for people (an
    award row carries only the winner's town), never matched on their own."""

    kind = models.CharField(max_length=12, choices=IdentityKind.choices)
    value = models.CharField(max_length=300)
    key = models.CharField(max_length=200)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["kind", "value", "id"]
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="company_identity_unique")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.value}"


class WatchedCompetitor(models.Model):
    """A competitor the team watches, by name or by identifier (one of the two keys is set)."""

    label = models.CharField(max_length=300)
    name_key = models.CharField(max_length=200, blank=True, default="")
    id_key = models.CharField(max_length=60, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["label", "id"]
        constraints = [
            models.UniqueConstraint(fields=["name_key", "id_key"], name="watched_competitor_unique"),
            models.CheckConstraint(condition=~models.Q(name_key="", id_key=""), name="watched_competitor_has_key"),
        ]

    def __str__(self) -> str:
        return self.label


class CompetitorWin(models.Model):
    """A lot a watched competitor won, recorded once (unique): the alert tells each row once."""

    competitor = models.ForeignKey(WatchedCompetitor, on_delete=models.CASCADE, related_name="wins")
    # No database constraint to the public tender table, as for matches and cards.
    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+", db_constraint=False)
    lot_id = models.CharField(max_length=100, blank=True, default="")
    supplier_name = models.CharField(max_length=500, blank=True, default="")
    value = models.DecimalField(max_digits=18, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["competitor", "tender", "lot_id"], name="competitor_win_unique")]

    def __str__(self) -> str:
        return f"{self.competitor_id} won {self.tender_id}/{self.lot_id}"
