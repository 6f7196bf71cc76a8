"""docs/architecture.md holds: the import rule it states, no import cycles, small modules,
and a map that names every module of kg/.

The layer table is read from the document, so the rule is written once.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from helpers import ROOT

DOC_PATH = ROOT / "docs" / "architecture.md"
DOC = DOC_PATH.read_text()
KG = ROOT / "kg"
MAX_LINES = 400


# -- reading the document --------------------------------------------------------------------
def _table(header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with ``header``, as cells."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:  # past the header and the |---| row
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> list[str]:
    return re.findall(r"`([\w.]+)`", cell)


LAYERS: dict[str, int] = {
    name: int(layer)
    for layer, cell in _table("| layer | packages and modules |")
    for name in _names(cell)
}


@dataclass(frozen=True)
class Standalone:
    may_import: frozenset[str]
    imported_by: frozenset[str]


STANDALONE: dict[str, Standalone] = {
    name: Standalone(frozenset(_names(imports)), frozenset(_names(users)))
    for module, imports, users in _table("| standalone module |")
    for name in _names(module)
}


def owner(module: str) -> str | None:
    """The entry of the layer tables ``module`` belongs to: the longest one that is it or a
    package above it (``kg`` stands for the package's ``__init__`` alone)."""
    entries = [
        e
        for e in (*LAYERS, *STANDALONE)
        if module == e or (e != "kg" and module.startswith(e + "."))
    ]
    return max(entries, key=len, default=None)


# -- reading the code ------------------------------------------------------------------------
def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(KG.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, top_level: bool) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement; with ``top_level``, only those that run when the module is
    imported (not inside functions, not under ``if TYPE_CHECKING``)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            elif top_level and isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            ):
                continue
            elif top_level and isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            visit(child)

    visit(tree)
    return found


