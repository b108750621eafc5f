"""The lock files pin, with hashes, every dependency pyproject.toml declares, at a version it allows.

CI (``.ci/run``) and the Dockerfile install from them with ``--require-hashes``; a dependency
added to pyproject.toml without relocking would otherwise be installed unpinned.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.config.architecture import BASE_DIR

_PIN = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$", re.MULTILINE
)
_HASHED_PIN = re.compile(r"^[A-Za-z0-9][^\n]*==[^\n]*\\\n(?:\s+--hash=sha256:[0-9a-f]{64}[^\n]*\n)+", re.MULTILINE)


def _declared(extra: str | None) -> list[Requirement]:
    project = tomllib.loads((BASE_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = list(project["dependencies"])
    if extra:
        declared += project["optional-dependencies"][extra]
    return [Requirement(line) for line in declared]


def _pins(text: str) -> dict[str, list[Version]]:
    pins: dict[str, list[Version]] = {}
    for name, version, _marker in _PIN.findall(text):
        pins.setdefault(canonicalize_name(name), []).append(Version(version))
    return pins


@pytest.mark.parametrize(("lock", "extra"), [("requirements.lock", None), ("requirements-dev.lock", "dev")])
def test_lock_pins_every_declared_dependency_within_its_range(lock, extra):
    text = (BASE_DIR / lock).read_text(encoding="utf-8")
    pins = _pins(text)
    command = text.splitlines()[1].lstrip("# ").strip()
    problems = []
    for requirement in _declared(extra):
        versions = pins.get(canonicalize_name(requirement.name))
        if not versions:
            problems.append(f"{requirement.name} is not in {lock}")
        elif not any(requirement.specifier.contains(version, prereleases=True) for version in versions):
            problems.append(f"{requirement.name} {versions} does not satisfy {requirement.specifier}")
    assert problems == [], f"relock (pip install uv; {command}): {problems}"


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_every_pin_carries_hashes(lock):
    text = (BASE_DIR / lock).read_text(encoding="utf-8")
    assert len(_HASHED_PIN.findall(text)) == len(_PIN.findall(text)) > 0


def test_the_check_catches_a_missing_and_an_out_of_range_pin():
    pins = _pins("django==5.1.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    requirement = Requirement("Django>=5.2,<5.3")
    assert not any(requirement.specifier.contains(v) for v in pins["django"])
    assert "icalendar" not in pins
