"""Configured sources, their fetch runs and health (public schema)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from sources.denylist import SourceDenied, ensure_not_denied


class Source(models.Model):
    """One polled source: a portal host with its adapter and settings."""

    key = models.SlugField(max_length=40, unique=True, verbose_name=_("Schlüssel"))
    name = models.CharField(max_length=200, verbose_name=_("Name"))
    adapter = models.CharField(max_length=40, verbose_name=_("Adapter"))
    settings = models.JSONField(default=dict, blank=True, verbose_name=_("Einstellungen"))
    is_active = models.BooleanField(default=True, verbose_name=_("aktiv"))
    schedule_minutes = models.PositiveIntegerField(
        default=60,
        help_text=_("Abrufintervall in Minuten (wird von setup_schedules in Celery Beat geschrieben)"),
        verbose_name=_("Abrufintervall (Minuten)"),
    )
    politeness_seconds = models.FloatField(
        default=2.0,
        help_text=_("Mindestabstand zwischen Anfragen je Host"),
        verbose_name=_("Abstand zwischen Anfragen (Sekunden)"),
    )
    cursor = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Fortschritt des Adapters, z. B. letzter Tag"),
        verbose_name=_("Fortschritt (Cursor)"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("angelegt am"))

    class Meta:
        ordering = ["key"]
        verbose_name = _("Quelle")
        verbose_name_plural = _("Quellen")

    def __str__(self) -> str:
        return self.key

    def save(self, *args, **kwargs):
        # Invariant, not business logic: a denied portal can never be stored, whatever path saves it.
        ensure_not_denied(what=f"Source {self.key!r}", key=f"{self.key} {self.name}", urls=self._denylist_urls())
        super().save(*args, **kwargs)

    def _denylist_urls(self) -> list[str]:
        values = self.settings.values() if isinstance(self.settings, dict) else []
        urls = []
        for value in values:
            if isinstance(value, str):
                urls.append(value)
            elif isinstance(value, list):
                urls.extend(v for v in value if isinstance(v, str))
        return urls

    def clean(self) -> None:
        from sources.registry import validate_source_settings

        try:
            ensure_not_denied(what=f"Source {self.key!r}", key=f"{self.key} {self.name}", urls=self._denylist_urls())
        except SourceDenied as exc:
            raise ValidationError(str(exc)) from exc
        self.settings = validate_source_settings(adapter=self.adapter, settings=self.settings)


class FetchRunStatus(models.TextChoices):
    RUNNING = "running", _("läuft")
    SUCCEEDED = "succeeded", _("erfolgreich")
    PARTIAL = "partial", _("teilweise")
    FAILED = "failed", _("fehlgeschlagen")
    BLOCKED = "blocked", _("blockiert")
    SKIPPED = "skipped", _("übersprungen (lief noch)")


# What the console, the health checks and ``manage.py ingest`` count as a run that worked or failed.
SUCCEEDED_RUN_STATUSES = (FetchRunStatus.SUCCEEDED, FetchRunStatus.PARTIAL)
FAILED_RUN_STATUSES = (FetchRunStatus.FAILED, FetchRunStatus.BLOCKED)


# The trigger of a tenant's mailbox check, a run of the mail source whose scope is the tenant's schema.
MAILBOX_TRIGGER = "mailbox"
# A portal Source reading one tender's page because an alert mail named it (scope: the portal reference).
PORTAL_PAGE_TRIGGER = "portal_page"


class FetchRun(models.Model):
    """Every run of every source, with counts and, on failure, the reason."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="runs", verbose_name=_("Quelle"))
    started_at = models.DateTimeField(verbose_name=_("gestartet"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("beendet"))
    status = models.CharField(
        max_length=10, choices=FetchRunStatus.choices, default=FetchRunStatus.RUNNING, verbose_name=_("Status")
    )
    trigger = models.CharField(
        max_length=20, default="schedule", verbose_name=_("Auslöser")
    )  # schedule | manual | file | backfill | mailbox (scope: the tenant's schema)
    scope = models.CharField(max_length=200, blank=True, default="", verbose_name=_("Umfang"))  # e.g. the DÖE day
    fetched = models.PositiveIntegerField(default=0, verbose_name=_("abgerufen"))
    new = models.PositiveIntegerField(default=0, verbose_name=_("neu"))
    changed = models.PositiveIntegerField(default=0, verbose_name=_("geändert"))
    unchanged = models.PositiveIntegerField(default=0, verbose_name=_("unverändert"))
    failed = models.PositiveIntegerField(default=0, verbose_name=_("fehlerhaft"))
    # Notices the source offered that became no tender (an item without id, a rejected list row).
    refused = models.PositiveIntegerField(default=0, verbose_name=_("abgelehnt"))
    # Stored notices' fields that could not be read, field -> count; each is also named in ``problems``.
    field_problems = models.JSONField(default=dict, blank=True, verbose_name=_("nicht lesbare Angaben"))
    bytes = models.BigIntegerField(default=0, verbose_name=_("Bytes"))
    requests = models.PositiveIntegerField(default=0, verbose_name=_("Anfragen"))  # mailbox checks: mails read
    not_modified = models.PositiveIntegerField(default=0, verbose_name=_("unverändert laut Server (304)"))
    error_reason = models.CharField(max_length=40, blank=True, default="", verbose_name=_("Fehlerursache"))
    error = models.TextField(blank=True, default="", verbose_name=_("Fehler"))
    missing = models.JSONField(default=list, blank=True, verbose_name=_("nicht abgerufen"))
    problems = models.JSONField(default=list, blank=True, verbose_name=_("Probleme"))
    low_yield = models.BooleanField(default=False, verbose_name=_("wenig Treffer"))
    # What the HTML list pages gave (sources.adapters.yields): the layout recognised on the last page
    # read, one report per page (rows seen, parsed, rejected by reason), and when the markup drifted
    # one sample page for the operator (head of the page, size-capped).
    layout = models.CharField(max_length=40, blank=True, default="", verbose_name=_("Layout"))
    yield_report = models.JSONField(default=list, blank=True, verbose_name=_("Ausbeute je Seite"))
    sample_page = models.BinaryField(null=True, blank=True, editable=False, verbose_name=_("Beispielseite"))
    sample_page_url = models.CharField(max_length=2000, blank=True, default="", verbose_name=_("URL der Beispielseite"))

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("Abruf")
        verbose_name_plural = _("Abrufe")
        constraints = [
            # One run per source at a time: a manual and a scheduled run never move the same cursor.
            models.UniqueConstraint(
                fields=["source"],
                condition=Q(status="running") & ~Q(trigger=MAILBOX_TRIGGER),
                name="fetchrun_one_running_per_source",
            ),
            # Mailbox checks move no cursor of the Source (each tenant's window is its own): the checks of
            # different tenants run side by side, two checks of one mailbox (scope = its schema) never.
            models.UniqueConstraint(
                fields=["source", "scope"],
                condition=Q(status="running", trigger=MAILBOX_TRIGGER),
                name="fetchrun_one_running_per_mailbox",
            ),
        ]
        indexes = [
            models.Index(fields=["source", "-started_at"], name="fetchrun_source_started_idx"),
            models.Index(fields=["status", "-started_at"], name="fetchrun_status_started_idx"),
        ]

    def __str__(self) -> str:
        # The console's title of a run: which source, when (local time), how it went.
        from django.utils import timezone

        started = timezone.localtime(self.started_at).strftime("%d.%m.%Y %H:%M") if self.started_at else "–"
        return f"Abruf {self.source.name} am {started} – {self.get_status_display()}"


class ConditionalCacheEntry(models.Model):
    """Validators of the last response per URL, so an unchanged page costs a 304."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="cache_entries")
    url = models.CharField(max_length=2000)
    etag = models.CharField(max_length=500, blank=True, default="")
    last_modified = models.CharField(max_length=100, blank=True, default="")
    body_sha256 = models.CharField(max_length=64, blank=True, default="")
    fetched_at = models.DateTimeField()

    class Meta:
        verbose_name = _("bedingter Abruf (Cache)")
        verbose_name_plural = _("bedingte Abrufe (Cache)")
        constraints = [models.UniqueConstraint(fields=["source", "url"], name="conditional_cache_unique")]

    def __str__(self) -> str:
        return self.url


class InboundMailStatus(models.TextChoices):
    PARSED = "parsed", _("ausgewertet")
    UNPARSED = "unparsed", _("nicht auswertbar")
    IGNORED = "ignored", _("kein Portal-Alert")
    QUARANTINED = "quarantined", _("zurückgehalten")
    RELEASED = "released", _("freigegeben (nur für diesen Mandanten)")


class QuarantineReason(models.TextChoices):
    """Why a parsed alert mail was not trusted (codes of ``sources.adapters.mail.provenance``)."""

    SENDER_UNVERIFIED = "sender", _("Absender nicht verifiziert")
    FOREIGN_LINK = "link", _("Link auf fremden Server")
    # An Authentication-Results header of the tenant's own server below a Received: field, or more than one.
    AUTHENTICATION_FORGED = "authres", _("Gefälschte Absenderprüfung (Authentication-Results)")


class PortalFamily(models.TextChoices):
    """The portal families of alert mails (the keys of ``sources.adapters.mail.portals.PORTAL_DOMAINS``)."""

    NETSERVER = "netserver", _("NetServer (Vergabe@Net)")
    COSINEX = "cosinex", _("cosinex (z. B. DTVP)")
    SERVICE_BUND = "service-bund", _("service.bund.de")
    DTAD = "dtad", _("DTAD-artige Dienste")


class ApprovedForwarder(models.Model):
    """A sender domain whose alerts of one portal family may arrive forwarded, i.e. without authentication.

    Approved by an operator, never typed by a tenant: a tenant admin only picks approved entries for
    their mailbox (``MailboxSettings.forwarders``). Withdrawing an entry withdraws it from every mailbox
    at the next check. The console refuses domains many portals share (``sources.adapters.mail.forwarding``).
    """

    family = models.CharField(max_length=20, choices=PortalFamily.choices, verbose_name=_("Portalfamilie"))
    sender_domain = models.CharField(max_length=253, verbose_name=_("Absender-Domain"))
    note = models.TextField(blank=True, default="", verbose_name=_("Begründung"))
    approved_by = models.CharField(max_length=254, verbose_name=_("Freigabe durch"))
    approved_at = models.DateTimeField(verbose_name=_("Freigabe am"))

    class Meta:
        ordering = ["family", "sender_domain"]
        verbose_name = _("freigegebener Weiterleitungsabsender")
        verbose_name_plural = _("freigegebene Weiterleitungsabsender")
        constraints = [
            models.UniqueConstraint(fields=["family", "sender_domain"], name="approved_forwarder_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.sender_domain} ({self.get_family_display()})"

    @property
    def key(self) -> str:
        """How a mailbox names this entry: stable across re-approval, readable in its settings."""
        return f"{self.family}:{self.sender_domain}"


class InboundMail(models.Model):
    """A portal alert e-mail read from a tenant's mailbox; processed once per Message-ID and content.

    Kept in the public schema so operators see unparsed mails of every tenant
    in one place; ``tenant_schema`` says whose mailbox it came from. A mail is a pointer, never
    a source of shared data: its notices stay on this row (``held_notices``, the tenant's leads)
    and only its portal references lead to requests of the portal's own page (``PortalPageRequest``).
    """

    tenant_schema = models.CharField(max_length=63, verbose_name=_("Mandant (Schema)"))
    message_id = models.CharField(max_length=998, verbose_name=_("Message-ID"))
    # Anyone can send a mail with any Message-ID: a spoof reusing a genuine alert's id must not make the
    # genuine one look processed already, so a mail is one mail per Message-ID *and* content (SHA-256).
    content_sha256 = models.CharField(max_length=64, blank=True, default="", verbose_name=_("Inhalt (SHA-256)"))
    message_id_reused = models.BooleanField(default=False, verbose_name=_("Message-ID mehrfach verwendet"))
    portal = models.CharField(max_length=40, blank=True, default="", verbose_name=_("Portal"))
    subject = models.CharField(max_length=998, blank=True, default="", verbose_name=_("Betreff"))
    sender = models.CharField(max_length=998, blank=True, default="", verbose_name=_("Absender"))
    received_at = models.DateTimeField(null=True, blank=True, verbose_name=_("empfangen"))
    processed_at = models.DateTimeField(verbose_name=_("verarbeitet"))
    status = models.CharField(max_length=12, choices=InboundMailStatus.choices, verbose_name=_("Status"))
    reason = models.TextField(blank=True, default="", verbose_name=_("Grund"))
    notices_found = models.PositiveIntegerField(default=0, verbose_name=_("gefundene Bekanntmachungen"))
    raw = models.BinaryField(blank=True, default=b"", verbose_name=_("Rohdaten"))
    # Every parsed mail's notices (record JSON), which never enter the shared tables; for quarantined mails why.
    quarantine_reason = models.CharField(
        max_length=10, choices=QuarantineReason.choices, blank=True, default="", verbose_name=_("Quarantänegrund")
    )
    held_notices = models.JSONField(default=list, blank=True, verbose_name=_("zurückgehaltene Bekanntmachungen"))
    released_at = models.DateTimeField(null=True, blank=True, verbose_name=_("freigegeben am"))
    released_by = models.CharField(max_length=254, blank=True, default="", verbose_name=_("freigegeben von"))

    class Meta:
        ordering = ["-processed_at"]
        verbose_name = _("eingegangene Portal-Mail")
        verbose_name_plural = _("eingegangene Portal-Mails")
        constraints = [
            models.UniqueConstraint(
                fields=["tenant_schema", "message_id", "content_sha256"], name="inbound_mail_unique_content"
            ),
        ]
        indexes = [models.Index(fields=["status", "-processed_at"], name="inbound_mail_status_idx")]

    def __str__(self) -> str:
        return f"{self.tenant_schema} {self.message_id} ({self.status})"


class PortalPageRequestStatus(models.TextChoices):
    PENDING = "pending", _("angefragt")
    FETCHED = "fetched", _("abgerufen")
    BLOCKED = "blocked", _("blockiert")
    FAILED = "failed", _("fehlgeschlagen")


class PortalPageRequest(models.Model):
    """A durable request to read one tender's page from its portal, because an alert mail pointed at it.

    Written with the ``InboundMail`` rows that named it; the page is fetched by the portal Source's own
    adapter (``sources.tender_pages``) and ingested as a crawl would. One pending request per page:
    the mails of two tenants make one fetch.
    """

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="page_requests", verbose_name=_("Quelle"))
    url = models.CharField(max_length=2000, verbose_name=_("URL"))
    portal_reference = models.CharField(max_length=250, verbose_name=_("Portal-Verweis"))
    status = models.CharField(
        max_length=10,
        choices=PortalPageRequestStatus.choices,
        default=PortalPageRequestStatus.PENDING,
        verbose_name=_("Status"),
    )
    reason = models.TextField(blank=True, default="", verbose_name=_("Grund"))
    requested_at = models.DateTimeField(verbose_name=_("angefragt am"))
    done_at = models.DateTimeField(null=True, blank=True, verbose_name=_("erledigt am"))
    run = models.ForeignKey(
        FetchRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("Abruf")
    )

    class Meta:
        ordering = ["-requested_at"]
        verbose_name = _("Abruf einer Portalseite")
        verbose_name_plural = _("Abrufe von Portalseiten")
        constraints = [
            models.UniqueConstraint(
                fields=["source", "url"], condition=Q(status="pending"), name="portal_page_request_one_pending"
            ),
        ]
        indexes = [
            models.Index(fields=["portal_reference", "-requested_at"], name="portal_page_request_ref_idx"),
            models.Index(fields=["status", "requested_at"], name="portal_page_request_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} {self.portal_reference} ({self.status})"


class Heartbeat(models.Model):
    """When a long-running platform process (beat) last showed it is alive; read by /health/."""

    name = models.CharField(max_length=40, primary_key=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} {self.beat_at:%Y-%m-%d %H:%M:%S}"


class OperatorDigest(models.Model):
    """The operators' daily mail about source health; one row per Berlin day is what makes it once a day."""

    day = models.DateField(unique=True, verbose_name=_("Tag"))
    sent_at = models.DateTimeField(verbose_name=_("gesendet"))
    subject = models.CharField(max_length=250, verbose_name=_("Betreff"))
    recipients = models.JSONField(default=list, blank=True, verbose_name=_("Empfänger"))

    class Meta:
        ordering = ["-day"]
        verbose_name = _("Betriebsbericht")
        verbose_name_plural = _("Betriebsberichte")

    def __str__(self) -> str:
        return f"{self.day:%d.%m.%Y}: {self.subject}"
