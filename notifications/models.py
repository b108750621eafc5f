"""Per-tenant data (each tenant's own schema): saved searches, matches, triage, alerts, credentials.

Tenders themselves live once in the public schema; rows here point at them
(the public schema is on every tenant's search path, so the foreign keys hold).
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from accounts.secrets import EncryptedTextField
from notifications.bid_models import (  # noqa: F401  (the bid desk's models, declared beside these)
    CLOSED_STAGE_KINDS,
    BidCard,
    BidDecision,
    BidStage,
    BidStageKind,
    CardComment,
    CardEvent,
    CardEventKind,
    DecisionReason,
)
from notifications.outcome_models import (  # noqa: F401  (who the tenant is in award notices, whom it watches)
    ID_IDENTITY_KINDS,
    NAME_IDENTITY_KINDS,
    CompanyIdentity,
    CompetitorWin,
    IdentityKind,
    WatchedCompetitor,
)
from tenders.filters import FilterError, TenderFilters


class DigestInterval(models.TextChoices):
    DAILY = "daily", _("täglich")
    WEEKLY = "weekly", _("wöchentlich (montags)")
    OFF = "off", _("aus")


def new_calendar_token() -> str:
    return secrets.token_urlsafe(32)


def calendar_token_hash(token: str) -> str:
    """SHA-256 of a calendar token. Tokens are 256 random bits: a plain hash makes a leaked table
    useless (nothing to brute-force) and still allows lookup by hash, as for API keys."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def default_reminder_days() -> list[int]:
    return [7, 3, 1]


