"""The team's bid desk (each tenant's own schema): stages, decision reasons, one card per tender, comments, history.

Declared here rather than in ``notifications.models`` to keep that module readable; ``notifications.models``
re-exports every class, so the rest of the wing imports them from there as from any tenant model.

One board per tenant: a tender has at most one card (unique), whoever works it. A person's own view
("meine") is a filter of that board (owner or watcher), never a second store. Stages and reasons are the
tenant's to edit (tenant admins); the defaults are written by migration 0011 for existing tenants and, since a
new tenant's schema runs every migration, for each tenant created later (``notifications.bid_cards`` writes them
again if a schema has none).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class BidStageKind(models.TextChoices):
    OPEN = "open", _("offen")
    WON = "won", _("gewonnen")
    LOST = "lost", _("verloren")
    DECLINED = "declined", _("nicht angeboten")


CLOSED_STAGE_KINDS = (BidStageKind.WON, BidStageKind.LOST, BidStageKind.DECLINED)


class BidStage(models.Model):
    """A column of the board, in ``position`` order. The first open stage is where matches land ("neu")."""

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, choices=BidStageKind.choices, default=BidStageKind.OPEN)
    position = models.PositiveSmallIntegerField(default=0)
    # Deadline reminders for cards in this stage (``notifications.bids.reminders``); closed stages never remind.
    reminders = models.BooleanField(default=True, db_default=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="bid_stage_name_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_closed(self) -> bool:
        return self.kind in CLOSED_STAGE_KINDS


class DecisionReason(models.Model):
    """A reason code for a bid/no-bid decision ("zu klein", "außerhalb Region", …); retired ones stay on old cards."""

    label = models.CharField(max_length=120)
    position = models.PositiveSmallIntegerField(default=0)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(Lower("label"), name="decision_reason_label_unique")]

    def __str__(self) -> str:
        return self.label


class BidDecision(models.TextChoices):
    OPEN = "", _("offen")
    BID = "bid", _("Angebot abgeben")
    NO_BID = "no_bid", _("kein Angebot")


class BidCard(models.Model):
    """A tender on the team's board: its stage, who owns and watches it, its due date and the bid decision."""

    # No database constraint to the public tender table, as for matches: cards are inserted in sets by matching.
    tender = models.OneToOneField("tenders.Tender", on_delete=models.CASCADE, related_name="+", db_constraint=False)
    stage = models.ForeignKey(BidStage, on_delete=models.PROTECT, related_name="cards")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="owned_bid_cards"
    )
    watchers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="watched_bid_cards")
    due_date = models.DateField(null=True, blank=True)
    decision = models.CharField(max_length=8, choices=BidDecision.choices, blank=True, default=BidDecision.OPEN)
    decision_reason = models.ForeignKey(
        DecisionReason, on_delete=models.PROTECT, null=True, blank=True, related_name="cards"
    )
    position = models.IntegerField(default=0)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    # The tender's deadlines as the card last saw them ({"<kind>[:<lot>]": ISO}): only to tell on the card that a
    # newer notice moved one; the card's dated items and reminders are always read from the tender itself.
    known_deadlines = models.JSONField(default=dict, db_default={}, blank=True)

    class Meta:
        indexes = [models.Index(fields=["stage", "position"], name="bidcard_stage_idx")]

    def __str__(self) -> str:
        return f"card {self.pk} ({self.tender_id})"


class CardComment(models.Model):
    """A comment on a card; the people it @mentions were told once each (dedupe key per comment and person)."""

    card = models.ForeignKey(BidCard, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    text = models.TextField()
    mentions = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="bid_mentions")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"comment {self.pk} on card {self.card_id}"


class CardEventKind(models.TextChoices):
    CREATED = "created", _("angelegt")
    STAGE = "stage", _("Phase geändert")
    OWNER = "owner", _("zugewiesen")
    WATCHERS = "watchers", _("Beobachter geändert")
    DUE = "due", _("Termin geändert")
    DECISION = "decision", _("entschieden")
    COMMENT = "comment", _("kommentiert")
    DEADLINE = "deadline", _("Frist verschoben")


class CardEvent(models.Model):
    """The card's history (what changed, from what to what, by whom): shown on the card; the base for later hooks."""

    card = models.ForeignKey(BidCard, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    kind = models.CharField(max_length=10, choices=CardEventKind.choices)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["card", "created_at"], name="cardevent_card_idx")]

    def __str__(self) -> str:
        return f"{self.kind} on card {self.card_id}"
