import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from tenders.services.recompile import RecompileProgress, tenders_recompile


class Command(BaseCommand):
    help = (
        "Compile stored tenders again from their stored notice versions (after the compile rules changed: "
        "source precedence, lineage, conflicts, award rows). Safe while the portal runs; tracked changes go "
        "to matching like an ingest's. Rerun or resume with --after-id after an interruption."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=1000)
        parser.add_argument("--after-id", type=int, default=0, help="resume after this tender id")

    def handle(self, *args, batch_size: int, after_id: int, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError("Unapplied migrations: run migrate_schemas first, then recompile_tenders.")
        started = time.monotonic()

        def report(state: RecompileProgress) -> None:
            share = 100 * state.done / state.total if state.total else 100
            rate = state.done / max(time.monotonic() - started, 1e-6)
            self.stdout.write(
                f"{state.done}/{state.total} tenders ({share:.0f} %), {state.updated} updated, "
                f"{state.changed} with tracked changes, {rate:.0f}/s, last id {state.last_id}"
            )

        final = tenders_recompile(batch_size=batch_size, after_id=after_id, progress=report)
        self.stdout.write(
            self.style.SUCCESS(
                f"done: {final.done} tenders looked at, {final.updated} updated, {final.changed} with tracked changes"
            )
        )
