"""The sources every installation starts with (operators add more in the admin)."""

from django.db import migrations

INITIAL = [
    {
        "key": "doe",
        "name": "DÖE – Bekanntmachungsservice (oeffentlichevergabe.de)",
        "adapter": "doe",
        "settings": {},
        "schedule_minutes": 360,
        "politeness_seconds": 2.0,
    },
    {
        "key": "ted",
        "name": "TED – Tenders Electronic Daily (API v3)",
        "adapter": "ted",
        "settings": {},
        "schedule_minutes": 180,
        "politeness_seconds": 2.0,
    },
]


def create(apps, schema_editor):
    Source = apps.get_model("sources", "Source")
    for row in INITIAL:
        Source.objects.get_or_create(key=row["key"], defaults=row)


def remove(apps, schema_editor):
    apps.get_model("sources", "Source").objects.filter(key__in=[r["key"] for r in INITIAL]).delete()


class Migration(migrations.Migration):
    dependencies = [("sources", "0001_initial")]
    operations = [migrations.RunPython(create, remove)]
