"""The house's layers, as the README's Layout states them, checked on the source, and the front
door's exported names. What the checker sees in every module of the package:

- every import statement, lazy ones inside functions included; `from . import bfs` counts as an
  import of the module `bfs`, not of its package;
- `importlib.import_module("puzzlesat....")` / `__import__` with a literal name: an import;
- every string that names one of our modules: "puzzlesat.models.peg.sat:run" (engine targets,
  validators, formulation hooks, job functions), "puzzlesat.compare.campaign.job" (`python -m`
  and job-worker modules), also as the literal head of an f-string or a `+` concatenation;
- `import_module(name)` with a computed name: allowed only in the resolvers listed in RESOLVERS.

Imports (ALLOWED):
    core           -> nothing of ours
    certify        -> core (the proof checker: no solver, nothing else of ours)
    puzzles        -> core
    models         -> core, puzzles, certify
    native_search  -> core, puzzles
    families       -> core
    compare        -> core, certify, puzzles, models, native_search, families
    api (puzzlesat, puzzlesat.engine) -> core, certify, puzzles, models, families, compare
    cli            -> everything above; the only importer of click and rich

Names in strings (NAMED): a layer names what it may import, and `families` also names what its
records point at without importing it: the puzzle module (`puzzle=`), engine targets, validators
and formulation hooks in models/ and native_search/ (listing engines loads no solver and no numba;
core/family.py imports a target when its engine runs), and family commands in cli/ (`commands=`,
`generate=`, imported by the command line only). Every name resolves: its module exists and, after
the colon, defines that name at its top level.

Solver libraries (ortools, pysat) are imported by models/ only; native searches never import one.

Wings: a family's folder in a layer (models/peg/, native_search/sliding/, compare/peg/, ...) and its
modules elsewhere (puzzles/peg.py, puzzles/draw/peg.py, families/peg.py, cli/peg.py) import and
name no other family's modules (CROSS_FAMILY would list reasoned exceptions; there are none).

Cycles: none, imports inside functions included; LAZY_CYCLE_EDGES lists the function-level
imports that may close one, each with its reason (and each must still exist, lazily).

The folder map (folder -> `puzzlesat.*` package) has one home, pyproject.toml's
[tool.setuptools.package-dir]: setup.py derives the package list from it, these tests and
tests/test_doctests.py read it, and the README's Layout is checked against it.
"""
from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
with open(ROOT / "pyproject.toml", "rb") as _f:
    PACKAGE_DIR: dict[str, str] = tomllib.load(_f)["tool"]["setuptools"]["package-dir"]
FOLDERS = {folder: pkg for pkg, folder in PACKAGE_DIR.items()}  # layer (= folder) -> package
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
NAMED = {layer: {layer} | allowed for layer, allowed in ALLOWED.items()}
NAMED["families"] |= {"puzzles", "models", "native_search", "cli"}
SOLVER_LIBS = ("ortools", "pysat")
UI_LIBS = ("click", "rich")
# The function-level imports that close an import cycle, each for a reason.
LAZY_CYCLE_EDGES = {
    **{(f"puzzlesat.puzzles.{f}", f"puzzlesat.puzzles.draw.{f}"):
       "the puzzle's `svg` (a member the family contract calls) draws with puzzles/draw/, which "
       "reads the puzzle's vocabulary; pictures load only when one is asked for"
       for f in ("peg", "pentomino", "sliding", "maze")},
    ("puzzlesat.puzzles.pentomino", "puzzlesat.puzzles.pentomino_breaking"):
        "`describe` summarises the symmetry-breaking plan, which is built on the puzzle's "
        "placements and group; the plan loads only when an instance is described",
    ("puzzlesat.compare.campaign.report", "puzzlesat.compare.campaign.html"):
        "the Report value's `write_html` builds the page, which renders the report's tables; "
        "loaded only when a page is written",
    ("puzzlesat.compare.campaign.report", "puzzlesat.compare.campaign.svgplot"):
        "the Report value's `cactus` and `scatter` draw with svgplot, which reads the report's "
        "per-instance times; loaded only when a plot is drawn",
}
# The functions that import a module by a computed name (data, a plug-in, a worker's report).
RESOLVERS = {
    ("puzzlesat.core.family", "resolve"): "an engine's 'module:function' target, when it runs; a family's commands (`commands=`, `generate=`: families/registry.py family_commands)",
    ("puzzlesat.core.family", "Family.module"): "a family's puzzle module (`puzzle=`), on first use",
    ("puzzlesat.core.procs", "load_kernels"): "the numba kernels a worker reported it holds",
    ("puzzlesat.core.procs", "prepare"): "an engine's module and its `preload` modules, in its worker",
    ("puzzlesat.families.registry", "_builtin"): "the built-in families' modules (families/*.py)",
    ("puzzlesat.families.registry", "_spec_function"): "a user's engine 'module:function' (--allow-code)",
    ("puzzlesat.models._ext", "call_hook"): "the formulation hook ext:dimacs and export call",
    ("puzzlesat.compare.campaign.job_worker", "main"): "the job module the pool started it for",
    ("puzzlesat.compare.peg.layers", "ChunkPool._run_dask"): "the chunk job's function on Dask",
}
CROSS_FAMILY: dict[tuple[str, str], str] = {}  # (importer, imported) -> reason; none today
NAME_RE = re.compile(r"puzzlesat(?:\.\w+)+(?::\w+)?")
NOT_MODULES = {"puzzlesat.engines",  # entry-point group names that are no module
               "puzzlesat.plugins"}  # the logger of discovery's warnings (families/registry.py)


