"""Loads the shipped procurement thesaurus (kernel/vocabulary/data/synonyms.txt) into SynonymGroup.

Later additions to the file reach existing installations with ``manage.py load_synonyms``.
"""

from django.db import migrations


def load(apps, schema_editor):
    from tenders.fulltext import synonym_rewrite_text
    from kernel.vocabulary.synonyms import shipped_thesaurus

    SynonymGroup = apps.get_model("tenders", "SynonymGroup")
    SynonymGroup.objects.bulk_create(
        SynonymGroup(
            words=list(entry.words),
            narrower=list(entry.narrower),
            basis=entry.basis,
            rewrite=synonym_rewrite_text([*entry.words, *entry.narrower]),
        )
        for entry in shipped_thesaurus()
    )


def unload(apps, schema_editor):
    apps.get_model("tenders", "SynonymGroup").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("tenders", "0011_synonym_groups")]

    operations = [migrations.RunPython(load, unload)]
