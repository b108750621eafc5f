import json

from django.core.management.base import CommandError
from django.utils import timezone

from config.edges import ApplicationCommand
from tenders.filters import parse_filters
from tenders.search import tender_search


class Command(ApplicationCommand):
    help = 'Print the tenders the portal finds for a query, best first: manage.py search "Reinigung Berlin".'

    def add_arguments(self, parser):
        parser.add_argument("query")
        parser.add_argument("--limit", type=int, default=20)
        parser.add_argument("--format", choices=["text", "jsonl"], default="text")

    def handle(self, *args, query: str, limit: int, format: str, **options):
        if limit < 1:
            raise CommandError("--limit must be at least 1")
        filters = parse_filters({"q": [query]})  # FilterError ends as CommandError (ApplicationCommand)
        results = tender_search(filters=filters, order="relevance", now=timezone.now())
        for tender in results.only("id", "title")[:limit]:
            rank = round(float(getattr(tender, "rank", 0.0)), 6)
            if format == "jsonl":
                row = {"id": tender.id, "title": tender.title, "rank": rank}
                self.stdout.write(json.dumps(row, ensure_ascii=False))
            else:
                self.stdout.write(f"{tender.id}\t{rank:.6f}\t{tender.title}")
