"""The console's source form shows every settings problem at once, in German."""

from __future__ import annotations

import json

from sources.models import Source


def test_bad_adapter_settings_are_listed_in_german_all_at_once(operator_client):
    settings = {"api_url": "http://api.ted.europa.eu/v3/notices/search", "page_size": 999, "pagesize": 1}
    response = operator_client.post(
        "/admin/sources/source/add/",
        {
            "key": "ted-test",
            "name": "TED",
            "adapter": "ted",
            "settings": json.dumps(settings),
            "is_active": "on",
            "schedule_minutes": "60",
            "politeness_seconds": "2",
            "cursor": "{}",
        },
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "Unbekannte TED-Einstellung(en): pagesize" in page
    assert "api_url muss https verwenden" in page
    assert "page_size muss eine ganze Zahl von 1 bis 250 sein, nicht 999." in page
    assert not Source.objects.filter(key="ted-test").exists()


def test_good_settings_are_saved_normalised(operator_client):
    response = operator_client.post(
        "/admin/sources/source/add/",
        {
            "key": "ted-test",
            "name": "TED",
            "adapter": "ted",
            "settings": json.dumps({"page_size": 50}),
            "is_active": "on",
            "schedule_minutes": "60",
            "politeness_seconds": "2",
            "cursor": "{}",
        },
    )
    assert response.status_code == 302
    assert Source.objects.get(key="ted-test").settings["page_size"] == 50
