"""The bid desk's default stages and reasons, and today's triage on the team board.

Runs for every existing tenant and, as part of its schema's migrations, for every tenant created later.
Triage stays each person's own verdict; what it said about a tender becomes that tender's card once: the
most advanced verdict of anyone in the team picks the stage (beworben > in Prüfung > interessant >
abgelehnt > neu), and every non-empty note becomes a comment by its author (no mail: nobody is mentioned).
"""

from django.db import migrations

STAGES = (
    ("neu", "open"),
    ("prüfen", "open"),
    ("Angebot in Arbeit", "open"),
    ("abgegeben", "open"),
    ("gewonnen", "won"),
    ("verloren", "lost"),
    ("nicht angeboten", "declined"),
)
REASONS = ("nicht relevant", "zu klein", "außerhalb Region", "keine Kapazität", "Referenzen fehlen")
# triage status -> (rank, stage name)
TRIAGE_STAGE = {
    "beworben": (4, "abgegeben"),
    "pruefung": (3, "prüfen"),
    "interessant": (2, "prüfen"),
    "abgelehnt": (1, "nicht angeboten"),
    "neu": (0, "neu"),
}


def forwards(apps, schema_editor):
    BidStage = apps.get_model("notifications", "BidStage")
    DecisionReason = apps.get_model("notifications", "DecisionReason")
    BidCard = apps.get_model("notifications", "BidCard")
    CardComment = apps.get_model("notifications", "CardComment")
    CardEvent = apps.get_model("notifications", "CardEvent")
    Triage = apps.get_model("notifications", "Triage")
    if not BidStage.objects.exists():
        BidStage.objects.bulk_create(
            BidStage(name=name, kind=kind, position=position) for position, (name, kind) in enumerate(STAGES)
        )
    if not DecisionReason.objects.exists():
        DecisionReason.objects.bulk_create(
            DecisionReason(label=label, position=position) for position, label in enumerate(REASONS)
        )
    stages = {stage.name: stage for stage in BidStage.objects.all()}
    best: dict[int, tuple] = {}
    notes = []
    for triage in Triage.objects.order_by("updated_at", "id").iterator():
        rank, stage_name = TRIAGE_STAGE.get(triage.status, (0, "neu"))
        current = best.get(triage.tender_id)
        if current is None or rank > current[0]:
            best[triage.tender_id] = (rank, stage_name, triage.updated_at)
        if triage.note.strip():
            notes.append(triage)
    existing = set(BidCard.objects.values_list("tender_id", flat=True))
    cards = {}
    for tender_id, (_rank, stage_name, at) in best.items():
        if tender_id in existing or stage_name not in stages:
            continue
        cards[tender_id] = BidCard.objects.create(
            tender_id=tender_id, stage=stages[stage_name], created_at=at, updated_at=at
        )
        CardEvent.objects.create(card=cards[tender_id], kind="created", data={"via": "triage"}, created_at=at)
    for triage in notes:
        card = cards.get(triage.tender_id)
        if card is not None:
            CardComment.objects.create(
                card=card, author_id=triage.user_id, text=triage.note.strip()[:5000], created_at=triage.updated_at
            )


class Migration(migrations.Migration):
    dependencies = [("notifications", "0010_bid_desk")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
