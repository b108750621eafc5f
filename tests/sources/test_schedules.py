import json

import pytest
from django.core.management import call_command
from django_celery_beat.models import PeriodicTask

from sources.models import Source


@pytest.mark.django_db
def test_setup_schedules_writes_one_periodic_task_per_source_idempotently():
    call_command("setup_schedules")
    call_command("setup_schedules")
    tasks = PeriodicTask.objects.filter(task="sources.poll_source")
    assert tasks.count() == Source.objects.count()
    doe = Source.objects.get(key="doe")
    task = tasks.get(name="poll source doe")
    assert json.loads(task.args) == [doe.pk]
    assert task.interval.every == doe.schedule_minutes
    assert PeriodicTask.objects.filter(task="tenders.expire_tenders").count() == 1


@pytest.mark.django_db
def test_inactive_sources_get_a_disabled_schedule():
    Source.objects.filter(key="ted").update(is_active=False)
    call_command("setup_schedules")
    assert PeriodicTask.objects.get(name="poll source ted").enabled is False
    assert PeriodicTask.objects.get(name="poll source doe").enabled is True