# ---- the checker: pure functions over source text ----------------------------------------------
@dataclass
class Scan:
    """What one module's source says about other modules."""
    imports: list[tuple[str, int, bool]] = field(default_factory=list)   # (module, line, lazy)
    names: list[tuple[str, int, bool]] = field(default_factory=list)     # (text, line, is prefix)
    dynamic: list[tuple[str, int]] = field(default_factory=list)         # (function, line)
    absolute: list[int] = field(default_factory=list)   # lines of absolute `puzzlesat` imports


def scan(source: str, package: str, known: set[str]) -> Scan:
    """Imports, names and computed imports of a module of `package` (`known`: our module names,
    so that `from . import x` is seen as the module x)."""
    out = Scan()

    def base_of(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = package.split(".")
        return ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))

    def literal(node: ast.AST) -> str | None:
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    def visit(node: ast.AST, where: list[str], lazy: bool) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                out.imports.append((a.name, node.lineno, lazy))
                if a.name.startswith("puzzlesat"):
                    out.absolute.append(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = base_of(node)
            if not node.level and base.startswith("puzzlesat"):
                out.absolute.append(node.lineno)
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.imports.append((sub if sub in known else base, node.lineno, lazy))
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname in ("import_module", "__import__") and node.args:
                text = literal(node.args[0])
                if text is None:
                    out.dynamic.append((".".join(where) or "<module>", node.lineno))
                elif text.startswith("puzzlesat"):
                    out.imports.append((text, node.lineno, lazy))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if NAME_RE.fullmatch(node.value):
                out.names.append((node.value, node.lineno, False))
        elif isinstance(node, (ast.JoinedStr, ast.BinOp)):
            head = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else (
                node.left if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) else None)
            text = literal(head) if head is not None else None
            if text and re.fullmatch(r"puzzlesat(?:\.\w*)+(?::\w*)?", text):  # a name's literal head
                out.names.append((text, node.lineno, True))
                for child in ast.iter_child_nodes(node):
                    if child is not head:
                        visit(child, where, lazy)
                return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            name = getattr(node, "name", "<lambda>")
            inner = lazy or not isinstance(node, ast.ClassDef)  # a class body runs at import
            for child in ast.iter_child_nodes(node):
                visit(child, where + [name], inner)
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, where, lazy)

    visit(ast.parse(source), [], False)
    return out


def layer_of(module: str) -> str:
    """The layer (= folder) of a `puzzlesat...` module name: that of its longest mapped package."""
    return PACKAGE_DIR[max((p for p in PACKAGE_DIR if module == p or module.startswith(p + ".")),
                           key=len)]


def top_level_names(source: str) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments, imports)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def import_violations(layer: str, s: Scan) -> list[str]:
    bad = []
    for mod, line, _ in s.imports:
        head = mod.split(".")[0]
        if head == "puzzlesat":
            target = layer_of(mod)
            if target not in ALLOWED[layer] | {layer}:
                bad.append(f"{line}: {layer} imports {mod} ({target})")
        elif head in UI_LIBS and layer != "cli":
            bad.append(f"{line}: {mod} outside cli/")
        elif head in SOLVER_LIBS and layer != "models":
            bad.append(f"{line}: solver library {mod} outside models/")
    return bad


