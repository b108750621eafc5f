"""More NetServer and cosinex portals that serve public result lists (shared portals README, 2026).

Each row's settings are validated by the adapter (tests/sources/test_portal_sources.py); the
operator edits them in the admin like any other source. DTVP moves to its Center host, whose
list is read through the JSON search the page uses (or reported as browser-only).
"""

from django.db import migrations

NETSERVER = {"schedule_minutes": 240, "politeness_seconds": 5.0, "adapter": "netserver"}
COSINEX = {"schedule_minutes": 240, "politeness_seconds": 5.0, "adapter": "cosinex"}

PORTALS = [
    {
        **NETSERVER,
        "key": "vergabe-hessen",
        "name": "Hessische Ausschreibungsdatenbank (NetServer, Kartenansicht)",
        "settings": {"base_url": "https://vergabe.hessen.de/NetServer/"},
    },
    {
        **NETSERVER,
        "key": "vergabe-autobahn",
        "name": "Die Autobahn GmbH des Bundes (NetServer)",
        "settings": {"base_url": "https://vergabe.autobahn.de/NetServer/"},
    },
    {
        **NETSERVER,
        "key": "vergabekooperation-berlin",
        "name": "Vergabekooperation Berlin (NetServer)",
        "settings": {"base_url": "https://vergabekooperation.berlin/NetServer/"},
    },
    {
        **NETSERVER,
        "key": "vergabe-vmstart",
        "name": "Vergabemanagementsystem vmstart (NetServer)",
        "settings": {"base_url": "https://vergabe.vmstart.de/NetServer/"},
    },
    {
        **NETSERVER,
        "key": "vergabe-frankfurt",
        "name": "Stadt Frankfurt am Main (NetServer)",
        "settings": {"base_url": "https://vergabe.stadt-frankfurt.de/NetServer/"},
    },
    {
        **NETSERVER,
        "key": "vergabe-brandenburg",
        "name": "Land Brandenburg – Ausschreibungen (NetServer)",
        "settings": {"base_url": "https://www.ausschreibungen.ls.brandenburg.de/NetServer/"},
    },
    {
        **COSINEX,
        "key": "vergabe-niedersachsen",
        "name": "Vergabeplattform Niedersachsen (cosinex Satellite)",
        "settings": {"base_url": "https://vergabe.niedersachsen.de/Satellite"},
    },
    {
        **COSINEX,
        "key": "vergabe-metropoleruhr",
        "name": "Vergabemarktplatz Metropole Ruhr (cosinex Satellite)",
        # Without www. the host fails TLS (reported by public clients).
        "settings": {"base_url": "https://www.vergabe.metropoleruhr.de/VMPSatellite"},
    },
    {
        **COSINEX,
        "key": "vergabe-westfalen",
        "name": "Vergabemarktplatz Westfalen (cosinex Satellite)",
        "settings": {"base_url": "https://www.vergabe-westfalen.de/VMPSatellite"},
    },
    {
        **COSINEX,
        "key": "vmp-rheinland",
        "name": "Vergabemarktplatz Rheinland (cosinex Satellite)",
        "settings": {"base_url": "https://www.vmp-rheinland.de/VMPSatellite"},
    },
    {
        **COSINEX,
        "key": "evergabe-nrw",
        "name": "Vergabemarktplatz NRW (cosinex Center)",
        "settings": {"base_url": "https://www.evergabe.nrw.de/VMPCenter"},
    },
]
DTVP_BEFORE = {"base_url": "https://www.dtvp.de/Satellite"}
DTVP_AFTER = {"base_url": "https://www.dtvp.de/Center"}


def create(apps, schema_editor):
    Source = apps.get_model("sources", "Source")
    for row in PORTALS:
        Source.objects.get_or_create(key=row["key"], defaults=row)
    # Only where the operator has not changed it since 0004.
    Source.objects.filter(key="dtvp", settings=DTVP_BEFORE).update(
        settings=DTVP_AFTER, name="Deutsches Vergabeportal DTVP (cosinex Center)"
    )


def remove(apps, schema_editor):
    Source = apps.get_model("sources", "Source")
    Source.objects.filter(key__in=[r["key"] for r in PORTALS]).delete()
    Source.objects.filter(key="dtvp", settings=DTVP_AFTER).update(settings=DTVP_BEFORE)


class Migration(migrations.Migration):
    dependencies = [("sources", "0006_fetchrun_yield_report")]
    operations = [migrations.RunPython(create, remove)]
