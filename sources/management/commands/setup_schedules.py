from django.core.management.base import BaseCommand

from sources.schedules import schedules_sync


class Command(BaseCommand):
    help = "Write the Celery beat schedules (one per Source and the platform's periodic jobs)."

    def handle(self, *args, **options):
        result = schedules_sync()
        self.stdout.write(self.style.SUCCESS(f"{result['written']} schedules written, {result['disabled']} disabled"))
