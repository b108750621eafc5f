

from accounts.services import tenant_create
from config.edges import ApplicationCommand


class Command(ApplicationCommand):
    help = "Create a tenant: schema, primary domain and first admin user."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--schema", required=True)
        parser.add_argument("--domain", required=True)
        parser.add_argument("--admin-email", required=True)
        parser.add_argument("--admin-password", default=None, help="generated and printed when omitted")

    def handle(self, *args, **options):
        created = tenant_create(  # a refusal ends as CommandError (ApplicationCommand)
            name=options["name"],
            schema_name=options["schema"],
            domain=options["domain"],
            admin_email=options["admin_email"],
            admin_password=options["admin_password"],
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Tenant {created.tenant.name} ready at http://{created.domain.domain}/ — "
                f"admin {created.admin_email} / {created.admin_password}"
            )
        )
