"""The import contracts of ``.importlinter`` hold, and each would fail on the violation it names.

``lint-imports`` runs in a subprocess: it builds the import graph from the files (grimp), so it
sees this checkout whatever Django has imported in the test process.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.config.architecture import BASE_DIR
from tests.config.import_contracts import import_cycles, imported_names, orm_uses

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("kernel", "accounts", "config", "notifications", "sources", "tenders")


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(cwd / ".importlinter")],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd), "COLUMNS": "200"},
    )


def _verdicts(stdout: str) -> dict[str, str]:
    """Contract name -> KEPT / BROKEN from lint-imports' summary."""
    verdicts = {}
    for line in stdout.splitlines():
        for verdict in ("KEPT", "BROKEN"):
            marker = f" {verdict}"
            if marker in line and not line.startswith(("-", " ")):
                verdicts[line.split(marker)[0].strip()] = verdict
    return verdicts


def test_every_contract_holds():
    result = _lint(BASE_DIR)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout
    assert len(_verdicts(result.stdout)) >= 16


@pytest.fixture(scope="module")
def broken_checkout(tmp_path_factory) -> subprocess.CompletedProcess:
    """A copy of the code with the violations the contracts exist for put back in, linted once."""
    root = tmp_path_factory.mktemp("checkout")
    ignore = shutil.ignore_patterns("__pycache__", "migrations", "demo_data", "data")
    for package in PACKAGES:
        shutil.copytree(BASE_DIR / package, root / package, ignore=ignore)
    shutil.copy(BASE_DIR / ".importlinter", root / ".importlinter")
    (root / "tests" / "config").mkdir(parents=True)
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "config" / "__init__.py").write_text("")
    shutil.copy(BASE_DIR / "tests/config/import_contracts.py", root / "tests/config/import_contracts.py")

    def append(relative: str, text: str) -> None:
        path = root / relative
        path.write_text(path.read_text(encoding="utf-8") + "\n" + text + "\n", encoding="utf-8")

    # The three broken rules issue 16 found, as they were:
    append("sources/adapters/mail/hosts.py", "def _rows():\n    from sources.models import Source\n    return Source")
    append("tenders/merging/identity.py", "from sources.parsers.eforms import parse_eforms_notice  # noqa")
    append("tenders/services/ingest.py", "def _gate():\n    from sources.models import Source\n    return Source")
    # And one of each other kind:
    append("tenders/selectors.py", "from notifications.models import SavedSearch  # noqa")
    append("kernel/normalise.py", "from django.utils import timezone  # noqa")
    append("sources/adapters/rss/__init__.py", "from django.db import connection  # noqa")
    append("notifications/alerts/rendering.py", "from notifications.models import Delivery  # noqa")
    append(
        "notifications/webhooks/views.py",
        "def _peek():\n    from notifications.models import Webhook\n    return Webhook.objects.all()",
    )
    append("notifications/api/views.py", "from django.db import transaction  # noqa")
    # The kernel imports no app and no Django; the network is used through its public surface;
    # no module imports itself in a circle (the old sources.services <-> sources.tasks hand-off).
    append(
        "kernel/vocabulary/regions.py",
        "def _clean():\n    from sources.selectors import source_keys\n    return source_keys",
    )
    append("kernel/network/client.py", "from django.conf import settings  # noqa")
    append("notifications/webhooks/delivery.py", "from kernel.network.ssrf import check_target  # noqa")
    append(
        "sources/services.py",
        "def _enqueue():\n    from sources.tasks import source_poll_now_task\n    return source_poll_now_task",
    )
    # Layers of the house: a shared app reaching up into the tenant app, a lower app into a higher.
    append("tenders/pagination.py", "def _up():\n    from sources.selectors import source_keys\n    return source_keys")
    # Layers of the tenant wing: an engine reaching up into a feature.
    append("notifications/alerts/composing.py", "from notifications.portal.formatting import filters_summary  # noqa")
    # A new sub-package in the tenant wing that no layer names yet.
    (root / "notifications" / "newsletter").mkdir()
    (root / "notifications" / "newsletter" / "__init__.py").write_text("")
    # A façade: another app reaching into the ingest internals.
    append("notifications/portal/formatting.py", "from tenders.copy_text import copy_text_row  # noqa")
    # Rules that name modules by pattern cover modules written after them: a new views module that
    # no contract lists; and a service importing a task module instead of sending by name.
    (root / "notifications" / "team" / "audit_views.py").write_text(
        "from notifications.models import SavedSearch\n\n\ndef audit(request):\n    return SavedSearch.objects.all()\n"
    )
    append(
        "accounts/services.py",
        "def _kick():\n    from notifications.tasks.alerts import send_due_deliveries_task\n    return send_due_deliveries_task",
    )
    # The other façades: the tenant app reaching into the conditional cache and the platform setup,
    # config's health reading the portal's selectors.
    append("notifications/demo/services.py", "from sources.conditional import ConditionalFetcher  # noqa")
    append("notifications/demo/services.py", "from accounts.platform import platform_init  # noqa")
    append("config/health_checks.py", "from notifications.portal.selectors import saved_search_list  # noqa")
    # Pure cores: a parser reading the database, a parser fetching, filter parsing building queries.
    append(
        "sources/parsers/ted_json.py",
        "def _known():\n    from sources.selectors import source_keys\n    return source_keys",
    )
    append("sources/parsers/eforms/tree.py", "from sources.conditional import ConditionalFetcher  # noqa")
    append("tenders/filters.py", "from django.db.models import Q  # noqa")
    return _lint(root)


