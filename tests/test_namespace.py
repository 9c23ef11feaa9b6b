"""One import name: the wheel installs `puzzlesat` only, and a user's own `models.py`,
`compare.py` or `puzzles.py` in the working directory cannot shadow any part of it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import puzzlesat

REPO = Path(__file__).resolve().parents[1]


def test_tests_import_the_installed_package():
    # An editable install maps to the repository; a regular one (CI) lives in site-packages.
    here = Path(puzzlesat.__file__).resolve()
    assert here.parent.name in ("puzzlesat", "api"), here
    assert not (REPO / "puzzlesat").exists(), "a ./puzzlesat folder would shadow the installed package"


def test_wheel_top_level_is_puzzlesat_only():
    if Path(puzzlesat.__file__).resolve().parent.name == "api":
        import pytest
        pytest.skip("an editable install maps the package to the checkout; CI installs the wheel")
    # the distribution installed beside the imported package (not a build's egg-info in the checkout)
    site = Path(puzzlesat.__file__).resolve().parents[1]
    dist = next(d for d in metadata.distributions(path=[str(site)]) if d.metadata["Name"] == "puzzlesat")
    tops = {f.parts[0] for f in dist.files or () if f.suffix == ".py" and len(f.parts) > 1
            and not f.parts[0].endswith((".dist-info", ".egg-info"))}
    top_level = dist.read_text("top_level.txt")
    if top_level is not None:
        assert top_level.split() == ["puzzlesat"]
    if tops and not any(str(f).startswith("__editable__") for f in dist.files or ()):
        assert tops == {"puzzlesat"}, tops


def test_user_modules_named_like_ours_do_not_shadow(tmp_path):
    with open(REPO / "pyproject.toml", "rb") as f:  # the folder map: every folder's name
        folders = tomllib.load(f)["tool"]["setuptools"]["package-dir"].values()
    for name in folders:
        (tmp_path / f"{name}.py").write_text("raise SystemExit('user module imported: %s')\n" % name)
    py = [sys.executable]
    res = subprocess.run(py + ["-c", "import puzzlesat as ps, puzzlesat.compare.runner, "
                               "puzzlesat.models.peg.sat; print(ps.__name__)"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "puzzlesat", res.stderr
    res = subprocess.run(py + ["-m", "puzzlesat", "compare", "peg/hoppers", "--engines", "native,sat", "--json",
                               "--max-solutions", "0"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["verdict"] == "AGREE" and {r["objective"] for r in d["results"]} == {7}
    script = shutil.which("puzzlesat", path=os.path.dirname(sys.executable))
    assert script, "the console script is installed next to the interpreter"
    res = subprocess.run([script, "solve", "peg/hoppers", "--json"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["objective"] == 7
