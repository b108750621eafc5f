"""A sighting is a source link's fact: ``Tender.last_seen_at`` goes, ``TenderSource.last_seen_at`` stays.

Why: re-reading a notice that did not change wrote its tender's row, and PostgreSQL recomputes a stored
generated column (the search vector of title, description and labels) on every update of the row: 0.4-0.5 s
for a day of 5,000 unchanged notices, the largest part of re-reading it. The tender's last sighting is its
sources' latest (``tenders.selectors``), as it always was in value.

The sources' table keeps room on each page (fillfactor 80) so that marking a source seen, which changes no
indexed column, is a heap-only update instead of an entry in each of its six indexes.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("tenders", "0019_raw_hash_with_packed_digest")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.RemoveField(model_name="tender", name="last_seen_at")],
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE tenders_tender DROP COLUMN last_seen_at",
                    # Back: the column as it was, each tender's value its sources' latest sighting.
                    reverse_sql=[
                        "ALTER TABLE tenders_tender ADD COLUMN last_seen_at timestamptz",
                        "UPDATE tenders_tender t SET last_seen_at = coalesce("
                        "(SELECT max(s.last_seen_at) FROM tenders_tendersource s WHERE s.tender_id = t.id),"
                        " t.first_seen_at)",
                        "ALTER TABLE tenders_tender ALTER COLUMN last_seen_at SET NOT NULL",
                    ],
                )
            ],
        ),
        migrations.RunSQL(
            "ALTER TABLE tenders_tendersource SET (fillfactor = 80)",
            reverse_sql="ALTER TABLE tenders_tendersource RESET (fillfactor)",
        ),
    ]