@pytest.mark.parametrize(
    "contract",
    [
        "Adapters never touch models, services, selectors or tasks",  # mail/hosts.py read Source
        "Merging and resolution know NoticeRecords, not the parsers or adapters that made them",
        "The tender ingest does not read source configuration (the caller passes what it needs)",
        "The house in layers: config edges > notifications > sources > tenders > accounts > config platform > kernel",
        "Tenant wing in layers: edges > features > engines > outbox, mail route, visibility > models",
        "Other packages use tenders through its public modules (ingest internals, resolution and copy text stay inside)",
        "Work is handed to tasks by Celery task name: no module outside a tasks package imports one",
        "Pure cores (the kernel, parsers, merging, resolution) import no Django, DRF or Celery",
        "Adapters, network and parsers never touch the ORM",
        "Mail rendering and filter parsing (the filter_query builder aside) import no models, services or selectors",
        "Views, API views, tasks and commands reach data only through services and selectors",
        "Views, API views, tasks and commands build no queries and open no transactions",
        "Outbound network is used through its public surface (kernel.network), never a submodule",
        "No module imports itself through others (deferred imports included)",
        "Other packages use sources through its runs, reads, models and the mail verdict",
        "Other packages use accounts through its models, services, selectors, roles, secrets, fan-out, sign-in views "
        "and throttle",
        "config reaches the tenant app only through its operator pages and alert reads",
        "Pure cores outside the kernel import no models, services, selectors, tasks, adapters or registry",
        "Parsers turn bytes into records; they never fetch or know an adapter",
        "Mail rendering and filter parsing use Django's templates and forms, never the ORM",
    ],
)
def test_each_contract_fails_on_its_violation(broken_checkout, contract):
    assert broken_checkout.returncode != 0
    assert _verdicts(broken_checkout.stdout).get(contract) == "BROKEN", broken_checkout.stdout


def test_every_contract_has_a_violation_that_breaks_it():
    """A contract added to .importlinter must come with a violation above that proves it bites."""
    parser = configparser.ConfigParser()
    parser.read(BASE_DIR / ".importlinter", encoding="utf-8")
    names = {parser[section]["name"] for section in parser.sections() if section.startswith("importlinter:contract:")}
    proven = set(test_each_contract_fails_on_its_violation.pytestmark[0].args[1])
    assert names == proven


