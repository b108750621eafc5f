# Operator-approved forwarding senders per portal family, and the quarantine reason for forged
# Authentication-Results headers (issue 27, F1 c and F2).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("sources", "0010_mailbox_checks_run_per_tenant"),
    ]

    operations = [
        migrations.CreateModel(
            name="ApprovedForwarder",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "family",
                    models.CharField(
                        choices=[
                            ("netserver", "NetServer (Vergabe@Net)"),
                            ("cosinex", "cosinex (z. B. DTVP)"),
                            ("service-bund", "service.bund.de"),
                            ("dtad", "DTAD-artige Dienste"),
                        ],
                        max_length=20,
                        verbose_name="Portalfamilie",
                    ),
                ),
                ("sender_domain", models.CharField(max_length=253, verbose_name="Absender-Domain")),
                ("note", models.TextField(blank=True, default="", verbose_name="Begründung")),
                ("approved_by", models.CharField(max_length=254, verbose_name="Freigabe durch")),
                ("approved_at", models.DateTimeField(verbose_name="Freigabe am")),
            ],
            options={
                "verbose_name": "freigegebener Weiterleitungsabsender",
                "verbose_name_plural": "freigegebene Weiterleitungsabsender",
                "ordering": ["family", "sender_domain"],
                "constraints": [
                    models.UniqueConstraint(fields=("family", "sender_domain"), name="approved_forwarder_unique")
                ],
            },
        ),
        migrations.AlterField(
            model_name="inboundmail",
            name="quarantine_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("sender", "Absender nicht verifiziert"),
                    ("link", "Link auf fremden Server"),
                    ("authres", "Gefälschte Absenderprüfung (Authentication-Results)"),
                ],
                default="",
                max_length=10,
                verbose_name="Quarantänegrund",
            ),
        ),
    ]
