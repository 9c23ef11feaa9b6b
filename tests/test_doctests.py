"""Every docstring example in the installed package, and the README's Python examples, run here:
documentation that has rotted fails the suite."""
from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest


README = Path(__file__).resolve().parents[1] / "README.md"


def _modules() -> list[str]:
    """Every module of the package (walked through each mapped folder, pyproject.toml's
    package-dir, which also works for an editable install, where `puzzlesat.__path__` is the
    api/ folder only)."""
    with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as f:
        mapped = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    names = ["puzzlesat.engine", "puzzlesat.testing"]
    for name in mapped:
        pkg = importlib.import_module(name)
        names.append(pkg.__name__)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                  if not m.name.endswith(".__main__")]  # `python -m puzzlesat` runs the CLI
    return sorted(set(names))


MODULES = _modules()


def test_modules_found():
    assert {"puzzlesat.engine", "puzzlesat.compare.runner", "puzzlesat.models.formulation"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in finder.find(mod, name):
        runner.run(t)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {name}"


def _run_sessions(path: Path) -> None:
    """The ```python blocks of a Markdown file written as doctest sessions (>>>), run in order as
    one session; each must pass."""
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)
    sessions = [b for b in blocks if b.lstrip().startswith(">>>")]
    assert sessions, f"{path.name} shows the Python API as >>> sessions"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    for i, text in enumerate(sessions):
        t = parser.get_doctest(text, globs, f"{path.name}[{i}]", str(path), 0)
        runner.run(t, clear_globs=False)
        globs.update(t.globs)  # later blocks continue the session
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} {path.name} examples failed"


def test_readme_python_examples():
    """The README's ```python blocks written as doctest sessions (>>>) run as they stand."""
    _run_sessions(README)


def test_adding_a_family_python_examples(monkeypatch):
    """docs/adding-a-family.md's sessions (n-queens, the conformance kit, Sudoku's collection file)
    from the checkout's folder, with the n-queens and Sudoku examples registered from their
    source folders when they are not installed."""
    import puzzlesat as ps
    from puzzlesat.families.registry import families
    root = README.parent
    monkeypatch.chdir(root)
    registered = []
    try:
        for name in ("nqueens", "sudoku"):
            monkeypatch.syspath_prepend(str(root / "examples" / name))
            if name not in families():
                ps.register_family(importlib.import_module(f"puzzlesat_{name}").FAMILY)
                registered.append(name)
        _run_sessions(root / "docs" / "adding-a-family.md")
    finally:
        for name in registered:
            ps.unregister_family(name)
