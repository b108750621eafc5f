"""The tenant registry (public schema): one row per customer company and its host names."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django_tenants.models import DomainMixin, TenantMixin


class Tenant(TenantMixin):
    """A customer company. Its users, saved searches and matches live in its own schema."""

    name = models.CharField(max_length=200, verbose_name=_("Name"))
    contact_email = models.EmailField(blank=True, verbose_name=_("Kontakt-E-Mail"))
    is_active = models.BooleanField(default=True, verbose_name=_("aktiv"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("angelegt am"))

    # The schema is created (and migrated) when the row is first saved.
    auto_create_schema = True
    auto_drop_schema = False

    class Meta:
        ordering = ["name"]
        verbose_name = "Mandant"
        verbose_name_plural = "Mandanten"

    def __str__(self) -> str:
        return f"{self.name} ({self.schema_name})"

    @property
    def is_public(self) -> bool:
        from django_tenants.utils import get_public_schema_name

        return self.schema_name == get_public_schema_name()


class Domain(DomainMixin):
    class Meta:
        verbose_name = "Domain"
        verbose_name_plural = "Domains"

    def __str__(self) -> str:
        return self.domain


class RelayProtocol(models.TextChoices):
    SMTP = "smtp", _("SMTP (Versand)")
    IMAP = "imap", _("IMAP (Postfach)")
    BOTH = "both", _("SMTP und IMAP")


class InternalRelay(models.Model):
    """An internal mail server (host name or network) that tenants may enter although it is not public.

    Written by operators in the console only (public schema); every change is kept in
    ``InternalRelayChange``. Read by the tenant side when a host is saved and again when it connects.
    """

    target = models.CharField(
        max_length=253,
        verbose_name=_("Host oder Netz"),
        help_text=_("Hostname wie relay.intern.example oder Netz in CIDR-Schreibweise wie 10.20.0.0/16"),
    )
    protocol = models.CharField(max_length=4, choices=RelayProtocol.choices, verbose_name=_("Protokoll"))
    port = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("Port"), help_text=_("leer: jeder Port"))
    note = models.TextField(blank=True, default="", verbose_name=_("Notiz"))

    class Meta:
        ordering = ["target", "protocol", "port"]
        verbose_name = _("freigegebener interner Mailserver")
        verbose_name_plural = _("freigegebene interne Mailserver")
        constraints = [
            models.UniqueConstraint(
                fields=["target", "protocol", "port"], name="internal_relay_unique", nulls_distinct=False
            ),
        ]

    def __str__(self) -> str:
        port = f":{self.port}" if self.port else ""
        return f"{self.target}{port} ({self.get_protocol_display()})"


class InternalRelayChange(models.Model):
    """One add, edit or delete of an ``InternalRelay``: who, when, the entry before and after. Never edited."""

    class Action(models.TextChoices):
        ADDED = "added", _("angelegt")
        CHANGED = "changed", _("geändert")
        DELETED = "deleted", _("gelöscht")

    relay_id = models.BigIntegerField(verbose_name=_("Eintrag"))  # no foreign key: the row outlives a deletion
    action = models.CharField(max_length=7, choices=Action.choices, verbose_name=_("Aktion"))
    operator = models.CharField(max_length=254, verbose_name=_("Betreiber"))
    changed_at = models.DateTimeField(verbose_name=_("Zeitpunkt"))
    before = models.JSONField(null=True, blank=True, verbose_name=_("vorher"))
    after = models.JSONField(null=True, blank=True, verbose_name=_("nachher"))

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("Änderung interner Mailserver")
        verbose_name_plural = _("Änderungen interner Mailserver")

    def __str__(self) -> str:
        return f"{self.get_action_display()} {self.relay_id} ({self.operator}, {self.changed_at:%d.%m.%Y %H:%M})"
