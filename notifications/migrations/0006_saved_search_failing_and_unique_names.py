import django.db.models.functions.text
import notifications.models
from django.conf import settings
from django.db import migrations, models


def rename_duplicate_names(apps, schema_editor):
    """Profiles stored before names were unique per owner keep their first name; later ones get " (2)", " (3)" …."""
    SavedSearch = apps.get_model("notifications", "SavedSearch")
    taken: dict[int, set[str]] = {}
    renames = []
    for search in SavedSearch.objects.order_by("owner_id", "id").only("id", "owner_id", "name"):
        names = taken.setdefault(search.owner_id, set())
        name = search.name
        number = 2
        while name.lower() in names:
            suffix = f" ({number})"
            name = search.name[: 200 - len(suffix)] + suffix
            number += 1
        names.add(name.lower())
        if name != search.name:
            search.name = name
            renames.append(search)
    SavedSearch.objects.bulk_update(renames, ["name"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0005_calendar_token_hash'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='savedsearch',
            name='failing_reason',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='failing_since',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='savedsearch',
            name='filters',
            field=models.JSONField(default=dict, validators=[notifications.models.validate_saved_search_filters]),
        ),
        migrations.RunPython(rename_duplicate_names, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='savedsearch',
            constraint=models.UniqueConstraint(models.F('owner'), django.db.models.functions.text.Lower('name'), name='saved_search_owner_name_unique'),
        ),
    ]
