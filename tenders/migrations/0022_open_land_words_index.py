"""The open tenders' words beside their Land in one index, where the server has btree_gin.

Why: a keyword search of open tenders in a Land read every open match of its words and checked the Land
on each row (``tenders.filter_query``): for a frequent word 12,472 rows on as many heap pages to keep 810.
One GIN index over (Land, words) intersects both inside the index: 810 rows on 809 pages (bench/README.md,
"Issue 33, sixth round"). btree_gin ships with PostgreSQL's contrib like pg_trgm (every packaged server);
the embedded server of a first run has no contrib, and there the search keeps checking the Land on the
words' rows (``tenders.search.land_words_indexed``).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tenders", "0021_search_vocabulary_generation"),
    ]

    operations = [
        migrations.RunSQL(
            [
                "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'btree_gin') "
                "THEN CREATE EXTENSION IF NOT EXISTS btree_gin; END IF; END $$",
                "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin') THEN "
                "CREATE INDEX IF NOT EXISTS tender_active_land_search_gin ON tenders_tender "
                "USING gin (bundesland, search_vector) WHERE status = 'active'; "
                "END IF; END $$",
            ],
            reverse_sql=["DROP INDEX IF EXISTS tender_active_land_search_gin"],
        ),
    ]