def name_violations(layer: str, s: Scan, sources: dict[str, str]) -> list[str]:
    """Names outside NAMED[layer], and names that do not resolve (`sources`: module -> text)."""
    bad = []
    for text, line, prefix in s.names:
        if text in NOT_MODULES:
            continue
        module, _, attr = text.rstrip(".").partition(":")
        if prefix:  # the head of a computed name: some module of ours must start so
            if not any(m.startswith(text) or m == module for m in sources):
                bad.append(f"{line}: '{text}...' names no module of ours")
        elif module not in sources:
            bad.append(f"{line}: '{text}' names no module of ours")
        elif attr and attr not in top_level_names(sources[module]):
            bad.append(f"{line}: '{text}': {module} defines no '{attr}'")
        target = layer_of(module)
        if target not in NAMED[layer]:
            bad.append(f"{line}: {layer} names {text} ({target})")
    return bad


def family_of(module: str, families: set[str]) -> str | None:
    """The family a module belongs to: its wing (models/peg/...), or puzzles/<f>.py (and
    puzzles/<f>_*.py, puzzles/draw/<f>.py), families/<f>.py, cli/<f>.py; None when shared."""
    rest = module.split(".")[1:]
    if len(rest) >= 2 and rest[0] in ("models", "native_search", "compare") and rest[1] in families:
        return rest[1]
    if rest[:1] in (["puzzles"], ["families"], ["cli"]) and len(rest) >= 2:
        stem = rest[-1].split("_")[0]
        return stem if stem in families else None
    return None


def cross_family(module: str, s: Scan, families: set[str]) -> list[str]:
    """Imports and names of another family's modules."""
    mine = family_of(module, families)
    bad = []
    for text, line in [(m, ln) for m, ln, _ in s.imports] + [(t, ln) for t, ln, _ in s.names]:
        other = text.rstrip(".").partition(":")[0]
        theirs = family_of(other, families) if other.startswith("puzzlesat.") else None
        if mine and theirs and theirs != mine and (module, other) not in CROSS_FAMILY:
            bad.append(f"{module}:{line}: family {mine} uses {other} (family {theirs})")
    return bad


