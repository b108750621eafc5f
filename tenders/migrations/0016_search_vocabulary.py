"""The words of tender titles for "Meinten Sie …" (tenders.suggestions): pg_trgm and a materialised word list."""

from django.db import migrations

# The words of the newest 200,000 titles (what a bid manager searches, and a bound on the refresh),
# lower case and not stemmed ("simple"), four to forty letters: shorter ones are abbreviations and
# codes, longer ones pasted strings.
VOCABULARY_SQL = """
SELECT word, ndoc AS tenders FROM ts_stat(
    'SELECT to_tsvector(''simple'', title) FROM (
        SELECT title FROM tenders_tender ORDER BY published_at DESC NULLS LAST, id DESC LIMIT 200000
    ) AS newest'
) WHERE length(word) BETWEEN 4 AND 40 AND word !~ '[^[:alpha:]]'
"""


class Migration(migrations.Migration):
    dependencies = [
        ("tenders", "0015_nuts_without_postcode_index"),
    ]

    operations = [
        migrations.RunSQL(
            [
                # pg_trgm where the server has it (PostgreSQL's contrib, on every packaged server); the
                # embedded server of a first run has no contrib, and tenders.suggestions then computes the
                # same trigram similarity itself.
                "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') "
                "THEN CREATE EXTENSION IF NOT EXISTS pg_trgm; END IF; END $$",
                f"CREATE MATERIALIZED VIEW tenders_search_vocabulary AS {VOCABULARY_SQL}",
                # REFRESH … CONCURRENTLY (searches read the old list meanwhile) needs a unique index.
                "CREATE UNIQUE INDEX tenders_search_vocabulary_word ON tenders_search_vocabulary (word)",
                "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN "
                "CREATE INDEX tenders_search_vocabulary_trgm ON tenders_search_vocabulary "
                "USING gin (word gin_trgm_ops); "
                "END IF; END $$",
            ],
            reverse_sql=["DROP MATERIALIZED VIEW IF EXISTS tenders_search_vocabulary"],
        ),
    ]
