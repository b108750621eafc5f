"""What every adapter inherits: settings validation, the hosts a run may use, reading saved files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from django.core.exceptions import ValidationError
from pydantic import Field

from kernel.network import Fetcher
from sources.adapters.base import (
    SCOPE_MAX,
    Adapter,
    AdapterError,
    FetchedBatch,
    SourceConfig,
    read_saved,
    scope_text,
    walk_files,
)
from sources.adapters.settings import AdapterSettings, TextDigits, Url


class _Plain(Adapter):
    """An adapter without settings of its own (like the mail adapter)."""

    type: ClassVar[str] = "plain"
    label: ClassVar[str] = "Plain"
    known_hosts: ClassVar[tuple[str, ...]] = ("plain.example",)

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        return iter(())

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        return iter(())


ApiUrl = Url()


class _ApiSettings(AdapterSettings):
    api_url: ApiUrl = "https://api.example/v1"
    max_pages: Annotated[int, TextDigits, Field(ge=1, le=9)] = 3


class _Api(_Plain):
    type: ClassVar[str] = "api"
    short_name: ClassVar[str] = "API"
    known_hosts: ClassVar[tuple[str, ...]] = ("api.example", "www.api.example")
    settings_model: ClassVar[type[AdapterSettings]] = _ApiSettings


class _Portal(_Api):
    type: ClassVar[str] = "portal"
    short_name: ClassVar[str] = ""
    url_settings: ClassVar[tuple[str, ...]] = ("api_url",)


def config(settings: Any, key: str = "src") -> SourceConfig:
    return SourceConfig(key=key, adapter="api", settings=settings)


# -- validate_settings --------------------------------------------------------------------------


def test_settings_must_be_an_object() -> None:
    for adapter in (_Plain, _Api):
        with pytest.raises(ValidationError, match="Adapter-Einstellungen müssen ein JSON-Objekt sein"):
            adapter.validate_settings(["api_url"])  # type: ignore[arg-type]


def test_without_a_settings_model_the_settings_are_kept_as_given() -> None:
    assert _Plain.validate_settings({"anything": [1, 2]}) == {"anything": [1, 2]}


def test_defaults_are_filled_in_and_hosts_default_to_the_known_hosts() -> None:
    assert _Api.validate_settings({}) == {"api_url": "https://api.example/v1", "max_pages": 3}
    assert _Api.validate_settings({"api_url": "https://www.api.example/v2"})["api_url"] == "https://www.api.example/v2"
    with pytest.raises(ValidationError, match="Host 'localhost' ist nicht erlaubt; erlaubt: api.example, www.api"):
        _Api.validate_settings({"api_url": "http://localhost:8080/v1"})


def test_allowed_hosts_are_normalised_kept_and_are_the_hosts_urls_may_name() -> None:
    settings = {"api_url": "http://localhost:8080/v1", "allowed_hosts": ["LocalHost"]}
    assert _Api.validate_settings(settings) == {
        "allowed_hosts": ["localhost"],
        "api_url": "http://localhost:8080/v1",
        "max_pages": 3,
    }
    with pytest.raises(ValidationError, match="Host 'api.example' ist nicht erlaubt; erlaubt: localhost"):
        _Api.validate_settings({"allowed_hosts": ["localhost"]})  # the default URL is no longer admitted


def test_every_problem_is_reported_at_once_unknown_keys_first() -> None:
    with pytest.raises(ValidationError) as caught:
        _Api.validate_settings({"api_url": "https://evil.example/", "max_pages": 0, "maxpages": 2, "allowed_hosts": 1})
    assert [message.split(" ")[0] for message in caught.value.messages] == [
        "Unbekannte",
        "allowed_hosts",
        "api_url:",
        "max_pages",
    ]
    assert caught.value.messages[0] == (
        "Unbekannte API-Einstellung(en): maxpages; bekannt: allowed_hosts, api_url, max_pages."
    )


# -- settings_for -------------------------------------------------------------------------------


def test_settings_for_returns_the_validated_settings() -> None:
    assert _Api.settings_for(config({"max_pages": "4"})) == {"api_url": "https://api.example/v1", "max_pages": 4}
    assert _Plain().settings_for(config(None)) == {}


def test_settings_for_fails_the_run_naming_source_adapter_and_every_problem() -> None:
    with pytest.raises(AdapterError) as caught:
        _Api().settings_for(config({"api_url": "https://evil.example/", "max_pages": 10}, key="feed-1"))
    assert caught.value.reason == "invalid_settings"
    assert str(caught.value) == (
        "Source 'feed-1': invalid API settings: api_url: Host 'evil.example' ist nicht erlaubt; erlaubt: "
        "api.example, www.api.example. max_pages muss eine ganze Zahl von 1 bis 9 sein, nicht 10."
    )
    with pytest.raises(AdapterError, match="invalid portal settings"):  # no short name: the type
        _Portal.settings_for(config({"api_url": 1}))


# -- allowed_hosts ------------------------------------------------------------------------------


def test_the_hosts_of_a_run_are_the_allowed_hosts_else_the_known_hosts() -> None:
    assert _Api.allowed_hosts(config({})) == frozenset({"api.example", "www.api.example"})
    assert _Api.allowed_hosts(
        config({"api_url": "https://b.example/", "allowed_hosts": ["A.example", "b.example"]})
    ) == frozenset({"a.example", "b.example"})
    assert _Plain.allowed_hosts(config({"allowed_hosts": ["x.example"]})) == frozenset({"x.example"})
    assert _Plain.allowed_hosts(config({})) == frozenset({"plain.example"})


def test_settings_that_do_not_validate_allow_no_host() -> None:
    assert _Api.allowed_hosts(config({"api_url": "https://evil.example/", "allowed_hosts": ["api.example"]})) == (
        frozenset()
    )
    assert _Api.allowed_hosts(config({"typo": 1})) == frozenset()
    assert _Plain.allowed_hosts(config(["not", "an", "object"])) == frozenset()


def test_url_settings_narrow_the_hosts_to_those_the_urls_name() -> None:
    assert _Portal.allowed_hosts(config({"api_url": "https://www.api.example/v2"})) == frozenset({"www.api.example"})
    settings = {"api_url": "https://b.example/", "allowed_hosts": ["a.example", "b.example"]}
    assert _Portal.allowed_hosts(config(settings)) == frozenset({"b.example"})


# -- saved material -----------------------------------------------------------------------------


def test_scope_text_keeps_short_scopes_and_cuts_long_ones_to_the_column() -> None:
    assert scope_text("2026-07-01") == "2026-07-01"
    assert scope_text("x" * SCOPE_MAX) == "x" * SCOPE_MAX
    cut = scope_text("x" * (SCOPE_MAX + 1))
    assert len(cut) == SCOPE_MAX and cut.endswith("x…")


def test_read_saved_reads_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"12345")
    assert read_saved(path, limit=5) == read_saved(path, limit=5, label="x")
    saved = read_saved(path, limit=5)
    assert (saved.data, saved.size, saved.problem) == (b"12345", 5, "")


def test_read_saved_refuses_larger_files_and_counts_what_it_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.html"
    path.write_bytes(b"x" * 100)
    saved = read_saved(path, limit=10, label="export/huge.html")
    assert (saved.data, saved.size) == (b"", 11)
    assert saved.problem == "export/huge.html: larger than 10 bytes; skipped"


def test_read_saved_reports_unreadable_files(tmp_path: Path) -> None:
    saved = read_saved(tmp_path / "gone.xml", limit=10)
    assert (saved.data, saved.size) == (b"", 0)
    assert saved.problem == f"{tmp_path / 'gone.xml'}: cannot read file: No such file or directory"
    assert read_saved(tmp_path, limit=10).problem.startswith(f"{tmp_path}: cannot read file: ")  # a folder


def test_walk_files_order_suffixes_hidden_entries_and_plain_paths(tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    for name in ("b.XML", "a.xml", "notes.txt", ".hidden.xml", "sub/c.json", "sub/z/d.xml", ".git/e.xml"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "linked.xml").write_text("x")
    os.symlink(elsewhere, folder / "link")
    missing = tmp_path / "missing.txt"
    found = list(walk_files([str(folder), missing], (".xml", ".json")))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "saved/a.xml",
        "saved/b.XML",
        "saved/sub/c.json",
        "saved/sub/z/d.xml",
        "missing.txt",  # named explicitly: kept, so it is reported instead of skipped silently
    ]
