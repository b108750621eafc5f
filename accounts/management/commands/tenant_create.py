from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.services import tenant_create


class Command(BaseCommand):
    help = "Create a tenant: schema, primary domain and first admin user."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--schema", required=True)
        parser.add_argument("--domain", required=True)
        parser.add_argument("--admin-email", required=True)
        parser.add_argument("--admin-password", default=None, help="generated and printed when omitted")

    def handle(self, *args, **options):
        try:
            created = tenant_create(
                name=options["name"],
                schema_name=options["schema"],
                domain=options["domain"],
                admin_email=options["admin_email"],
                admin_password=options["admin_password"],
            )
        except ValidationError as exc:
            raise CommandError(exc.messages[0]) from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Tenant {created.tenant.name} ready at http://{created.domain.domain}/ — "
                f"admin {created.admin_email} / {created.admin_password}"
            )
        )
