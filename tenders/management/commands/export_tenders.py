import json
from datetime import datetime, time

from django.core.management.base import BaseCommand, CommandError

from kernel.vocabulary.time_zone import BERLIN
from tenders.selectors import tender_export_iter


class Command(BaseCommand):
    help = "Write tenders as JSON Lines to stdout (the partner API's representation)."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["jsonl"], default="jsonl")
        parser.add_argument("--since", help="only tenders seen since this date (YYYY-MM-DD, Europe/Berlin)")

    def handle(self, *args, since=None, **options):
        since_dt = None
        if since:
            try:
                since_dt = datetime.combine(datetime.strptime(since, "%Y-%m-%d").date(), time.min, tzinfo=BERLIN)
            except ValueError as exc:
                raise CommandError(f"--since must be YYYY-MM-DD, got {since!r}") from exc
        for row in tender_export_iter(since=since_dt):
            self.stdout.write(json.dumps(row, ensure_ascii=False))
