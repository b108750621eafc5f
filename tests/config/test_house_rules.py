"""Rules of docs/architecture.md that no import shows, checked over the source and proven to bite.

- Services are keyword-only: every public function of a services module (``services.py``, a module
  whose name ends in ``services``, or any module of a ``services/`` package) takes its arguments by
  keyword, so a call site names what it passes.
- The CSS selectors of a portal live in one module: ``select``/``select_one`` and ``class_=`` take
  their selector from the portal's ``selectors`` module, never a literal written at the call, so a
  changed portal layout is one edit in one file.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.config.architecture import BASE_DIR

PRODUCT_PACKAGES = ("kernel", "accounts", "config", "sources", "tenders", "notifications")
_SELECTOR_CALLS = {"select", "select_one"}
_FIND_CALLS = {"find", "find_all", "find_parent", "find_parents", "find_next_sibling", "find_next_siblings"}


def _python_files(packages, root: Path = BASE_DIR) -> Iterator[Path]:
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _is_services_module(path: Path) -> bool:
    parts = path.with_suffix("").parts
    return "services" in parts[:-1] or parts[-1].endswith("services")


def positional_services(sources: dict[str, str]) -> list[str]:
    """``where name(args)`` for each public top-level function of a services module that takes positional arguments."""
    found = []
    for where, source in sources.items():
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                args = node.args
                positional = [a.arg for a in (*args.posonlyargs, *args.args)]
                if positional or args.vararg:
                    found.append(f"{where}:{node.lineno} {node.name}({', '.join(positional)})")
    return found


def _literal_text(value: ast.expr) -> bool:
    """A string literal or an f-string: text written into the code, not computed from a name."""
    return isinstance(value, ast.Constant | ast.JoinedStr) and not (
        isinstance(value, ast.Constant) and not isinstance(value.value, str)
    )


def literal_selectors(sources: dict[str, str]) -> list[str]:
    """``where call`` for each CSS selector or class written as a literal outside a ``selectors`` module."""
    found = []
    for where, source in sources.items():
        if Path(where).stem == "selectors":
            continue
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr in _SELECTOR_CALLS and node.args and _literal_text(node.args[0]):
                found.append(f"{where}:{node.lineno} .{node.func.attr}()")
            if node.func.attr in _FIND_CALLS:
                for keyword in node.keywords:
                    if keyword.arg == "class_" and _literal_text(keyword.value):
                        found.append(f"{where}:{node.lineno} .{node.func.attr}(class_=…)")
    return found


def _read(paths) -> dict[str, str]:
    return {str(path.relative_to(BASE_DIR)): path.read_text(encoding="utf-8") for path in paths}


def test_services_are_keyword_only():
    services = _read(p for p in _python_files(PRODUCT_PACKAGES) if _is_services_module(p))
    assert len(services) > 15  # the rule reads the real modules, not an empty set
    assert positional_services(services) == []


def test_a_positional_service_is_found():
    source = "def tender_close(tender_id, *, now):\n    pass\n\ndef _helper(x):\n    pass\n\ndef ok(*, a):\n    pass\n"
    assert positional_services({"tenders/services/close.py": source}) == [
        "tenders/services/close.py:1 tender_close(tender_id)"
    ]
    assert _is_services_module(Path("tenders/services/close.py"))
    assert _is_services_module(Path("notifications/alerts/services.py"))
    assert not _is_services_module(Path("notifications/alerts/selectors.py"))


def test_portal_css_selectors_live_in_their_selectors_module():
    adapters = _read(_python_files(("sources/adapters",)))
    assert any(Path(where).stem == "selectors" for where in adapters)
    assert literal_selectors(adapters) == []


def test_a_literal_selector_outside_the_module_is_found():
    source = (
        "from sources.adapters.netserver import selectors\n"
        "def rows(soup):\n"
        "    soup.select(selectors.RESULT_ROW)\n"  # from the module: fine
        "    soup.select('table.resultTable tr')\n"
        "    soup.select_one(f'div#{x}')\n"
        "    soup.find('div', class_='tenderType')\n"
        "    soup.find_all('tr')\n"  # a tag name is structure, not a selector
    )
    assert literal_selectors({"sources/adapters/netserver/parse.py": source}) == [
        "sources/adapters/netserver/parse.py:4 .select()",
        "sources/adapters/netserver/parse.py:5 .select_one()",
        "sources/adapters/netserver/parse.py:6 .find(class_=…)",
    ]
    assert literal_selectors({"sources/adapters/netserver/selectors.py": source}) == []
