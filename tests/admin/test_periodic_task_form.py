"""django-celery-beat's task form under our Content-Security-Policy: no inline script, the crontab help from a file."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django_celery_beat.models import CrontabSchedule

pytestmark = pytest.mark.django_db

PAGES = ("/admin/django_celery_beat/periodictask/add/",)


def _script_tags(html: str) -> list[str]:
    return re.findall(r"<script\b[^>]*>", html)


@pytest.mark.parametrize("path", PAGES)
def test_the_form_has_no_inline_script(operator_client, path):
    CrontabSchedule.objects.create(minute="30", hour="4")
    response = operator_client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    tags = _script_tags(html)
    assert tags, "the admin page loads scripts"
    # A script without src runs inline (blocked by script-src 'self'); JSON data blocks are not run.
    inline = [tag for tag in tags if "src=" not in tag and 'type="application/json"' not in tag]
    assert inline == []
    assert 'id="periodic-task-overrides"' not in html  # the package's inline script is replaced
    assert 'id="readable-crontabs"' in html and "/static/js/admin_periodic_task.js" in html


def test_the_change_page_too(operator_client):
    from django_celery_beat.models import PeriodicTask

    task = PeriodicTask.objects.create(
        name="test: crontab", task="tenders.mark_expired", crontab=CrontabSchedule.objects.create(minute="0")
    )
    html = operator_client.get(f"/admin/django_celery_beat/periodictask/{task.pk}/change/").content.decode()
    assert "/static/js/admin_periodic_task.js" in html and 'id="periodic-task-overrides"' not in html


def test_the_script_is_a_static_file():
    assert finders.find("js/admin_periodic_task.js")
