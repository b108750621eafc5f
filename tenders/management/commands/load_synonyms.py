from pathlib import Path

from django.core.management.base import CommandError

from config.edges import ApplicationCommand
from kernel.vocabulary.synonyms import THESAURUS_PATH, parse_thesaurus
from tenders.services.synonyms import synonyms_load


class Command(ApplicationCommand):
    help = (
        "Add the groups of the procurement thesaurus (default: the shipped file) whose words are not "
        "in any group yet; groups operators edited stay as they are."
    )

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=THESAURUS_PATH)

    def handle(self, *args, file: Path, **options):
        try:
            entries = parse_thesaurus(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{file}: {exc}") from exc
        added, skipped = synonyms_load(entries=entries)
        self.stdout.write(f"{added} groups added, {len(skipped)} already present")
