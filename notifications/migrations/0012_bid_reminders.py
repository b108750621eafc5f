"""Deadline reminders of the team board: per stage on/off, per person the days before, a card's known deadlines."""

from django.db import migrations, models

import notifications.models


def closed_stages_quiet(apps, schema_editor):
    # Gewonnen, verloren, nicht angeboten: nothing to hand in any more, so no reminders there.
    apps.get_model("notifications", "BidStage").objects.exclude(kind="open").update(reminders=False)


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0011_bid_desk_defaults_and_triage"),
    ]

    operations = [
        migrations.AddField(
            model_name="bidcard",
            name="known_deadlines",
            field=models.JSONField(blank=True, db_default={}, default=dict),
        ),
        migrations.AddField(
            model_name="bidstage",
            name="reminders",
            field=models.BooleanField(db_default=True, default=True),
        ),
        migrations.AddField(
            model_name="userpreference",
            name="reminder_days",
            field=models.JSONField(
                blank=True, db_default=[7, 3, 1], default=notifications.models.default_reminder_days
            ),
        ),
        migrations.AlterField(
            model_name="cardevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("created", "angelegt"),
                    ("stage", "Phase geändert"),
                    ("owner", "zugewiesen"),
                    ("watchers", "Beobachter geändert"),
                    ("due", "Termin geändert"),
                    ("decision", "entschieden"),
                    ("comment", "kommentiert"),
                    ("deadline", "Frist verschoben"),
                ],
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="kind",
            field=models.CharField(
                choices=[
                    ("instant", "Sofortmeldung"),
                    ("digest", "Zusammenfassung"),
                    ("change", "Änderung"),
                    ("test", "Testmail"),
                    ("mention", "Erwähnung"),
                    ("reminder", "Fristerinnerung"),
                ],
                max_length=10,
            ),
        ),
        migrations.RunPython(closed_stages_quiet, migrations.RunPython.noop),
    ]
