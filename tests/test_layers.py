"""The house's layers, as the README's Layout states them, checked on the source (every import
statement, lazy ones inside functions included), and the front door's exported names.

    core           -> nothing of ours
    certify        -> core (the proof checker: no solver, nothing else of ours)
    puzzles        -> core
    models         -> core, puzzles, certify
    native_search  -> core, puzzles
    families       -> core
    compare        -> core, certify, puzzles, models, native_search, families
    api (puzzlesat, puzzlesat.engine) -> core, certify, puzzles, models, families, compare
    cli            -> everything above; the only importer of click and rich

Solver libraries (ortools, pysat) are imported by models/ only; native searches never import one.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"api": "puzzlesat", "core": "puzzlesat.core", "puzzles": "puzzlesat.puzzles",
           "models": "puzzlesat.models", "native_search": "puzzlesat.native_search",
           "families": "puzzlesat.families", "compare": "puzzlesat.compare", "cli": "puzzlesat.cli",
           "certify": "puzzlesat.certify"}
ALLOWED = {
    "core": set(),
    "certify": {"core"},
    "puzzles": {"core"},
    "models": {"core", "puzzles", "certify"},
    "native_search": {"core", "puzzles"},
    "families": {"core"},
    "compare": {"core", "certify", "puzzles", "models", "native_search", "families"},
    "api": {"core", "certify", "puzzles", "models", "families", "compare"},
    "cli": {"core", "certify", "puzzles", "models", "native_search", "families", "compare", "api"},
}
SOLVER_LIBS = ("ortools", "pysat")
UI_LIBS = ("click", "rich")


def _layer_of(module: str) -> str:
    """The layer of a `puzzlesat...` module name (the front door and puzzlesat.engine: api)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] not in {v.split(".")[-1] for v in FOLDERS.values()} - {"puzzlesat"}:
        return "api"
    return parts[1]


def _imports(path: Path, package: str) -> list[tuple[str, int, bool]]:
    """(absolute module, line, at module level) of every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((mod, node.lineno, id(node) in top))
    return out


def _files():
    """(layer, file, its package) of every source file; `python -m puzzlesat` (api/__main__.py)
    is the command line's entry, so it belongs to the cli layer."""
    for folder, pkg in FOLDERS.items():
        for p in sorted((ROOT / folder).rglob("*.py")):
            sub = p.relative_to(ROOT / folder).parts[:-1]
            yield ("cli" if p == ROOT / "api" / "__main__.py" else folder), p, ".".join([pkg, *sub])


def test_no_upward_import_and_ui_and_solver_libraries_in_their_layers():
    bad = []
    for folder, path, package in _files():
        for mod, line, _ in _imports(path, package):
            where = f"{path.relative_to(ROOT)}:{line}"
            head = mod.split(".")[0]
            if head == "puzzlesat":
                target = _layer_of(mod)
                if target != folder and target not in ALLOWED[folder]:
                    bad.append(f"{where}: {folder} imports {mod} ({target})")
            elif head in UI_LIBS and folder != "cli":
                bad.append(f"{where}: {mod} outside cli/")
            elif head in SOLVER_LIBS and folder != "models":
                bad.append(f"{where}: solver library {mod} outside models/")
    assert not bad, "\n".join(bad)


def test_inside_the_package_imports_are_relative():
    """Explicit relative imports keep the folder tree readable as the import map (docstrings
    and strings naming `puzzlesat.x:f` targets are data, not imports)."""
    bad = [f"{p.relative_to(ROOT)}:{n.lineno}" for _, p, _ in _files()
           for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
           if isinstance(n, ast.ImportFrom) and not n.level and (n.module or "").startswith("puzzlesat")
           or isinstance(n, ast.Import) and any(a.name.startswith("puzzlesat") for a in n.names)]
    assert not bad, bad


def test_no_import_cycle_among_module_level_imports():
    graph: dict[str, set[str]] = {}
    for _, path, package in _files():
        name = package if path.name == "__init__.py" else f"{package}.{path.stem}"
        graph[name] = {m for m, _, top in _imports(path, package) if top and m.startswith("puzzlesat")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, ()):
            m = m if m in graph else m.rpartition(".")[0]  # `from pkg import name`
            if m == n or m not in graph:
                continue
            if state.get(m) == 1 and not n.startswith(m + "."):  # a package's own submodules
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2
    for n in sorted(graph):
        if n not in state:
            visit(n)


def test_front_door_exports_exactly_its_public_names():
    """`puzzlesat` only re-exports: every public name it has is in __all__ (subpackages aside,
    but `compare` and `certify`, which are also functions), and every name in __all__ exists."""
    import types

    import puzzlesat as ps
    public = {n for n, v in vars(ps).items() if not n.startswith("_")
              and not (isinstance(v, types.ModuleType) and n not in ("compare", "certify"))}
    assert public == set(ps.__all__) - {"__version__"}
    assert all(hasattr(ps, n) for n in ps.__all__)
    tree = ast.parse((ROOT / "api" / "__init__.py").read_text(encoding="utf-8"))
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Assign))
            and not (isinstance(n, ast.Assign) and n.targets[0].id in ("__all__",))]
    assert not defs, "the front door defines nothing, it re-exports"


COMPARE = "c = ps.compare(ps.load('sliding/8-easy'), ['native:bfs', 'native:ida'])"


@pytest.mark.parametrize("code", [
    # the subpackage first, then the function, then the subpackage again
    f"import puzzlesat.compare.runner as r; import puzzlesat as ps; {COMPARE}; "
    "import puzzlesat.compare.runner as r2; print(c.verdict.value, r is r2)",
    # the function first, then the subpackage
    f"import puzzlesat as ps; {COMPARE}; import puzzlesat.compare.runner as r; "
    "from puzzlesat.compare import crossval; print(c.verdict.value, callable(ps.compare))",
], ids=["subpackage-first", "function-first"])
def test_compare_subpackage_and_function_in_either_order(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["AGREE", "True"]


def test_listing_engines_imports_no_solver():
    code = ("import sys, puzzlesat as ps; ps.engines(); ps.catalogue(); "
            "print(sorted(m for m in ('ortools', 'pysat', 'numba', 'click', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_static_sat_solver_names_are_what_python_sat_builds():
    """The engine tables list the solvers without importing python-sat; they must be exactly
    what the installed python-sat builds."""
    from puzzlesat.families.options import SAT_NON_INCREMENTAL, SAT_SOLVERS
    from puzzlesat.models import _sat
    assert SAT_SOLVERS == _sat.SOLVERS
    assert SAT_NON_INCREMENTAL == _sat.NON_INCREMENTAL


def test_native_bfs_defaults_match_its_table():
    """native:auto runs native:bfs with that engine's defaults, which the search keeps itself
    (the native layer does not read the engine tables)."""
    from puzzlesat.families.registry import family
    from puzzlesat.native_search.peg.bfs import OPTION_DEFAULTS
    assert family("peg").engine("native:bfs").resolve_options({}) == OPTION_DEFAULTS
