"""How product code hands work to workers, read from the source (AST): one way, by name.

- Messages are published (``send_task``, ``apply_async``, ``delay``) only by the one enqueue module
  (``config/enqueue.py``) and by the tasks themselves (``notifications/tasks/``, ``sources/tasks.py``,
  ``tenders/tasks.py``: a task continuing with its next slice).
- No module outside those task packages imports a tasks module: services name the task instead.
- The enqueue and task-policy modules are the platform layer: they import no app.
- One constant says how many tenant schemas one statement reads (``accounts.selectors``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("accounts", "config", "kernel", "notifications", "sources", "tenders")
APPS = ("accounts", "notifications", "sources", "tenders")
ENQUEUE_MODULE = "config/enqueue.py"
# config/tasks.py: the health snapshot reads every app, which only config's top layer may import.
TASK_PACKAGES = ("notifications/tasks/", "sources/tasks.py", "tenders/tasks.py", "config/tasks.py")
TASK_MODULES = ("notifications.tasks", "sources.tasks", "tenders.tasks", "config.tasks")
PUBLISHING = {"send_task", "apply_async", "delay", "delay_on_commit", "apply_async_on_commit"}


def _product_files() -> list[Path]:
    return sorted(
        path
        for package in PRODUCT
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _in_task_package(relative: str) -> bool:
    return relative.startswith(TASK_PACKAGES)


def publishing_calls(source: str) -> list[str]:
    """``receiver.method(...)`` calls that publish a task message."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in PUBLISHING:
            continue
        receiver = ast.unparse(node.func.value)
        found.append(f"{receiver}.{node.func.attr}() line {node.lineno}")
    return found


def imported_modules(source: str) -> list[str]:
    """Every module an ``import`` names, at the top or inside a function (``from a import b`` gives a and a.b)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _is_task_module(name: str) -> bool:
    return any(name == module or name.startswith(module + ".") for module in TASK_MODULES)


def test_the_detectors_see_what_they_must_and_only_that():
    sneaky = """
from config.celery import app
def kick():
    from notifications.tasks.webhooks import send_due_webhooks_task
    send_due_webhooks_task.delay()
    app.send_task("x")
    app.tasks["y"].apply_async(countdown=3)
    send_due_webhooks_task.delay_on_commit()
wait = policy.backoff.wait_seconds(3) + mail_backoff().wait_seconds(2)
"""
    assert [call.split("(")[0] for call in publishing_calls(sneaky)] == [
        "send_due_webhooks_task.delay",
        "app.send_task",
        "app.tasks['y'].apply_async",
        "send_due_webhooks_task.delay_on_commit",
    ]
    assert any(_is_task_module(name) for name in imported_modules(sneaky))
    assert any(_is_task_module(name) for name in imported_modules("from notifications import tasks"))
    assert not any(_is_task_module(name) for name in imported_modules("from notifications import tasks_helpers"))


def test_only_the_enqueue_module_and_the_tasks_publish_task_messages():
    offenders = {
        _relative(path): calls
        for path in _product_files()
        if _relative(path) != ENQUEUE_MODULE and not _in_task_package(_relative(path))
        for calls in [publishing_calls(path.read_text(encoding="utf-8"))]
        if calls
    }
    assert offenders == {}, "hand work to a worker with config.enqueue.enqueue_on_commit(task_name, ...)"


def test_the_enqueue_module_publishes_and_so_does_a_task_continuing_its_work():
    # The rule above is only as good as its allow-list: both allowed places still publish.
    assert publishing_calls((ROOT / ENQUEUE_MODULE).read_text(encoding="utf-8"))
    assert publishing_calls((ROOT / "notifications/tasks/alerts.py").read_text(encoding="utf-8"))


def test_no_module_outside_the_task_packages_imports_a_tasks_module():
    offenders = {
        _relative(path): hits
        for path in _product_files()
        if not _in_task_package(_relative(path))
        for hits in [[name for name in imported_modules(path.read_text(encoding="utf-8")) if _is_task_module(name)]]
        if hits
    }
    assert offenders == {}, "address the task by its name (a constant next to the service), not by importing it"


@pytest.mark.parametrize("module", [ENQUEUE_MODULE, "config/task_policy.py"])
def test_the_platform_layer_imports_no_app(module):
    names = imported_modules((ROOT / module).read_text(encoding="utf-8"))
    assert [name for name in names if name.split(".")[0] in APPS] == []


def test_no_private_schema_check_is_left():
    assert [_relative(path) for path in _product_files() if "_in_tenant" in path.read_text(encoding="utf-8")] == []


def test_one_constant_says_how_many_tenant_schemas_one_statement_reads():
    owners = []
    for path in _product_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                owners.extend(
                    f"{_relative(path)}:{target.id}"
                    for target in targets
                    if isinstance(target, ast.Name) and "SCHEMAS_PER" in target.id
                )
    assert owners == ["accounts/selectors.py:TENANT_SCHEMAS_PER_STATEMENT"]
