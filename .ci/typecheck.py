"""mypy over the package as it installs: `python .ci/typecheck.py [mypy options]`.

The checkout's folders are not the import names (pyproject [tool.setuptools.package-dir] maps
`api/` to `puzzlesat`, `core/` to `puzzlesat.core`, ...), and mypy finds modules only by folder
name (it cannot follow setuptools' editable-install import hook either). So this names every
module itself from the folder map, the map's one home, and hands mypy the list; everything else
(what is strict, what is skipped and why) is mypy's own configuration in pyproject [tool.mypy].
Exit status 0 when mypy finds nothing, 1 when it reports an error, 2 when it cannot run.
"""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parent.parent


def sources() -> list[BuildSource]:
    """Every module of the package, by its import name: the files in each mapped folder and in
    the folders below it that hold an `__init__.py` (as setup.py installs them)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        folders = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    out = []
    for name, folder in folders.items():
        root = ROOT / folder
        for py in sorted(root.rglob("*.py")):
            parts = py.relative_to(root).with_suffix("").parts
            if not all((root.joinpath(*parts[:i]) / "__init__.py").is_file()
                       for i in range(len(parts))):
                continue  # a data or scratch folder, not a package: not installed
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append(BuildSource(str(py.relative_to(ROOT)), ".".join((name, *parts))))
    return out


def main(argv: list[str]) -> int:
    os.chdir(ROOT)
    _, options = process_options(["--config-file", "pyproject.toml", *argv],
                                 require_targets=False)
    srcs = sources()
    try:
        messages = build.build(srcs, options).errors
    except CompileError as e:  # a syntax error, a module that cannot be read
        messages = e.messages
    for line in messages:
        print(line)
    errors = sum(": error:" in m for m in messages)
    files = len({m.split(":", 1)[0] for m in messages if ": error:" in m})
    if errors:
        print(f"Found {errors} error{'s' * (errors != 1)} in {files} file{'s' * (files != 1)} "
              f"(checked {len(srcs)} source files)")
        return 1
    print(f"Success: no issues found in {len(srcs)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
