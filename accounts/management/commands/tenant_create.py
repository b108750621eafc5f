"""manage.py tenant_create --name "Firma GmbH" --schema firma --domain firma.radar.example --admin-email a@firma.example

The first admin chooses a password through a one-time link on the company's host (PORTAL_URL_FORMAT,
https in production), mailed through the platform's EMAIL_URL. The link is a password: it is printed
only with ``--show-secret``, and a mail backend that prints mails (console://) counts as printing it.
When the mail cannot be sent the company is removed again and the command fails (non-zero), so it can
simply be run again once mail works.
"""

from django.conf import settings
from django.core.management.base import CommandError

from accounts.platform import FirstLoginMailFailed, mail_prints_messages, tenant_create_with_admin_link
from accounts.services import tenant_create
from config.edges import ApplicationCommand

NO_LINK_HELP = (
    "Configure EMAIL_URL (smtp://…, see .env.example) and run the command again, or print the link with "
    "--show-secret on a terminal nobody records."
)


class Command(ApplicationCommand):
    help = "Create a tenant: schema, primary domain and first admin (who gets a one-time link to choose a password)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--schema", required=True)
        parser.add_argument("--domain", required=True)
        parser.add_argument("--admin-email", required=True)
        parser.add_argument(
            "--show-secret",
            action="store_true",
            help="print the admin's one-time link here instead of mailing it (it is a password: not in logs)",
        )
        parser.add_argument(
            "--admin-password",
            default=None,
            help="set this password instead of a link (it shows in the process list and shell history; never printed)",
        )

    def handle(self, *args, **options):
        company = {
            "name": options["name"],
            "schema_name": options["schema"],
            "domain": options["domain"],
            "admin_email": options["admin_email"],
        }
        if options["admin_password"]:
            created = tenant_create(**company, admin_password=options["admin_password"])
            self._ready(created, how="with the password given")
            return
        send = not options["show_secret"]
        if send and mail_prints_messages():
            raise CommandError(
                f"EMAIL_URL is console://, which writes mails to this output: the one-time link for "
                f"{company['admin_email']} would be printed, so no company was created. " + NO_LINK_HELP
            )
        try:
            invited = tenant_create_with_admin_link(**company, send=send)  # refusals: ApplicationCommand
        except FirstLoginMailFailed as exc:
            raise CommandError(
                f"Could not mail the one-time link to {exc.recipient} ({exc}); the company "
                f"{company['schema_name']} was removed again. " + NO_LINK_HELP
            ) from exc
        if invited.link:
            self._ready(invited.created, how="through this one-time link (shown because of --show-secret)")
            self.stdout.write(invited.link)
        else:
            self._ready(invited.created, how="through the one-time link mailed to them (not shown here)")

    def _ready(self, created, *, how: str) -> None:
        url = settings.PORTAL_URL_FORMAT.format(domain=created.domain.domain) + "/"
        ready = f"Tenant {created.tenant.name} ready at {url}: admin {created.admin_email} signs in {how}."
        self.stdout.write(self.style.SUCCESS(ready))
