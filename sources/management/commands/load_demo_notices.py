from django.core.management.base import BaseCommand

from sources.demo import demo_sample_load
from sources.selectors import fetch_runs_by_ids


class Command(BaseCommand):
    help = "Load the real sample notices shipped with the project (idempotent)."

    def handle(self, *args, **options):
        load = demo_sample_load()
        for run in fetch_runs_by_ids(ids=load.run_ids):
            self.stdout.write(
                f"{run.source.key} {run.scope}: {run.status}, {run.fetched} notices "
                f"({run.new} new, {run.unchanged} unchanged)" + (f" — {run.error}" if run.error else "")
            )
        self.stdout.write(f"{len(load.tender_ids)} tenders in the sample (newest notice {load.sample_day}).")
