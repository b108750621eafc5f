"""A generation number for the title vocabulary (``tenders_search_vocabulary``).

Keyword queries read the vocabulary (a compound's head in titles, goods named after a word) and are kept
per process by ``tenders.fulltext.keywords_version``; without a number that changes with every refresh a
process kept answers from the previous word list. The number comes from a sequence: a refresh rolled back
leaves the old number and the old words together, and the next refresh never reuses a number.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("tenders", "0020_sightings_on_sources")]

    operations = [
        migrations.RunSQL(
            [
                "CREATE SEQUENCE tenders_search_vocabulary_generation",
                "CREATE TABLE tenders_search_vocabulary_state ("
                " id smallint PRIMARY KEY CHECK (id = 1),"
                " generation bigint NOT NULL)",
                "INSERT INTO tenders_search_vocabulary_state (id, generation)"
                " VALUES (1, nextval('tenders_search_vocabulary_generation'))",
            ],
            reverse_sql=[
                "DROP TABLE IF EXISTS tenders_search_vocabulary_state",
                "DROP SEQUENCE IF EXISTS tenders_search_vocabulary_generation",
            ],
        ),
    ]
