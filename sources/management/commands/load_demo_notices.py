from pathlib import Path

from django.core.management.base import BaseCommand

from sources.services import source_ingest_files

DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
DEMO_FILES = {
    "doe": ["2026-09-14_ocds.zip", "2026-09-14_eforms.zip"],
    "ted": ["ted_search_2026-07.json"],
}


class Command(BaseCommand):
    help = "Load the real sample notices shipped with the project (idempotent)."

    def handle(self, *args, **options):
        for source_key, names in DEMO_FILES.items():
            run = source_ingest_files(source_key=source_key, paths=[DEMO_DATA / name for name in names]).run
            self.stdout.write(
                f"{source_key}: {run.status}, {run.fetched} notices ({run.new} new, {run.unchanged} unchanged)"
                + (f" — {run.error}" if run.error else "")
            )
