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
