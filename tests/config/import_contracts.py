"""Contract types import-linter lacks, used by ``.importlinter`` at the repository root.

import-linter's graph keeps external packages only at their top level (``django``, never
``django.db``), so "imports no ORM" cannot be written as a plain ``forbidden`` contract for
modules that may use other parts of Django (templates, translation, exceptions).
``forbidden_submodules`` reads the import lines grimp records and forbids submodules of an
external package. ``no_manager_access`` reads the source of edge modules for ORM use that no
import shows (``Model.objects``, ``.save()``, ``transaction``): an edge may name a model for
its exception or choices, but reads go through selectors and writes through services.
``facade`` lets other packages import only a package's public modules, so a new module is private
until it is named; ``acyclic_modules`` finds import cycles between modules.

Module names in ``source_modules`` may be patterns, so a contract covers modules written after it:
``*`` is one dotted segment, ``**`` one or more, and a segment may hold shell wildcards
(``**.*_views`` is every module whose last segment ends in ``_views``).
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import re
from pathlib import Path

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output

_IMPORT_LINE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+(.+)|import\s+(.+))$")


def imported_names(line: str) -> list[str]:
    """Dotted names an import line brings in: ``from django import db`` -> ["django", "django.db"]."""
    match = _IMPORT_LINE.match(line.split("#", 1)[0].rstrip())
    if not match:
        return []
    module, names, plain = match.groups()
    if plain is not None:
        return [part.split(" as ")[0].strip() for part in plain.split(",") if part.strip()]
    listed = [part.split(" as ")[0].strip(" ()\\") for part in names.split(",")]
    return [module, *(f"{module}.{name}" for name in listed if name and name != "*")]


def _within(name: str, parents: list[str]) -> bool:
    return any(name == parent or name.startswith(parent + ".") for parent in parents)


def _segments_match(pattern: list[str], name: list[str]) -> bool:
    if not pattern:
        return not name
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_segments_match(rest, name[i:]) for i in range(1, len(name) + 1))
    return bool(name) and fnmatch.fnmatchcase(name[0], head) and _segments_match(rest, name[1:])


def module_matches(pattern: str, module: str) -> bool:
    """``pattern`` (dotted, with ``*``/``**`` segments and shell wildcards inside a segment) names ``module``."""
    return _segments_match(pattern.split("."), module.split("."))


def expand_modules(graph: ImportGraph, patterns: list[str], contract: str) -> list[str]:
    """The modules of ``graph`` each pattern names; a plain name must exist, a pattern may match none yet."""
    found: set[str] = set()
    for pattern in patterns:
        if "*" not in pattern:
            if pattern not in graph.modules:
                raise ValueError(f"{contract}: module {pattern!r} does not exist")
            found.add(pattern)
            continue
        found |= {m for m in graph.modules if module_matches(pattern, m)}
    return sorted(found)


def _render(hits: list[dict]) -> None:
    for hit in hits:
        output.print_error(f"- {hit['where']}: {hit['line']}", bold=False)
    output.new_line()


class ForbiddenSubmodulesContract(Contract):
    """``source_modules`` (and their descendants) do not import ``forbidden_modules`` (dotted, external).

    ``ignore_imports`` lists ``importer -> forbidden.module`` pairs that are known and scheduled
    to go; an ignore that no longer matches anything fails the contract, so it cannot linger.
    """

    source_modules = fields.ListField(subfield=fields.StringField())
    forbidden_modules = fields.ListField(subfield=fields.StringField())
    ignore_imports = fields.ListField(subfield=fields.StringField(), required=False, default=[])

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        roots = {name.split(".")[0] for name in self.forbidden_modules}
        ignores = {tuple(part.strip() for part in entry.split("->")) for entry in self.ignore_imports}
        used_ignores: set[tuple[str, ...]] = set()
        hits = []
        for source in expand_modules(graph, self.source_modules, self.name):
            for importer in sorted({source, *graph.find_descendants(source)}):
                for root in sorted(roots & graph.find_modules_directly_imported_by(importer)):
                    for detail in graph.get_import_details(importer=importer, imported=root):
                        bad = [n for n in imported_names(detail["line_contents"]) if _within(n, self.forbidden_modules)]
                        if not bad:
                            continue
                        matched = {i for i in ignores if i[0] == importer and any(_within(n, [i[1]]) for n in bad)}
                        if matched:
                            used_ignores |= matched
                            continue
                        hits.append({"where": f"{importer}:{detail['line_number']}", "line": detail["line_contents"]})
        stale = sorted(" -> ".join(i) for i in ignores - used_ignores)
        hits.extend({"where": "ignore_imports", "line": f"{entry} matches no import any more"} for entry in stale)
        return ContractCheck(kept=not hits, metadata={"hits": hits}, ignored_import_count=len(used_ignores))

    def render_broken_contract(self, check: ContractCheck) -> None:
        _render(check.metadata["hits"])


def _module_path(module: str) -> Path | None:
    """The source file of ``module`` without importing it (importing would need Django settings)."""
    root, *rest = module.split(".")
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


_MANAGERS = {"objects", "_default_manager", "_base_manager"}
_WRITES = {"save", "bulk_create", "bulk_update", "update_or_create", "get_or_create"}


def orm_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for every manager access, model write method or transaction/cursor use in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            if node.attr in _MANAGERS:
                found.append((node.lineno, f".{node.attr}"))
            elif isinstance(node.value, ast.Name) and node.value.id == "transaction":
                found.append((node.lineno, f"transaction.{node.attr}"))
            elif node.attr == "cursor" and isinstance(node.value, ast.Name) and node.value.id == "connection":
                found.append((node.lineno, "connection.cursor"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _WRITES:
            found.append((node.lineno, f".{node.func.attr}()"))
    return sorted(set(found))


class NoManagerAccessContract(Contract):
    """``source_modules`` (edges) reach data only through selectors and services: no ORM in their code.

    ``allowed`` lists ``module: what`` pairs (``what`` as reported, e.g. ``.objects``) that are
    known and scheduled to go; a stale one fails the contract.
    """

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed = fields.ListField(subfield=fields.StringField(), required=False, default=[])

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        allowed = {tuple(part.strip() for part in entry.split(":", 1)) for entry in self.allowed}
        used: set[tuple[str, ...]] = set()
        hits = []
        for source in expand_modules(graph, self.source_modules, self.name):
            for module in sorted({source, *graph.find_descendants(source)}):
                path = _module_path(module)
                if path is None:
                    continue
                uses = orm_uses(path.read_text(encoding="utf-8"))
                for line_number, what in uses:
                    if (module, what) in allowed:
                        used.add((module, what))
                        continue
                    hits.append({"where": f"{module}:{line_number}", "line": what})
        stale = sorted(": ".join(entry) for entry in allowed - used)
        hits.extend({"where": "allowed", "line": f"{entry} matches nothing any more"} for entry in stale)
        return ContractCheck(kept=not hits, metadata={"hits": hits}, ignored_import_count=len(used))

    def render_broken_contract(self, check: ContractCheck) -> None:
        _render(check.metadata["hits"])


class FacadeContract(Contract):
    """Modules outside ``package`` import only its ``public_modules`` (and their descendants).

    Forbid by default, allow the façade: a module added to the package is private until the
    contract names it, so other apps cannot grow a dependency on its internals unnoticed.
    """

    package = fields.StringField()
    public_modules = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        if self.package not in graph.modules:
            raise ValueError(f"{self.name}: package {self.package!r} does not exist")
        public = expand_modules(graph, self.public_modules, self.name)
        inside = {self.package, *graph.find_descendants(self.package)}
        hits = []
        for imported in sorted(inside):
            if _within(imported, public):
                continue
            for importer in sorted(graph.find_modules_that_directly_import(imported) - inside):
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    hits.append({"where": f"{importer}:{detail['line_number']}", "line": detail["line_contents"]})
        return ContractCheck(kept=not hits, metadata={"hits": hits})

    def render_broken_contract(self, check: ContractCheck) -> None:
        _render(check.metadata["hits"])


def import_cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


class AcyclicModulesContract(Contract):
    """No module of ``packages`` reaches itself through imports, deferred imports inside functions included.

    import-linter's ``acyclic_siblings`` compares whole packages; this compares modules, the level at
    which a cycle breaks an import order (``sources.services`` <-> ``sources.tasks`` was one).
    """

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        modules = {m for m in graph.modules if _within(m, self.packages)}
        imports = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in modules} for m in modules}
        hits = []
        for cycle in import_cycles(imports):
            members = set(cycle)
            edges = sorted(f"{a} -> {b}" for a in cycle for b in imports[a] if b in members)
            hits.append({"where": "cycle", "line": "; ".join(edges)})
        return ContractCheck(kept=not hits, metadata={"hits": hits})

    def render_broken_contract(self, check: ContractCheck) -> None:
        _render(check.metadata["hits"])