class UserPreference(models.Model):
    """A user's language, digest settings and the hash of their secret calendar token; created on first use.

    The token itself is shown once when it is made and never stored; no hash means no calendar link yet.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="de")
    digest_interval = models.CharField(max_length=10, choices=DigestInterval.choices, default=DigestInterval.DAILY)
    digest_hour = models.PositiveSmallIntegerField(default=7)
    calendar_token_hash = models.CharField(max_length=64, unique=True, null=True, blank=True, default=None)
    last_digest_at = models.DateTimeField(null=True, blank=True)
    # Days before each deadline of a card one owns or watches: a reminder mail and a calendar alarm each; [] = none.
    reminder_days = models.JSONField(default=default_reminder_days, db_default=[7, 3, 1], blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(digest_hour__lte=23), name="preference_digest_hour_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.language}, {self.digest_interval})"


def validate_saved_search_filters(value) -> None:
    """Model forms (e.g. an admin) check stored filters by the same rules as the portal and the API."""
    try:
        TenderFilters.from_json(value)
    except FilterError as exc:
        raise ValidationError([f"{name}: {message}" for name, message in exc.errors.items()]) from exc


class SavedSearch(models.Model):
    """A Suchprofil: filters (``tenders.filters.TenderFilters`` as JSON) plus alert settings."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_searches")
    name = models.CharField(max_length=200)
    filters = models.JSONField(default=dict, validators=[validate_saved_search_filters])
    is_shared = models.BooleanField(default=False, help_text=_("für alle im Unternehmen sichtbar"))
    instant_alert = models.BooleanField(default=False)
    email_enabled = models.BooleanField(default=True, help_text=_("in Sofortmeldungen und Zusammenfassungen"))
    is_active = models.BooleanField(default=True)
    # Only tenders first seen at or after this moment match: no backlog flood on creation/re-activation.
    active_since = models.DateTimeField()
    # Set by matching when this profile could not be evaluated (why, in German); cleared when it works again.
    failing_since = models.DateTimeField(null=True, blank=True)
    failing_reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["is_active"], name="savedsearch_active_idx")]
        constraints = [
            # Two profiles of one person with the same name cannot be told apart in mails and lists.
            models.UniqueConstraint("owner", Lower("name"), name="saved_search_owner_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class TenderMatch(models.Model):
    """A tender that matched a saved search; notified at most once (``notified_at``)."""

    saved_search = models.ForeignKey(SavedSearch, on_delete=models.CASCADE, related_name="matches")
    # No database constraint to the public tender table: matching inserts thousands of rows per batch
    # and every deferred per-row check ran at commit. Tenders are never deleted (only closed), and a
    # deletion through the ORM still cascades.
    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+", db_constraint=False)
    matched_at = models.DateTimeField()
    notified_at = models.DateTimeField(null=True, blank=True)
    notified_via = models.CharField(max_length=10, blank=True, default="")  # instant | digest

    class Meta:
        constraints = [models.UniqueConstraint(fields=["saved_search", "tender"], name="match_unique")]
        indexes = [
            models.Index(fields=["saved_search", "notified_at"], name="match_pending_idx"),
            models.Index(fields=["tender"], name="match_tender_idx"),
            models.Index(fields=["-matched_at"], name="match_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.saved_search_id} × {self.tender_id}"


class ChangeKind(models.TextChoices):
    DEADLINE = "deadline", _("Frist geändert")
    CANCELLED = "cancelled", _("aufgehoben")
    AWARDED = "awarded", _("vergeben")
    VALUE = "value", _("Wert geändert")


class MatchChange(models.Model):
    """A change of a matched tender worth telling (once per change, per match)."""

    match = models.ForeignKey(TenderMatch, on_delete=models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=12, choices=ChangeKind.choices)
    change_key = models.CharField(max_length=200)  # identifies this exact change (e.g. the new deadline)
    old_value = models.CharField(max_length=200, blank=True, default="")
    new_value = models.CharField(max_length=200, blank=True, default="")
    detected_at = models.DateTimeField()
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "change_key"], name="match_change_unique")]
        indexes = [models.Index(fields=["notified_at"], name="match_change_pending_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.change_key}"


class TriageStatus(models.TextChoices):
    NEW = "neu", _("neu")
    INTERESTING = "interessant", _("interessant")
    REVIEWING = "pruefung", _("in Prüfung")
    REJECTED = "abgelehnt", _("abgelehnt")
    APPLIED = "beworben", _("beworben")


class Triage(models.Model):
    """A user's verdict and note on a tender."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="triage")
    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=12, choices=TriageStatus.choices, default=TriageStatus.NEW)
    note = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "tender"], name="triage_unique")]
        indexes = [models.Index(fields=["user", "status"], name="triage_user_status_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.tender_id} {self.status}"


class ApiKey(models.Model):
    """A partner API key of this tenant. Only a hash is stored; the key is shown once."""

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class TlsMode(models.TextChoices):
    STARTTLS = "starttls", "STARTTLS"
    SSL = "ssl", "SSL/TLS"
    NONE = "none", _("unverschlüsselt")


class SmtpSettings(models.Model):
    """The tenant's own outgoing mail server (one row per tenant)."""

    host = models.CharField(max_length=253)
    port = models.PositiveIntegerField(default=587)
    tls_mode = models.CharField(max_length=10, choices=TlsMode.choices, default=TlsMode.STARTTLS)
    username = models.CharField(max_length=254, blank=True, default="")
    password = EncryptedTextField(blank=True, default="")
    from_email = models.EmailField()
    updated_at = models.DateTimeField(auto_now=True)
    # Always True and unique: the database itself allows one row per tenant (read by smtp_settings_get).
    singleton = models.BooleanField(default=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["singleton"], name="smtp_settings_one_per_tenant"),
            models.CheckConstraint(condition=Q(singleton=True), name="smtp_settings_singleton_true"),
        ]

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class MailboxSettings(models.Model):
    """The tenant's inbox where portal alert e-mails arrive (IMAP; one row per tenant)."""

    host = models.CharField(max_length=253)
    port = models.PositiveIntegerField(default=993)
    use_ssl = models.BooleanField(default=True)
    username = models.CharField(max_length=254)
    password = EncryptedTextField()
    folder = models.CharField(max_length=200, default="INBOX")
    is_active = models.BooleanField(default=True)
    # Trust in alert mails (sources.adapters.mail.provenance): the authserv-id of the tenant's own receiving
    # server, whose Authentication-Results header is read, and the operator-approved forwarding senders
    # (sources.models.ApprovedForwarder, by key "family:domain") the admin picked. Keys, not a foreign key:
    # the approved list lives in the public schema, and an entry the operator withdraws stops counting
    # at the next check (notifications.inbox.selectors.mailbox_trust reads only entries still approved).
    authserv_id = models.CharField(max_length=253, blank=True, default="")
    forwarders = models.JSONField(default=list, blank=True)
    # The receiving server writes one Authentication-Results header per milter (OpenDKIM, OpenDMARC, SPF).
    several_authentication_results = models.BooleanField(default=False)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)
    # Always True and unique: the database itself allows one row per tenant (read by mailbox_settings_get).
    singleton = models.BooleanField(default=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["singleton"], name="mailbox_settings_one_per_tenant"),
            models.CheckConstraint(condition=Q(singleton=True), name="mailbox_settings_singleton_true"),
        ]

    def __str__(self) -> str:
        return f"{self.username}@{self.host}"


