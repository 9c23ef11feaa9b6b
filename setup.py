"""The package list, derived from the folder map (pyproject.toml, [tool.setuptools.package-dir],
its one home): every folder under a mapped folder that holds an `__init__.py` is a subpackage, so
a new wing (`native_search/<family>/`) installs without another list to keep by hand.
Everything else about the build is in pyproject.toml."""
from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def packages() -> list[str]:
    """`puzzlesat` and its subpackages: each mapped folder, and each folder below it with an
    `__init__.py` (data folders and caches have none)."""
    with open(HERE / "pyproject.toml", "rb") as f:
        folders = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    out = set()
    for name, folder in folders.items():
        root = HERE / folder
        out.update(".".join((name, *init.parent.relative_to(root).parts))
                   for init in root.rglob("__init__.py"))
    return sorted(out)


setup(packages=packages())
