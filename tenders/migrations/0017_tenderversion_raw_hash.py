"""A digest of each version's raw bytes, so an unchanged notice is skipped before parsing (tenders.services.ingest_raw)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tenders", "0016_search_vocabulary")]

    operations = [
        migrations.AddField(
            model_name="tenderversion",
            name="raw_hash",
            # A database default: the ingest COPYs versions without this column; "" means "parse it".
            field=models.CharField(blank=True, db_default="", default="", max_length=100, verbose_name="Roh-Hash"),
        ),
    ]
