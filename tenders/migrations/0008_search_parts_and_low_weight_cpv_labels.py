"""Compound parts in the search vector (title parts at B, the rest at D); CPV labels move from B to D.

PostgreSQL 15 cannot change a generated column's expression, so the vector column
(and its GIN index) is dropped and added again: that rewrites the table and
recomputes every vector once. Existing tenders get their compound parts and the
full CPV labels afterwards from ``manage.py reindex_search`` (batched, resumable,
safe while the portal runs); until then they are found as before.
"""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tenders', '0007_tender_delta_hand_off'),
    ]

    operations = [
        migrations.AddField(
            model_name='tender',
            name='search_parts',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='tender',
            name='title_parts',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.RemoveIndex(model_name='tender', name='tender_search_gin'),
        migrations.RemoveField(model_name='tender', name='search_vector'),
        migrations.AddField(
            model_name='tender',
            name='search_vector',
            field=models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.SearchVector('title', config='german', weight='A'), '||', django.contrib.postgres.search.SearchVector('buyer_name', config='german', weight='B'), django.contrib.postgres.search.SearchConfig('german')), '||', django.contrib.postgres.search.SearchVector('title_parts', config='german', weight='B'), django.contrib.postgres.search.SearchConfig('german')), '||', django.contrib.postgres.search.SearchVector('description', config='german', weight='C'), django.contrib.postgres.search.SearchConfig('german')), '||', django.contrib.postgres.search.SearchVector('cpv_labels', config='german', weight='D'), django.contrib.postgres.search.SearchConfig('german')), '||', django.contrib.postgres.search.SearchVector('search_parts', config='german', weight='D'), django.contrib.postgres.search.SearchConfig('german')), output_field=django.contrib.postgres.search.SearchVectorField()),
        ),
        migrations.AddIndex(
            model_name='tender',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search_vector'], name='tender_search_gin'),
        ),
        # Re-apply 0003's finer statistics: they belonged to the dropped column.
        migrations.RunSQL(
            "ALTER TABLE tenders_tender ALTER COLUMN search_vector SET STATISTICS 1000",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