def test_the_violations_are_named_with_their_lines(broken_checkout):
    out = broken_checkout.stdout
    assert "sources.adapters.mail.hosts -> sources.models" in out
    assert "tenders.merging.identity -> sources.parsers.eforms" in out
    assert "tenders.services.ingest -> sources.models" in out
    assert "sources.adapters.rss:" in out and "from django.db import connection" in out
    assert "notifications.webhooks.views:" in out and ".objects" in out
    assert "kernel.vocabulary.regions -> sources.selectors" in out
    assert "tenders.pagination -> sources.selectors" in out
    assert "notifications.alerts.composing -> notifications.portal.formatting" in out
    assert "newsletter" in out  # exhaustive: the new sub-package has no layer
    assert "notifications.portal.formatting:" in out and "from tenders.copy_text import copy_text_row" in out
    assert "notifications.team.audit_views:" in out  # found by pattern, listed nowhere
    assert "accounts.services -> notifications.tasks.alerts" in out
    assert "notifications.webhooks.delivery -> kernel.network.ssrf" in out
    # The cycle's edges, each named (other edges of the same cycle may sit between them; the report folds long
    # lines, so an edge may be split across two).
    unfolded = " ".join(out.split())
    assert "sources.services -> sources.tasks;" in unfolded and "sources.tasks -> sources.services" in unfolded


def test_an_ignore_that_matches_nothing_fails(tmp_path):
    for package in ("kernel",):
        shutil.copytree(BASE_DIR / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tests" / "config").mkdir(parents=True)
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "config" / "__init__.py").write_text("")
    shutil.copy(BASE_DIR / "tests/config/import_contracts.py", tmp_path / "tests/config/import_contracts.py")
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_packages =\n    kernel\ninclude_external_packages = True\n"
        "contract_types =\n    forbidden_submodules: tests.config.import_contracts.ForbiddenSubmodulesContract\n\n"
        "[importlinter:contract:stale]\nname = Records import no ORM\ntype = forbidden_submodules\n"
        "source_modules =\n    kernel.records\nforbidden_modules =\n    django.db\n"
        "ignore_imports =\n    kernel.records -> django.db.models\n"
    )
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "kernel.records -> django.db.models matches no import any more" in result.stdout


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("from django.db import connection", ["django.db", "django.db.connection"]),
        ("from django import db", ["django", "django.db"]),
        ("import django.db.models as m, os", ["django.db.models", "os"]),
        ("from django.db.models import (", ["django.db.models"]),
        ("from django.utils import timezone  # why", ["django.utils", "django.utils.timezone"]),
        ("x = 1", []),
    ],
)
def test_imported_names(line, names):
    assert imported_names(line) == names


def test_orm_uses_finds_managers_writes_and_transactions():
    source = (
        "from django.db import transaction, connection\n"
        "def view(request, pk):\n"
        "    hook = Webhook.objects.get(pk=pk)\n"
        "    hook.save()\n"
        "    with transaction.atomic():\n"
        "        pass\n"
        "    with connection.cursor() as c:\n"
        "        pass\n"
        "    return connection.schema_name, Model._default_manager\n"
    )
    assert orm_uses(source) == [
        (3, ".objects"),
        (4, ".save()"),
        (5, "transaction.atomic"),
        (7, "connection.cursor"),
        (9, "._default_manager"),
    ]


def test_import_cycles_are_the_modules_that_reach_themselves():
    imports = {
        "a": {"b"},
        "b": {"c", "x"},
        "c": {"a"},  # a -> b -> c -> a
        "x": {"y"},
        "y": set(),  # x and y hang off the cycle, in none
        "p": {"q"},
        "q": {"p"},  # p <-> q, a second one
        "s": {"s"},  # a module importing itself is no cycle between modules
    }
    assert import_cycles(imports) == [["a", "b", "c"], ["p", "q"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def _house_layer_modules() -> set[str]:
    parser = configparser.ConfigParser()
    parser.read(BASE_DIR / ".importlinter", encoding="utf-8")
    layers = parser["importlinter:contract:house-layers"]["layers"]
    return {name.strip(" ()") for line in layers.splitlines() for name in re.split(r"[:|]", line) if name.strip()}


def test_every_config_module_has_a_layer_of_the_house():
    """config holds both the house's edges and its platform; a new config module must say which it is."""
    placed = _house_layer_modules()
    modules = {
        "config." + ".".join(path.relative_to(BASE_DIR / "config").with_suffix("").parts)
        for path in (BASE_DIR / "config").glob("*.py")
        if path.name != "__init__.py"
    } | {"config.settings"}
    assert modules - placed == set()
