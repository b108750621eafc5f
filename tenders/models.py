"""Tenders: one row per procedure, every source that published it, every version seen.

Public schema. Rows are written only by ``tenders.services`` (bulk upserts);
models hold data and invariants, nothing else.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchQueryField, SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Func, Q
from django.utils.translation import gettext_lazy as _

from kernel.vocabulary.statuses import TenderStatus

# The values are the shared vocabulary's (records carry them too); the labels are the portal's.
TENDER_STATUS_LABELS = {
    TenderStatus.ACTIVE: _("laufend"),
    TenderStatus.AWARDED: _("vergeben"),
    TenderStatus.CANCELLED: _("aufgehoben"),
    TenderStatus.EXPIRED: _("abgelaufen"),
}
# A status without a label fails here, at import, not on the first page that shows it.
TENDER_STATUS_CHOICES = [(status.value, TENDER_STATUS_LABELS[status]) for status in TenderStatus]


class MergeRule(models.TextChoices):
    """Why a source was attached to its tender, in the order the rules are tried."""

    NEW = "new", _("neu angelegt")
    OCID = "ocid", _("gleiche OCID")
    PROCEDURE_ID = "procedure_id", _("gleiche Verfahrens-ID (ContractFolderID)")
    NOTICE_REFERENCE = "notice_reference", _("Verweis auf frühere Bekanntmachung")
    SOURCE_NOTICE_ID = "source_notice_id", _("gleiche Bekanntmachungs-ID der Quelle")
    PORTAL_REFERENCE = "portal_reference", _("exakter Portal-Verweis (TenderOID / CX-ID)")
    FINGERPRINT = "fingerprint", _("Fingerabdruck (Vergabestelle, Titel, CPV, Frist, Wert)")
    SPLIT = "split", _("vom Betrieb abgetrennt")


# German full text over title (A), buyer and the title's compound parts (B), description (C), and at the
# lowest weight (D) the labels of the CPV codes and the compound parts of description, lots and labels.
# "Gebäudereinigung" in a title is found as "Reinigung", but ranks below a title that says "Reinigung".
SEARCH_VECTOR_EXPRESSION = (
    SearchVector("title", weight="A", config="german")
    + SearchVector("buyer_name", weight="B", config="german")
    + SearchVector("title_parts", weight="B", config="german")
    + SearchVector("description", weight="C", config="german")
    + SearchVector("cpv_labels", weight="D", config="german")
    + SearchVector("search_parts", weight="D", config="german")
)


class Tender(models.Model):
    ocid = models.CharField(max_length=120, null=True, blank=True, verbose_name=_("OCID"))
    procedure_id = models.CharField(max_length=120, null=True, blank=True, verbose_name=_("Verfahrens-ID"))
    title = models.TextField(verbose_name=_("Titel"))
    description = models.TextField(blank=True, default="", verbose_name=_("Beschreibung"))
    buyer_name = models.CharField(max_length=500, blank=True, default="", verbose_name=_("Vergabestelle"))
    buyer_id = models.CharField(max_length=200, blank=True, default="", verbose_name=_("Kennung der Vergabestelle"))
    procedure_type = models.CharField(max_length=40, blank=True, default="", verbose_name=_("Verfahrensart"))
    status = models.CharField(
        max_length=12, choices=TENDER_STATUS_CHOICES, default=TenderStatus.ACTIVE.value, verbose_name=_("Status")
    )
    cpv_codes = ArrayField(models.CharField(max_length=8), default=list, blank=True, verbose_name=_("CPV-Codes"))
    cpv_divisions = ArrayField(
        models.CharField(max_length=2), default=list, blank=True, verbose_name=_("CPV-Abteilungen")
    )
    # Every prefix (2..8 digits) of every code: a CPV filter at any level is one indexed overlap.
    cpv_prefixes = ArrayField(models.CharField(max_length=8), default=list, blank=True, verbose_name=_("CPV-Präfixe"))
    cpv_labels = models.TextField(blank=True, default="", verbose_name=_("CPV-Bezeichnungen"))
    # Compound parts (kernel.vocabulary.compounds) of the title, and of description, lot titles and CPV labels.
    title_parts = models.TextField(blank=True, default="", verbose_name=_("Wortteile des Titels"))
    search_parts = models.TextField(blank=True, default="", verbose_name=_("Wortteile für die Suche"))
    nuts_codes = ArrayField(models.CharField(max_length=5), default=list, blank=True, verbose_name=_("NUTS-Codes"))
    bundesland = models.CharField(max_length=40, blank=True, default="", verbose_name=_("Bundesland"))
    postal_code = models.CharField(max_length=5, blank=True, default="", verbose_name=_("PLZ"))
    town = models.CharField(max_length=200, blank=True, default="", verbose_name=_("Ort"))
    country = models.CharField(max_length=3, blank=True, default="", verbose_name=_("Land"))
    estimated_value = models.DecimalField(
        max_digits=18, decimal_places=2, null=True, blank=True, verbose_name=_("geschätzter Wert")
    )
    currency = models.CharField(max_length=3, blank=True, default="", verbose_name=_("Währung"))
    published_at = models.DateTimeField(null=True, blank=True, verbose_name=_("veröffentlicht"))
    submission_deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("Angebotsfrist"))
    questions_deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("Frist für Bieterfragen"))
    lots = models.JSONField(default=list, blank=True, verbose_name=_("Lose"))
    documents_url = models.URLField(max_length=2000, blank=True, default="", verbose_name=_("Vergabeunterlagen (URL)"))
    portal_references = ArrayField(
        models.CharField(max_length=200), default=list, blank=True, verbose_name=_("Portal-Verweise")
    )
    suppliers = ArrayField(models.CharField(max_length=500), default=list, blank=True, verbose_name=_("Auftragnehmer"))
    # Award results lot by lot ({lot_id, status, supplier_name, supplier_id, supplier_town, supplier_country,
    # value, currency, tenders_received, date}). A column, not a table: results are compiled and written with
    # the tender in the same bulk upsert, always shown with it, and the market pages find tenders by the indexed
    # keys below (supplier_keys, buyer_key, main_cpv), then read at most a page of award lists.
    awards = models.JSONField(default=list, blank=True, verbose_name=_("Zuschläge"))
    supplier_keys = ArrayField(
        models.CharField(max_length=200), default=list, blank=True, verbose_name=_("Auftragnehmer (Schlüssel)")
    )
    buyer_key = models.CharField(max_length=200, blank=True, default="", verbose_name=_("Vergabestelle (Schlüssel)"))
    buyer_street = models.CharField(max_length=300, blank=True, default="", verbose_name=_("Straße der Vergabestelle"))
    buyer_postal_code = models.CharField(max_length=10, blank=True, default="", verbose_name=_("PLZ der Vergabestelle"))
    buyer_town = models.CharField(max_length=200, blank=True, default="", verbose_name=_("Ort der Vergabestelle"))
    buyer_country = models.CharField(max_length=3, blank=True, default="", verbose_name=_("Land der Vergabestelle"))
    buyer_email = models.CharField(max_length=254, blank=True, default="", verbose_name=_("E-Mail der Vergabestelle"))
    buyer_phone = models.CharField(max_length=80, blank=True, default="", verbose_name=_("Telefon der Vergabestelle"))
    legal_basis = models.CharField(max_length=20, blank=True, default="", verbose_name=_("Rechtsgrundlage"))
    above_eu_threshold = models.BooleanField(null=True, blank=True, verbose_name=_("oberhalb EU-Schwellenwert"))
    contract_nature = models.CharField(max_length=10, blank=True, default="", verbose_name=_("Auftragsart"))
    main_cpv = models.CharField(max_length=8, blank=True, default="", verbose_name=_("Haupt-CPV"))
    deadlines = models.JSONField(default=list, blank=True, verbose_name=_("Fristen"))
    ted_publication_number = models.CharField(
        max_length=20, blank=True, default="", verbose_name=_("TED-Veröffentlichungsnummer")
    )
    publication_numbers = ArrayField(
        models.CharField(max_length=20), default=list, blank=True, verbose_name=_("Veröffentlichungsnummern")
    )
    contract_start = models.DateField(null=True, blank=True, verbose_name=_("Vertragsbeginn"))
    contract_end = models.DateField(null=True, blank=True, verbose_name=_("Vertragsende"))
    contract_duration = models.CharField(max_length=20, blank=True, default="", verbose_name=_("Vertragslaufzeit"))
    framework_agreement = models.BooleanField(null=True, blank=True, verbose_name=_("Rahmenvereinbarung"))
    # Where each shown value came from: {"refs": [notice versions], "fields": {field: index into refs}}
    # (tenders.merging.precedence). Written with the tender; shown on its page and in the API.
    field_sources = models.JSONField(default=dict, blank=True, verbose_name=_("Herkunft der Angaben"))
    # A weaker source stating something else for a field a bidder acts on: [{field, value, ref, chosen,
    # chosen_ref}]. Open while the sources disagree; the console lists them (tender_conflicts_idx).
    conflicts = models.JSONField(default=list, blank=True, verbose_name=_("abweichende Angaben"))
    content_hash = models.CharField(max_length=64, verbose_name=_("Inhalts-Hash"))
    fingerprint = models.CharField(max_length=64, null=True, blank=True, verbose_name=_("Fingerabdruck"))
    first_seen_at = models.DateTimeField(verbose_name=_("erstmals gesehen"))
    # No "last seen" here: a sighting is a fact of a source link (TenderSource.last_seen_at). Written on the
    # tender, every re-read notice rewrote the row and PostgreSQL recomputed its search vector.
    changed_at = models.DateTimeField(verbose_name=_("zuletzt geändert"))
    search_vector = models.GeneratedField(
        expression=SEARCH_VECTOR_EXPRESSION,
        output_field=SearchVectorField(),
        db_persist=True,
        verbose_name=_("Suchindex"),
    )

    class Meta:
        ordering = ["-published_at", "-id"]
        verbose_name = _("Ausschreibung")
        verbose_name_plural = _("Ausschreibungen")
        indexes = [
            GinIndex(fields=["search_vector"], name="tender_search_gin"),
            # Most searches ask for open tenders: their keywords are looked up among open tenders alone (a
            # quarter of the full index's size) instead of intersecting every match with every open tender.
            GinIndex(fields=["search_vector"], name="tender_active_search_gin", condition=Q(status="active")),
            GinIndex(fields=["cpv_codes"], name="tender_cpv_gin"),
            GinIndex(fields=["cpv_divisions"], name="tender_cpv_div_gin"),
            GinIndex(fields=["cpv_prefixes"], name="tender_cpv_prefix_gin"),
            # Looked up by the ingest for every batch, under its lock: without GIN's pending list, whose
            # unsorted entries every lookup scans until the next vacuum (in one long import, the whole
            # import's rows). A tender has one or two entries, so the direct insert costs little.
            GinIndex(fields=["portal_references"], name="tender_portal_refs_gin", fastupdate=False),
            models.Index(fields=["submission_deadline"], name="tender_deadline_idx"),
            # The result list's "newest first" (published_at DESC NULLS LAST, id DESC), which a plain
            # ascending index cannot serve: PostgreSQL would sort every row for the first page.
            models.Index(F("published_at").desc(nulls_last=True), F("id").desc(), name="tender_published_desc_idx"),
            models.Index(fields=["first_seen_at"], name="tender_first_seen_idx"),
            models.Index(fields=["bundesland", "submission_deadline"], name="tender_land_deadline_idx"),
            # Most searches ask for open tenders by deadline; without these, "active ORDER BY deadline LIMIT 50"
            # walks the deadline index past every expired tender first (seconds on a million rows).
            models.Index(
                fields=["submission_deadline"], name="tender_active_deadline_idx", condition=Q(status="active")
            ),
            models.Index(
                fields=["bundesland", "submission_deadline"],
                name="tender_active_land_dl_idx",
                condition=Q(status="active"),
            ),
            models.Index(fields=["postal_code"], name="tender_plz_idx", opclasses=["varchar_pattern_ops"]),
            # The place filters (Kreis, radius) find tenders known only by a NUTS-3 code here; tenders with a
            # postcode are found by it (tender_plz_idx), so they stay out of this index. No pending list: a
            # filter index, searched on every such query, and a tender adds only one or two entries.
            GinIndex(
                fields=["nuts_codes"], name="tender_nuts_no_plz_gin", condition=Q(postal_code=""), fastupdate=False
            ),
            models.Index(fields=["fingerprint"], name="tender_fingerprint_idx", condition=Q(fingerprint__isnull=False)),
            # Market view: a supplier's contracts, a buyer's tenders (newest first), awarded tenders of one CPV
            # class in one Land ("ähnliche vergebene Aufträge"), and award notices naming an OJ S number.
            GinIndex(fields=["supplier_keys"], name="tender_supplier_keys_gin"),
            models.Index(
                "buyer_key",
                F("published_at").desc(nulls_last=True),
                name="tender_buyer_published_idx",
                condition=~Q(buyer_key=""),
            ),
            models.Index(
                "bundesland",
                models.functions.Substr("main_cpv", 1, 4),
                F("published_at").desc(nulls_last=True),
                name="tender_awarded_similar_idx",
                condition=Q(status="awarded"),
            ),
            GinIndex(fields=["publication_numbers"], name="tender_publication_nos_gin", fastupdate=False),  # see above
            # The console's open conflicts, newest change first: few tenders have any, so the index stays small.
            models.Index(F("changed_at").desc(), name="tender_conflicts_idx", condition=~Q(conflicts=[])),
            # No index on ocid / procedure_id here: the merge rules and the admin look them up on TenderSource
            # (every tender's ids are its sources' ids), and each index costs every ingested row a btree insert.
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(estimated_value__gte=0) | Q(estimated_value__isnull=True), name="tender_value_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return self.title[:80]


class TenderSource(models.Model):
    """One notice on one portal that describes the tender (1:n)."""

    # db_index=False: "tender_source_tender_idx" (tender, source) serves every lookup by tender.
    tender = models.ForeignKey(
        Tender, on_delete=models.CASCADE, related_name="sources", db_index=False, verbose_name=_("Ausschreibung")
    )
    source = models.CharField(max_length=40, verbose_name=_("Quelle"))
    source_notice_id = models.CharField(max_length=200, verbose_name=_("Bekanntmachungs-ID"))
    ocid = models.CharField(max_length=120, null=True, blank=True, verbose_name=_("OCID"))
    procedure_id = models.CharField(max_length=120, null=True, blank=True, verbose_name=_("Verfahrens-ID"))
    url = models.URLField(max_length=2000, blank=True, default="", verbose_name=_("URL"))
    latest_version = models.CharField(max_length=10, default="01", verbose_name=_("neueste Version"))
    merge_rule = models.CharField(
        max_length=20, choices=MergeRule.choices, default=MergeRule.NEW, verbose_name=_("zugeordnet, weil")
    )
    first_seen_at = models.DateTimeField(verbose_name=_("erstmals gesehen"))
    last_seen_at = models.DateTimeField(verbose_name=_("zuletzt gesehen"))

    class Meta:
        verbose_name = _("Quelle einer Ausschreibung")
        verbose_name_plural = _("Quellen der Ausschreibungen")
        constraints = [
            models.UniqueConstraint(fields=["source", "source_notice_id"], name="tender_source_notice_unique"),
        ]
        indexes = [
            models.Index(fields=["source_notice_id"], name="tender_source_notice_idx"),
            models.Index(fields=["ocid"], name="tender_source_ocid_idx", condition=Q(ocid__isnull=False)),
            models.Index(
                fields=["procedure_id"], name="tender_source_procedure_idx", condition=Q(procedure_id__isnull=False)
            ),
            models.Index(fields=["tender", "source"], name="tender_source_tender_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.source_notice_id}"


class TenderVersion(models.Model):
    """Each version of each notice, with the parsed record and what it changed."""

    # A version belongs to its source's tender (the ingest and the split keep the two equal under their
    # lock); the source's foreign key guards the tender. A second constraint here would cost each ingested
    # version one more check at commit, and "tender_version_tender_idx" (tender, published_at) serves lookups.
    tender = models.ForeignKey(
        Tender,
        on_delete=models.CASCADE,
        related_name="versions",
        db_index=False,
        db_constraint=False,
        verbose_name=_("Ausschreibung"),
    )
    tender_source = models.ForeignKey(
        TenderSource, on_delete=models.CASCADE, related_name="versions", verbose_name=_("Quelle der Ausschreibung")
    )
    source = models.CharField(max_length=40, verbose_name=_("Quelle"))
    source_notice_id = models.CharField(max_length=200, verbose_name=_("Bekanntmachungs-ID"))
    version = models.CharField(max_length=10, verbose_name=_("Version"))
    kind = models.CharField(max_length=20, verbose_name=_("Art"))
    published_at = models.DateTimeField(null=True, blank=True, verbose_name=_("veröffentlicht"))
    record = models.JSONField(verbose_name=_("Datensatz"))
    content_hash = models.CharField(max_length=64, verbose_name=_("Inhalts-Hash"))
    # "[<digest as stored in the archive>+]<digest of the raw bytes>:<content_hash it was parsed into>"
    # (tenders.services.ingest_raw, sources.adapters.doe.reading.raw_digest); "" when unknown.
    raw_hash = models.CharField(max_length=160, blank=True, default="", db_default="", verbose_name=_("Roh-Hash"))
    changes = models.JSONField(default=dict, blank=True, verbose_name=_("Änderungen"))
    seen_at = models.DateTimeField(verbose_name=_("gesehen"))

    class Meta:
        ordering = ["published_at", "id"]
        verbose_name = _("Version einer Bekanntmachung")
        verbose_name_plural = _("Versionen der Bekanntmachungen")
        constraints = [
            models.UniqueConstraint(fields=["source", "source_notice_id", "version"], name="tender_version_unique"),
        ]
        indexes = [models.Index(fields=["tender", "published_at"], name="tender_version_tender_idx")]

    def __str__(self) -> str:
        return f"{self.source}:{self.source_notice_id} v{self.version}"


class TenderDelta(models.Model):
    """What one ingest batch created and changed, kept until every tenant has matched it (the hand-off).

    Written in the same transaction as the batch (``tenders.handoff.delta_hand_off``), so a committed
    batch always has its delta and a rolled-back one never has. ``completed_at`` is set once every
    tenant that existed when the delta was written has a ``TenderDeltaCompletion``.
    """

    created_at = models.DateTimeField()
    created_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    changed = models.JSONField(default=dict, blank=True)  # {"<tender id>": {field: [old, new]}}
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["created_at"], name="tender_delta_pending_idx", condition=Q(completed_at__isnull=True)
            ),
            models.Index(fields=["completed_at"], name="tender_delta_completed_idx"),
        ]

    def __str__(self) -> str:
        return f"delta {self.pk} ({len(self.created_ids)} new, {len(self.changed)} changed)"


class TenderDeltaCompletion(models.Model):
    """One tenant has matched one delta: written in the tenant's matching transaction, so never twice."""

    delta = models.ForeignKey(TenderDelta, on_delete=models.CASCADE, related_name="completions")
    tenant = models.ForeignKey("accounts.Tenant", on_delete=models.CASCADE, related_name="+")
    processed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "delta"], name="tender_delta_completion_unique")]

    def __str__(self) -> str:
        return f"delta {self.delta_id} → tenant {self.tenant_id}"


