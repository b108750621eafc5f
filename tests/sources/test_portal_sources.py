"""The portal sources from the data migrations: each validates as stored, hosts as the portals serve them."""

from __future__ import annotations

from importlib import import_module

import pytest

from sources.adapters.base import SourceConfig
from sources.models import Source
from sources.registry import get_adapter, validate_source_settings

MORE = import_module("sources.migrations.0007_more_portal_sources").PORTALS


@pytest.mark.parametrize("row", MORE, ids=[row["key"] for row in MORE])
def test_every_added_portal_validates_unchanged_and_may_talk_only_to_its_host(row) -> None:
    settings = validate_source_settings(adapter=row["adapter"], settings=row["settings"])
    assert settings["base_url"] == row["settings"]["base_url"].rstrip("/") + (
        "/" if row["adapter"] == "netserver" else ""
    )
    adapter = get_adapter(row["adapter"])
    host = row["settings"]["base_url"].split("/")[2]
    assert adapter.allowed_hosts(SourceConfig(row["key"], row["adapter"], settings)) == frozenset({host})


def test_the_migration_stored_them_and_moved_dtvp_to_its_center_host(db) -> None:
    keys = set(Source.objects.values_list("key", flat=True))
    assert {row["key"] for row in MORE} <= keys
    assert "vergabe-hessen" in keys
    assert Source.objects.get(key="dtvp").settings == {"base_url": "https://www.dtvp.de/Center"}
    # Hosts as the portals really serve them.
    assert Source.objects.get(key="vergabe-brandenburg").settings["base_url"].startswith("https://www.")
    assert Source.objects.get(key="vergabe-metropoleruhr").settings["base_url"].startswith("https://www.")
