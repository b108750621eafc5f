"""The calendar token is stored as its SHA-256 only; existing links keep working (their hash is kept)."""

import hashlib

from django.db import migrations, models


def hash_existing_tokens(apps, schema_editor):
    UserPreference = apps.get_model("notifications", "UserPreference")
    for preference in UserPreference.objects.exclude(calendar_token="").only("pk", "calendar_token").iterator():
        digest = hashlib.sha256(preference.calendar_token.encode("utf-8")).hexdigest()
        UserPreference.objects.filter(pk=preference.pk).update(calendar_token_hash=digest)


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0004_mailbox_mail_trust"),
    ]

    operations = [
        migrations.AddField(
            model_name="userpreference",
            name="calendar_token_hash",
            field=models.CharField(blank=True, default=None, max_length=64, null=True, unique=True),
        ),
        migrations.RunPython(hash_existing_tokens, migrations.RunPython.noop),
        migrations.RemoveField(model_name="userpreference", name="calendar_token"),
    ]