def imports(module: str, top_level: bool = False) -> set[str]:
    """The kg modules ``module`` imports: for ``from X import y``, X.y when that is a module,
    else X (a re-export is an edge to the package); relative imports resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text()), top_level):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        if node.level:
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*parts, node.module] if node.module else parts)
        else:
            base = node.module or ""
        submodules = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
        targets |= submodules
        if len(submodules) < len(node.names):  # names defined by the package itself
            targets.add(base)
    return {t for t in targets if t == "kg" or t.startswith("kg.")}


def _with_parents(module: str, importer: str) -> set[str]:
    """``module`` and the packages Python initializes to import it, less the importer's
    own packages (they are being initialized already)."""
    parts = module.split(".")
    chain = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    own = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    return {m for m in chain - own if m in MODULES} | ({module} & MODULES.keys())


# -- the tests ---------------------------------------------------------------------------------
def test_the_rule_is_read_from_the_document() -> None:
    assert LAYERS["kg.errors"] == 0 and LAYERS["kg.cli"] == max(LAYERS.values())
    assert "kg.reproduce" in STANDALONE


def test_every_layer_entry_exists() -> None:
    missing = []
    for entry in (*LAYERS, *STANDALONE):
        path = entry.replace(".", "/")
        if entry == "kg":
            continue
        if not ((ROOT / f"{path}.py").is_file() or (ROOT / path / "__init__.py").is_file()):
            missing.append(entry)
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_every_module_has_a_layer() -> None:
    assert not [m for m in MODULES if owner(m) is None], "add them to docs/architecture.md"


def _allowed(importer: str, target: str) -> bool:
    mine, theirs = owner(importer), owner(target)
    if mine is None or theirs is None or mine == theirs:
        return mine is not None and theirs is not None
    if mine in STANDALONE:
        return theirs in STANDALONE[mine].may_import
    if theirs in STANDALONE:
        return mine in STANDALONE[theirs].imported_by
    if LAYERS[theirs] == LAYERS[mine] == 0:  # the ground modules may use one another
        return True
    return LAYERS[theirs] < LAYERS[mine]


def test_imports_follow_the_layers() -> None:
    broken = sorted(
        f"{m} imports {t} ({owner(m)} may not use {owner(t)})"
        for m in MODULES
        for t in imports(m)
        if not _allowed(m, t)
    )
    assert not broken, "\n".join(broken)


# -- within kg/web ----------------------------------------------------------------------------
WEB_LAYERS: dict[str, int] = {
    name: int(layer)
    for layer, cell in _table("| web layer | packages and modules |")
    for name in _names(cell)
}
#: The modules of kg/web/pages that every page may use (docs/architecture.md says why).
SHARED_PAGES = {"kg.web.pages", "kg.web.pages.answers", "kg.web.pages.node"}


def web_owner(module: str) -> str | None:
    """The entry of the web layer table ``module`` belongs to (``kg.web`` is the package's
    ``__init__`` alone)."""
    entries = [
        e for e in WEB_LAYERS if module == e or (e != "kg.web" and module.startswith(e + "."))
    ]
    return max(entries, key=len, default=None)


def _web_allowed(importer: str, target: str) -> bool:
    mine, theirs = web_owner(importer), web_owner(target)
    if mine is None or theirs is None:
        return False
    if mine == theirs == "kg.web.pages":  # a page uses no other page
        return importer == target or target in SHARED_PAGES
    return mine == theirs or WEB_LAYERS[theirs] < WEB_LAYERS[mine]


def test_every_web_module_has_a_sub_layer() -> None:
    lost = [m for m in MODULES if m.startswith("kg.web") and web_owner(m) is None]
    assert not lost, f"add them to the web layer table of docs/architecture.md: {lost}"


def test_web_imports_follow_the_sub_layers() -> None:
    broken = sorted(
        f"{m} imports {t} ({web_owner(m)} may not use {web_owner(t)})"
        for m in MODULES
        if m.startswith("kg.web")
        for t in imports(m)
        if t.startswith("kg.web") and not _web_allowed(m, t)
    )
    assert not broken, "\n".join(broken)


def test_the_web_rule_refuses_what_it_should() -> None:
    assert not _web_allowed("kg.web.http.cache", "kg.web.state")  # upwards
    assert not _web_allowed("kg.web.sparql.endpoint", "kg.web.following.feeds")  # across
    assert not _web_allowed("kg.web.pages.model", "kg.web.pages.benchmark")  # page to page
    assert _web_allowed("kg.web.pages.model", "kg.web.pages.node")
    assert _web_allowed("kg.web.routes", "kg.web.pages.record")


def test_the_rule_refuses_what_it_should() -> None:
    """The checker itself: a few imports the rule forbids are found forbidden."""
    assert not _allowed("kg.model.ingest", "kg.store.base")  # upwards
    assert not _allowed("kg.export.render", "kg.verify.checks")  # across one layer
    assert not _allowed("kg.reproduce", "kg.errors")  # standalone: only its row
    assert not _allowed("kg.web.pages.records", "kg.reproduce")  # standalone: only its users
    assert _allowed("kg.export.render", "kg.store.archive")
    assert _allowed("kg.cli.reproduce", "kg.reproduce")
    assert _allowed("kg.config", "kg.errors")


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph``, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles() -> None:
    graph = {
        m: {p for t in imports(m, top_level=True) for p in _with_parents(t, m)} - {m}
        for m in MODULES
    }
    found = _cycle(graph)
    assert found is None, "import cycle: " + " -> ".join(found or [])


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_module_over_400_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in MODULES.values()
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def _documented_paths() -> set[str]:
    return set(re.findall(r"`(kg/[\w/.]*)`", DOC))


def test_every_module_is_documented() -> None:
    named = _documented_paths()
    missing = []
    for path in MODULES.values():
        rel = path.relative_to(ROOT)
        key = f"{rel.parent}/" if path.name == "__init__.py" else str(rel)
        if key not in named:
            missing.append(key)
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_what_the_document_names_exists() -> None:
    gone = sorted(p for p in _documented_paths() if not (ROOT / p).exists())
    assert not gone, f"docs/architecture.md names what does not exist: {gone}"


def test_every_all_is_true() -> None:
    """What a module's ``__all__`` names, it defines or imports (``from m import *`` and
    the documentation tools trust it)."""
    import importlib

    wrong = []
    for path in sorted((ROOT / "kg").rglob("*.py")):
        tree = ast.parse(path.read_text())
        if not any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            for node in tree.body
        ):
            continue
        module = importlib.import_module(module_name(path))
        wrong += [
            f"{module.__name__}.{name}" for name in module.__all__ if not hasattr(module, name)
        ]
    assert not wrong, wrong
