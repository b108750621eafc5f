"""Room for the digest of an archive member as stored beside the digest of its bytes (sources.adapters.doe.reading).

Widening a varchar is a catalogue change in PostgreSQL: no table rewrite.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tenders", "0018_open_tenders_search_gin")]

    operations = [
        migrations.AlterField(
            model_name="tenderversion",
            name="raw_hash",
            field=models.CharField(blank=True, db_default="", default="", max_length=160, verbose_name="Roh-Hash"),
        ),
    ]