class SynonymGroup(models.Model):
    """Words of the procurement thesaurus that find each other (``kernel.vocabulary.synonyms``).

    Searches rewrite each typed word through these rows in SQL (``tenders.fulltext.SynonymRewrite``),
    so an edit applies at once to the portal, the API and saved-search matching. Written only by
    ``tenders.services.synonyms``, which also fills ``rewrite`` (the words' search alternatives).
    """

    words = ArrayField(
        models.CharField(max_length=80),
        verbose_name=_("gleichbedeutende Wörter"),
        help_text=_("Kommagetrennt; jedes Wort findet auch alle anderen."),
    )
    narrower = ArrayField(
        models.CharField(max_length=80),
        blank=True,
        default=list,
        verbose_name=_("engere Begriffe"),
        help_text=_("Kommagetrennt; werden von den Wörtern der Gruppe gefunden, finden sie aber nicht."),
    )
    basis = models.CharField(max_length=500, blank=True, default="", verbose_name=_("Grundlage"))
    rewrite = models.TextField(editable=False, default="", verbose_name=_("Suchausdruck"))
    substitute = models.GeneratedField(
        expression=Func(F("rewrite"), template="to_tsquery('german'::regconfig, %(expressions)s)"),
        output_field=SearchQueryField(),
        db_persist=True,
        verbose_name=_("Suchausdruck (tsquery)"),
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("Synonymgruppe")
        verbose_name_plural = _("Synonymgruppen")

    def __str__(self) -> str:
        return ", ".join(self.words)


class TenderConflict(Tender):
    """Tenders whose sources disagree on a field a bidder acts on: the operator console's list of open conflicts."""

    class Meta:
        proxy = True
        verbose_name = _("abweichende Angabe")
        verbose_name_plural = _("abweichende Angaben")