class DeliveryKind(models.TextChoices):
    INSTANT = "instant", _("Sofortmeldung")
    DIGEST = "digest", _("Zusammenfassung")
    CHANGE = "change", _("Änderung")
    TEST = "test", _("Testmail")
    MENTION = "mention", _("Erwähnung")
    REMINDER = "reminder", _("Fristerinnerung")
    AWARD = "award", _("Zuschlag")
    COMPETITOR = "competitor", _("Wettbewerber")


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("wartet")
    SENDING = "sending", _("wird gesendet")
    SENT = "sent", _("gesendet")
    FAILED = "failed", _("fehlgeschlagen")
    UNCERTAIN = "uncertain", _("unklar – bitte prüfen")


class Delivery(models.Model):
    """One outgoing e-mail (outbox row). Claimed one at a time; marked sent only after the server accepted it."""

    kind = models.CharField(max_length=10, choices=DeliveryKind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deliveries")
    saved_search = models.ForeignKey(SavedSearch, on_delete=models.SET_NULL, null=True, blank=True)
    dedupe_key = models.CharField(max_length=200, unique=True)
    recipient = models.EmailField()
    subject = models.CharField(max_length=300)
    text_body = models.TextField()
    html_body = models.TextField(blank=True, default="")
    headers = models.JSONField(default=dict, blank=True)
    match_ids = models.JSONField(default=list, blank=True)
    change_ids = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due_idx")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.recipient} ({self.status})"


class Webhook(models.Model):
    """A partner endpoint for one saved search, or for the team board's events; events are signed with HMAC-SHA256."""

    # A profile's webhook gets its tender.* events; one without a profile the board events it lists (card.*).
    saved_search = models.ForeignKey(
        SavedSearch, on_delete=models.CASCADE, null=True, blank=True, related_name="webhooks"
    )
    board_events = ArrayField(models.CharField(max_length=30), default=list, blank=True)
    # Who connected it: a webhook on someone else's profile only sends while that profile is shared.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    url = models.URLField(max_length=2000)
    secret = EncryptedTextField()
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(saved_search__isnull=False) | ~Q(board_events=[]), name="webhook_profile_or_board_events"
            )
        ]

    def __str__(self) -> str:
        return self.url


class WebhookEvent(models.Model):
    """One event for one webhook, delivered at most once (unique event key), retried with backoff."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="events")
    event = models.CharField(max_length=30)  # tender.matched | tender.changed | tender.cancelled
    event_key = models.CharField(max_length=200)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["webhook", "event_key"], name="webhook_event_unique")]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_event_due_idx")]

    def __str__(self) -> str:
        return f"{self.event} {self.event_key} ({self.status})"
