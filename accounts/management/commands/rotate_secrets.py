"""manage.py rotate_secrets: re-encrypt every stored secret with the newest key (see accounts.secret_rotation)."""

from django.core.management.base import BaseCommand, CommandError

from accounts.secret_rotation import secrets_rotate
from accounts.secrets import SecretUnreadable


class Command(BaseCommand):
    help = (
        "Re-encrypts every stored secret (SMTP/IMAP passwords, webhook secrets) in the public schema and every "
        "tenant schema with the first key of SECRETS_ENCRYPTION_KEYS. Run after putting a new key first; "
        "remove the old key only afterwards."
    )

    def handle(self, *args, **options):
        try:
            report = secrets_rotate()
        except SecretUnreadable as exc:
            raise CommandError(str(exc)) from exc
        for where in sorted(set(report.rotated) | set(report.current)):
            self.stdout.write(f"{where}: {report.rotated[where]} re-encrypted, {report.current[where]} already current")
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.total_rotated} secret(s) re-encrypted with the newest key in {len(report.schemas)} schema(s)."
            )
        )
