# Built without locking the tender table against writes: the ingest keeps writing while it builds.

import django.contrib.postgres.indexes
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("tenders", "0017_tenderversion_raw_hash"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="tender",
            index=django.contrib.postgres.indexes.GinIndex(
                condition=models.Q(("status", "active")), fields=["search_vector"], name="tender_active_search_gin"
            ),
        ),
    ]
