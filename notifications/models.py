"""Per-tenant notification data (lives in each tenant's schema)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class DigestInterval(models.TextChoices):
    DAILY = "daily", _("täglich")
    WEEKLY = "weekly", _("wöchentlich (montags)")
    OFF = "off", _("aus")


class UserPreference(models.Model):
    """A user's language and digest settings; created on first use with the defaults."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="de")
    digest_interval = models.CharField(max_length=10, choices=DigestInterval.choices, default=DigestInterval.DAILY)
    digest_hour = models.PositiveSmallIntegerField(default=7)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(digest_hour__lte=23), name="preference_digest_hour_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.language}, {self.digest_interval})"
