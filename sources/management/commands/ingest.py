"""manage.py ingest <source-key> --file PATH … | --day D | --from D1 --to D2 (backfill).

Exit status 1 when a run failed or was blocked (after every run is reported), so a cron job
or a script notices; a partial run (some notices refused, each a listed problem) and a run
skipped because the source's previous run is still going exit 0.
"""

from datetime import date, timedelta
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from config.loaded_objects import loaded_objects_freeze
from sources.models import FAILED_RUN_STATUSES, SUCCEEDED_RUN_STATUSES, FetchRunStatus
from sources.registry import get_adapter
from sources.run_summary import field_problems_text
from sources.selectors import source_by_key, source_keys
from sources.services import source_backfill, source_ingest_files, source_poll


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"not a date (YYYY-MM-DD): {value!r}") from exc


class Command(BaseCommand):
    help = "Ingest one source now: from files (no network), one day, or a range of days (backfill)."

    def add_arguments(self, parser):
        parser.add_argument("source_key")
        parser.add_argument("--file", nargs="+", dest="files", help="export zip, folder, XML/JSON, saved page, .eml")
        parser.add_argument("--day", help="one publication day (YYYY-MM-DD)")
        parser.add_argument("--from", dest="day_from")
        parser.add_argument("--to", dest="day_to")

    def handle(self, *args, source_key, files=None, day=None, day_from=None, day_to=None, **options):
        loaded_objects_freeze()  # Django, the apps and the adapters stay loaded: the collector need not walk them
        source = source_by_key(key=source_key)
        if source is None:
            known = ", ".join(source_keys())
            raise CommandError(f"unknown source {source_key!r}; known: {known}")
        if files:
            try:
                note = get_adapter(source.adapter).file_trust_note
            except ValidationError:  # an unknown adapter: the run below fails with the reason
                note = ""
            if note:
                self.stdout.write(self.style.WARNING(f"{source_key}: {note}"))
            runs = [source_ingest_files(source_key=source_key, paths=[Path(f) for f in files]).run]
            self._report(runs[0])
            self._exit_status(runs)
            return
        if day:
            day_from = day_to = day
        if day_from or day_to:
            if not (day_from and day_to):
                raise CommandError("--from and --to go together")
            first, last = _day(day_from), _day(day_to)
            if last < first:
                raise CommandError("--to is before --from")
            days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
            outcomes = source_backfill(
                source_id=source.pk,
                days=tqdm(days, desc=f"{source_key} backfill", unit="day", disable=len(days) == 1),
                on_run=lambda outcome: self._report(outcome.run),
            )
            self._exit_status([outcome.run for outcome in outcomes])
            return
        run = source_poll(source_id=source.pk, trigger="manual").run
        self._report(run)
        self._exit_status([run])

    @staticmethod
    def _exit_status(runs) -> None:
        failed = [run for run in runs if run.status in FAILED_RUN_STATUSES]
        if failed:
            what = "the run" if len(runs) == 1 else f"{len(failed)} of {len(runs)} runs"
            raise CommandError(f"{what} failed (see above; FetchRun {', '.join(str(run.pk) for run in failed)})")

    def _report(self, run):
        line = (
            f"{run.source.key} {run.scope or ''} {run.status}: fetched {run.fetched}, new {run.new}, "
            f"changed {run.changed}, unchanged {run.unchanged}, refused {run.refused}, problems {run.failed}"
        )
        fields = field_problems_text(run.field_problems)
        if fields:
            line += f"; {fields}"
        if run.error:
            line += f" — {run.error_reason}: {run.error}"
        if run.status in SUCCEEDED_RUN_STATUSES:
            style = self.style.SUCCESS
        elif run.status == FetchRunStatus.SKIPPED:
            style = self.style.WARNING
        else:
            style = self.style.ERROR
        self.stdout.write(style(line))
        for problem in run.problems[:20]:
            self.stdout.write(f"  problem: {problem}")
