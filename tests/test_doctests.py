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


def test_readme_python_examples():
    """The README's ```python blocks written as doctest sessions (>>>) run as they stand."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    sessions = [b for b in blocks if b.lstrip().startswith(">>>")]
    assert sessions, "the README shows the Python API as >>> sessions"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    for i, text in enumerate(sessions):
        t = parser.get_doctest(text, globs, f"README[{i}]", str(README), 0)
        runner.run(t, clear_globs=False)
        globs.update(t.globs)  # later blocks continue the session
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} README examples failed"
