"""Below-threshold portals, the federal RSS feed and the alert-mail source."""

from django.db import migrations

PORTALS = [
    {
        "key": "tender24",
        "name": "tender24 (AI Vergabe@Net NetServer)",
        "adapter": "netserver",
        "settings": {"base_url": "https://www.tender24.de/NetServer/"},
        "schedule_minutes": 120,
        "politeness_seconds": 5.0,
    },
    {
        "key": "vergabe-landbw",
        "name": "Vergabeplattform Baden-Württemberg (NetServer)",
        "adapter": "netserver",
        "settings": {"base_url": "https://vergabe.landbw.de/NetServer/"},
        "schedule_minutes": 120,
        "politeness_seconds": 5.0,
    },
    {
        "key": "lhs-vpbw",
        "name": "Landeshauptstadt Stuttgart / VP BW (NetServer)",
        "adapter": "netserver",
        "settings": {"base_url": "https://lhs-vpbw.vmstart.de/NetServer/"},
        "schedule_minutes": 240,
        "politeness_seconds": 5.0,
    },
    {
        "key": "dtvp",
        "name": "Deutsches Vergabeportal DTVP (cosinex)",
        "adapter": "cosinex",
        "settings": {"base_url": "https://www.dtvp.de/Satellite"},
        "schedule_minutes": 120,
        "politeness_seconds": 5.0,
    },
    {
        "key": "service-bund",
        "name": "service.bund.de – Ausschreibungen (RSS)",
        "adapter": "rss",
        "settings": {
            "feed_url": "https://www.service.bund.de/Content/Globals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
        },
        "schedule_minutes": 60,
        "politeness_seconds": 2.0,
    },
    {
        "key": "mail",
        "name": "Portal-Alert-E-Mails (je Mandant per IMAP gelesen)",
        "adapter": "mail",
        "settings": {},
        "schedule_minutes": 30,
        "politeness_seconds": 0.0,
        # Not polled as a source: each tenant's inbox task feeds it.
        "is_active": False,
    },
]


def create(apps, schema_editor):
    Source = apps.get_model("sources", "Source")
    for row in PORTALS:
        Source.objects.get_or_create(key=row["key"], defaults=row)


def remove(apps, schema_editor):
    apps.get_model("sources", "Source").objects.filter(key__in=[r["key"] for r in PORTALS]).delete()


class Migration(migrations.Migration):
    dependencies = [("sources", "0003_inboundmail_conditionalcacheentry")]
    operations = [migrations.RunPython(create, remove)]
