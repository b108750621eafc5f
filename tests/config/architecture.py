"""Checks of the project's architecture, as plain functions so tests can also prove they bite."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]


def local_apps() -> list[str]:
    """Top-level packages of this repository that are Django apps (have apps.py)."""
    return sorted(p.parent.name for p in BASE_DIR.glob("*/apps.py"))


def placement_errors(
    *, shared_apps: list[str], tenant_apps: list[str], both: list[str], local: list[str], installed: list[str]
) -> list[str]:
    errors = []
    for app in local:
        places = (app in shared_apps) + (app in tenant_apps)
        if places != 1:
            errors.append(f"local app {app!r} must be in exactly one of SHARED_APPS/TENANT_APPS, found in {places}")
    for app in installed:
        if app not in shared_apps and app not in tenant_apps:
            errors.append(f"installed app {app!r} is in neither SHARED_APPS nor TENANT_APPS")
    in_both = sorted(set(shared_apps) & set(tenant_apps))
    if in_both != sorted(both):
        errors.append(f"apps in both schemas {in_both} differ from the declared list {sorted(both)}")
    return errors


def _imported_modules(tree: ast.AST) -> Iterable[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call):
            # importlib.import_module("x") and apps.get_model("x.Model") bypass import statements.
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"import_module", "get_model", "__import__"} and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    yield node.lineno, first.value


def forbidden_imports(*, package_dirs: Iterable[Path], forbidden: Iterable[str]) -> list[str]:
    """Every place in ``package_dirs`` that imports one of the ``forbidden`` top-level packages."""
    forbidden = tuple(forbidden)
    hits = []
    for package_dir in package_dirs:
        for path in sorted(package_dir.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for lineno, module in _imported_modules(tree):
                root = module.split(".")[0]
                if root in forbidden:
                    hits.append(f"{path.relative_to(package_dir.parent)}:{lineno} imports {module}")
    return hits
