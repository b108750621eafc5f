# Forwarding rules become a pick from operator-approved forwarding senders (issue 27, F1 c).

from django.db import migrations, models


def keep_approved_rules_only(apps, schema_editor):
    """A free-text rule survives only where an operator approved exactly that domain (for any family it is
    approved for); every other rule is dropped. The approved list is new, so on an installation without
    approvals every rule is dropped and the tenant admin picks again once the operator has approved."""
    approved = apps.get_model("sources", "ApprovedForwarder")
    keys_by_domain: dict[str, list[str]] = {}
    for family, domain in approved.objects.values_list("family", "sender_domain"):
        keys_by_domain.setdefault(domain.strip().rstrip(".").lower(), []).append(f"{family}:{domain}")
    mailbox = apps.get_model("notifications", "MailboxSettings")
    for row in mailbox.objects.all():
        domains = [line.strip().rstrip(".").lower() for line in (row.forwarded_domains or "").splitlines()]
        keys = [key for domain in domains if domain for key in keys_by_domain.get(domain, [])]
        row.forwarders = list(dict.fromkeys(keys))
        row.save(update_fields=["forwarders"])


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0007_smtp_and_mailbox_settings_one_per_tenant"),
        ("sources", "0011_approved_forwarder_and_forged_results"),
    ]

    operations = [
        migrations.AddField(
            model_name="mailboxsettings",
            name="forwarders",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(keep_approved_rules_only, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="mailboxsettings",
            name="forwarded_domains",
        ),
    ]
