"""Each shared word is defined once, in ``kernel.vocabulary``, and imported from there only.

A second ``TenderStatus`` or ``BERLIN`` could drift from the first without any test noticing
(``kernel.records`` and ``tenders.models`` once both defined the statuses); a re-export would
keep the old home alive. The check is a plain function so the tests below can show it bites.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kernel.vocabulary.statuses import TenderStatus
from tenders.models import TENDER_STATUS_LABELS, Tender
from tests.config.architecture import BASE_DIR

HOMES = {
    "BERLIN": "kernel.vocabulary.time_zone",
    "TenderStatus": "kernel.vocabulary.statuses",
    "PROCEDURE_TYPES": "kernel.vocabulary.procedures",
    "procedure_type_code": "kernel.vocabulary.procedures",
    "procedure_type_label": "kernel.vocabulary.procedures",
    "BUNDESLAENDER": "kernel.vocabulary.regions",
    "LAND_NAMES": "kernel.vocabulary.regions",
    "bundesland_for_nuts": "kernel.vocabulary.regions",
    "normalise_nuts": "kernel.vocabulary.regions",
    "nuts_codes_from": "kernel.vocabulary.regions",
    "normalise_cpv": "kernel.vocabulary.cpv",
    "unique_cpv": "kernel.vocabulary.cpv",
    "typed_fold": "kernel.vocabulary.folding",
}
PACKAGES = ("kernel", "accounts", "config", "notifications", "sources", "tenders", "bench", "tests")


def _defined_names(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            found.append((node.lineno, node.name))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.extend((node.lineno, t.id) for t in targets if isinstance(t, ast.Name))
    return found


_ZONE_FACTORIES = {"ZoneInfo", "timezone", "gettz"}  # zoneinfo, pytz, dateutil


def _berlin_zones(tree: ast.Module) -> list[int]:
    """Lines that build a Europe/Berlin zone object (naming the zone in a text, as iCal does, is fine)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) in _ZONE_FACTORIES
        and any(isinstance(a, ast.Constant) and a.value == "Europe/Berlin" for a in node.args)
    ]


def home_errors(modules: dict[str, str]) -> list[str]:
    """Definitions of a shared name outside its home, imports of it from elsewhere, other Berlin zones."""
    errors = []
    for module, source in modules.items():
        tree = ast.parse(source)
        for line, name in _defined_names(tree):
            if name in HOMES and HOMES[name] != module:
                errors.append(f"{module}:{line} defines {name} (its home is {HOMES[name]})")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name in HOMES and node.module != HOMES[alias.name]:
                        errors.append(f"{module}:{node.lineno} imports {alias.name} from {node.module}")
        if module != HOMES["BERLIN"]:
            errors.extend(f"{module}:{line} builds its own Europe/Berlin zone" for line in _berlin_zones(tree))
    return errors


def _modules() -> dict[str, str]:
    found = {}
    for package in PACKAGES:
        for path in sorted((BASE_DIR / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            relative = path.relative_to(BASE_DIR).with_suffix("")
            parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
            found[".".join(parts)] = path.read_text(encoding="utf-8")
    return found


def test_every_shared_name_has_one_home():
    modules = _modules()
    assert "kernel.vocabulary.statuses" in modules and "kernel.normalise" in modules
    this = Path(__file__).relative_to(BASE_DIR).with_suffix("")
    modules.pop(".".join(this.parts))  # this file names the old homes in its own examples
    assert home_errors(modules) == []


@pytest.mark.parametrize(
    ("module", "source", "error"),
    [
        (
            "kernel.records",
            "from enum import StrEnum\nclass TenderStatus(StrEnum):\n    ACTIVE = 'active'\n",
            "kernel.records:2 defines TenderStatus (its home is kernel.vocabulary.statuses)",
        ),
        (
            "notifications.api.views",
            "from kernel.normalise import BERLIN\n",
            "notifications.api.views:1 imports BERLIN from kernel.normalise",
        ),
        (
            "kernel.normalise",
            "import zoneinfo\nNAME = 'Europe/Berlin'\nTZ = zoneinfo.ZoneInfo('Europe/Berlin')\n",
            "kernel.normalise:3 builds its own Europe/Berlin zone",
        ),
        (
            "tenders.cpv",
            "from kernel.vocabulary.cpv import normalise_cpv  # a shim may read the home\n"
            "from tenders.cpv import unique_cpv  # but nothing may read the shim\n",
            "tenders.cpv:2 imports unique_cpv from tenders.cpv",
        ),
    ],
)
def test_a_second_home_is_named(module, source, error):
    assert home_errors({module: source}) == [error]


def test_the_tender_model_stores_the_vocabularys_statuses():
    field = Tender._meta.get_field("status")
    assert [value for value, _label in field.choices] == [status.value for status in TenderStatus]
    assert field.default == TenderStatus.ACTIVE
    assert set(TENDER_STATUS_LABELS) == set(TenderStatus)