def import_graph(scans: dict[str, Scan]) -> dict[str, dict[str, bool]]:
    """module -> {imported module: lazy only}; an import of a.b.c also runs the packages a.b and a
    (those that are not the importer's own)."""
    graph: dict[str, dict[str, bool]] = {}
    for name, s in scans.items():
        edges: dict[str, bool] = {}
        for mod, _, lazy in s.imports:
            while mod and mod not in scans:  # `from pkg import name`: the package
                mod = mod.rpartition(".")[0]
            chain = [mod] + [mod.rsplit(".", k)[0] for k in range(1, mod.count(".") + 1)]
            for m in chain:
                if m and m != name and not name.startswith(m + ".") and m in scans:
                    edges[m] = edges.get(m, True) and lazy
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, dict[str, bool]], exempt: set[tuple[str, str]]) -> list[str]:
    """One import cycle (a list of modules, the first repeated at the end), or []."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str]:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, {})):
            if (n, m) in exempt:
                continue
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return []
    for n in sorted(graph):
        if n not in state and (c := visit(n)):
            return c
    return []


# ---- the package as it is ----------------------------------------------------------------------
@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    package: str
    layer: str


def _modules() -> dict[str, Module]:
    """Every source module; `python -m puzzlesat` (api/__main__.py) is the command line's entry,
    so it belongs to the cli layer."""
    out = {}
    for folder, pkg in FOLDERS.items():
        for p in sorted((ROOT / folder).rglob("*.py")):
            package = ".".join([pkg, *p.relative_to(ROOT / folder).parts[:-1]])
            name = package if p.name == "__init__.py" else f"{package}.{p.stem}"
            layer = "cli" if p == ROOT / "api" / "__main__.py" else folder
            out[name] = Module(name, p, package, layer)
    return out


MODULES = _modules()
SOURCES = {n: m.path.read_text(encoding="utf-8") for n, m in MODULES.items()}
SCANS = {n: scan(SOURCES[n], m.package, set(MODULES)) for n, m in MODULES.items()}
FAMILIES = {p.name for layer in ("models", "native_search") for p in (ROOT / layer).iterdir()
            if (p / "__init__.py").exists()}


def _where(name: str, msg: str) -> str:
    return f"{MODULES[name].path.relative_to(ROOT)}:{msg}"


def test_no_upward_import_and_ui_and_solver_libraries_in_their_layers():
    bad = [_where(n, b) for n, m in MODULES.items() for b in import_violations(m.layer, SCANS[n])]
    assert not bad, "\n".join(bad)


def test_inside_the_package_imports_are_relative():
    """Explicit relative imports keep the folder tree readable as the import map (strings naming
    `puzzlesat.x:f` targets are data, not imports)."""
    bad = [_where(n, str(line)) for n in MODULES for line in SCANS[n].absolute]
    assert not bad, bad


def test_named_modules_resolve_and_respect_the_layers():
    bad = [_where(n, b) for n, m in MODULES.items()
           for b in name_violations(m.layer, SCANS[n], SOURCES)]
    assert not bad, "\n".join(bad)
    assert sum(len(s.names) for s in SCANS.values()) > 40  # the engine tables are seen


def test_imports_by_computed_name_only_in_the_resolvers():
    found = {(n, fn) for n, s in SCANS.items() for fn, _ in s.dynamic}
    assert found == set(RESOLVERS), (f"new: {sorted(found - set(RESOLVERS))}, "
                                     f"gone: {sorted(set(RESOLVERS) - found)}")


def test_wings_use_no_other_familys_modules():
    assert FAMILIES == {"peg", "pentomino", "sliding", "maze"}
    bad = [b for n in MODULES for b in cross_family(n, SCANS[n], FAMILIES)]
    assert not bad, "\n".join(bad)
    for (a, b), reason in CROSS_FAMILY.items():
        assert any(m == b for m, _, _ in SCANS[a].imports) or any(
            t.partition(":")[0] == b for t, _, _ in SCANS[a].names), f"stale: {a} -> {b} ({reason})"


def test_no_import_cycle_imports_inside_functions_included():
    graph = import_graph(SCANS)
    for a, b in LAZY_CYCLE_EDGES:
        assert graph.get(a, {}).get(b) is True, f"{a} -> {b} is no lazy import (any more)"
    cycle = find_cycle(graph, set(LAZY_CYCLE_EDGES))
    assert not cycle, "import cycle: " + " -> ".join(cycle)


# ---- every check fails on a planted violation ----------------------------------------------------
def _scan(src: str, package: str, extra: set[str] = frozenset()) -> Scan:
    return scan(src, package, set(MODULES) | set(extra))


@pytest.mark.parametrize("src", [
    "from ... import models\n",                                 # a layer as a module
    "from ...models.peg import sat\n",
    "def f():\n    from ...models.peg import sat\n",              # lazy
    "import importlib\ndef f():\n    importlib.import_module('puzzlesat.models.peg.sat')\n",
    "from importlib import import_module\nm = import_module('puzzlesat.compare.runner')\n",
    "def f():\n    import pysat\n",
    "class C:\n    import click\n",
])
def test_planted_upward_import_is_seen(src):
    assert import_violations("native_search", _scan(src, "puzzlesat.native_search.peg"))


def test_from_dot_import_module_is_that_module():
    s = _scan("from . import bfs\nfrom .. import live\nfrom .bfs import Space\n",
              "puzzlesat.native_search.peg")
    assert [m for m, _, _ in s.imports] == ["puzzlesat.native_search.peg.bfs",
                                           "puzzlesat.native_search.live",
                                           "puzzlesat.native_search.peg.bfs"]


@pytest.mark.parametrize("src, layer, why", [
    ("E = ('x', 'puzzlesat.compare.runner:solve')\n", "models", "models names"),
    ("E = 'puzzlesat.models.peg.sat:no_such_function'\n", "families", "defines no"),
    ("E = 'puzzlesat.models.peg.no_such_module:run'\n", "families", "names no module"),
    ("E = ['-m', 'puzzlesat.compare.campaign.jobs']\n", "compare", "names no module"),
    ("def f(n):\n    return f'puzzlesat.compare.{n}:run'\n", "families", "families names"),
    ("def f(n):\n    return 'puzzlesat.api.' + n\n", "families", "names no module"),
    ("def f(n):\n    return f'puzzlesat.models.peg_{n}:run'\n", "families", "names no module"),
    ("E = 'puzzlesat.cli.peg:peg'\n", "compare", "compare names"),
])
def test_planted_bad_name_is_seen(src, layer, why):
    bad = name_violations(layer, _scan(src, FOLDERS[layer]), SOURCES)
    assert any(why in b for b in bad), bad


def test_good_names_pass():
    src = ("E = ('puzzlesat.models.peg.sat:run', 'puzzlesat.native_search.peg.bfs:OPTION_DEFAULTS',"
           " 'puzzlesat.cli.peg:peg', 'puzzlesat.puzzles.peg')\n"
           "def f(name):\n    return f'puzzlesat.models.peg.{name}:decision'\n")
    s = _scan(src, "puzzlesat.families")
    assert len(s.names) == 5 and not name_violations("families", s, SOURCES)


def test_planted_computed_import_is_seen():
    s = _scan("import importlib\nclass A:\n    def load(self, name):\n"
              "        return importlib.import_module(name)\n", "puzzlesat.compare")
    assert s.dynamic == [("A.load", 4)]


def test_planted_cross_family_use_is_seen():
    for src in ("from ..sliding import tables\n", "def f():\n    from ...puzzles import maze\n",
                "T = 'puzzlesat.models.pentomino.cover:decision'\n"):
        s = _scan(src, "puzzlesat.native_search.peg")
        assert cross_family("puzzlesat.native_search.peg.x", s, FAMILIES), src
    ok = _scan("from ...puzzles.peg import board\nfrom .. import live\nfrom . import bfs\n",
               "puzzlesat.native_search.peg")
    assert not cross_family("puzzlesat.native_search.peg.x", ok, FAMILIES)


def test_planted_cycles_are_seen():
    names = {"puzzlesat.core.a", "puzzlesat.core.b", "puzzlesat.core.c"}
    scans = {"puzzlesat.core.a": _scan("from . import b\n", "puzzlesat.core", names),
             "puzzlesat.core.b": _scan("from .c import x\n", "puzzlesat.core", names),
             "puzzlesat.core.c": _scan("def f():\n    from .a import y\n", "puzzlesat.core", names)}
    graph = import_graph(scans)
    assert graph["puzzlesat.core.c"] == {"puzzlesat.core.a": True}  # lazy
    assert find_cycle(graph, set()) == ["puzzlesat.core.a", "puzzlesat.core.b", "puzzlesat.core.c",
                                        "puzzlesat.core.a"]
    assert find_cycle(graph, {("puzzlesat.core.c", "puzzlesat.core.a")}) == []
    # through a package's __init__: importing pkg.sub runs pkg
    names = {"puzzlesat.compare", "puzzlesat.compare.x", "puzzlesat.core.d"}
    scans = {"puzzlesat.compare": _scan("from ..core import d\n", "puzzlesat.compare", names),
             "puzzlesat.compare.x": _scan("", "puzzlesat.compare", names),
             "puzzlesat.core.d": _scan("def f():\n    from ..compare import x\n", "puzzlesat.core", names)}
    assert find_cycle(import_graph(scans), set())


# ---- the folder map's one home ----------------------------------------------------------------
def test_the_folder_map_has_one_home():
    """pyproject's package-dir is the map; the package list is derived from it (setup.py), the
    README's Layout says the same, and every mapped folder's subpackage is installed."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert "packages" not in tomllib.load(f)["tool"]["setuptools"], "derived by setup.py"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```")[1]
    rows = dict(re.findall(r"^(\w+)/\s+(puzzlesat[\w.]*)\s", block, flags=re.M))
    assert rows == FOLDERS
    for folder, pkg in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            name = ".".join([pkg, *init.parent.relative_to(ROOT / folder).parts])
            assert importlib.util.find_spec(name) is not None, f"{name} is not installed"


# ---- the front door ---------------------------------------------------------------------------
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


def test_importing_a_wing_loads_no_kernel_and_no_solver():
    wings = sorted(n for n in MODULES if MODULES[n].path.name == "__init__.py"
                   and family_of(n, FAMILIES))
    assert len(wings) == 9, wings
    code = (f"import sys; import {', '.join(wings)}; "
            "print(sorted(m for m in ('ortools', 'pysat', 'numba') if m in sys.modules))")
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
