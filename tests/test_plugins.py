"""Families as plug-ins: the example plug-ins under examples/ (each its own installable package
with a `puzzlesat.families` entry point) work through every surface of puzzlesat with no change
to puzzlesat — registered at run time in this process, and installed into a fresh virtual
environment where the entry point finds them.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core.family import check_family

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = sorted(p.parent for p in (ROOT / "examples").glob("*/pyproject.toml"))
# (plug-in folder, instance, task, the answer every engine must agree on: objective or count)
CASES = {"nqueens": ("nqueens/queens-6", "count", 4),
         "lightsout": ("lightsout/allon-5", "optimize", 15),  # OEIS A075464
         "rushhour": ("rushhour/card-01", "optimize", 8),
         "sudoku": ("sudoku/top95-01", "count", 1)}           # a proper puzzle: one solution
# (plug-in, instances) the conformance kit checks, every engine on every task of the family
CONFORM = {"nqueens": ["nqueens/queens-5", "nqueens/queens-3"],
           "lightsout": ["lightsout/allon-3", "lightsout/corner-5"],
           "rushhour": ["rushhour/small-4x4"],
           "sudoku": ["sudoku/two-solutions", "sudoku/no-candidate"]}

CLI_DEFAULT = ("nqueens",)  # the plug-ins whose command-line tour runs in the default suite


def _family(folder: Path):
    """The plug-in's Family record, imported from its source folder."""
    meta = tomllib.loads((folder / "pyproject.toml").read_text())
    [(name, target)] = meta["project"]["entry-points"]["puzzlesat.families"].items()
    sys.path.insert(0, str(folder))
    try:
        mod, _, attr = target.partition(":")
        __import__(mod)
        return name, getattr(sys.modules[mod], attr)
    finally:
        sys.path.remove(str(folder))


@pytest.fixture(scope="module", params=[p.name for p in PLUGINS])
def plugin(request):
    folder = ROOT / "examples" / request.param
    name, fam = _family(folder)
    sys.path.insert(0, str(folder))
    ps.register_family(fam)
    yield folder, name, fam
    ps.unregister_family(name)
    sys.path.remove(str(folder))


def test_every_registered_family_keeps_the_contract(plugin):
    from puzzlesat.families.registry import families
    for fam in families().values():
        assert check_family(fam) == [], fam.name
        for make in list(fam.catalogue().values())[:3]:
            inst = make()
            assert ps.family_of(inst) is fam
            d = fam.describe(inst)
            assert d["name"] == inst.name and json.dumps(d, default=str)


def test_every_example_passes_the_conformance_kit(plugin):
    """puzzlesat.testing on each example (its own tests run it on more instances)."""
    from puzzlesat.testing import assert_family_conforms
    folder, name, fam = plugin
    report = assert_family_conforms(fam, CONFORM[name], time_limit=120)
    from puzzlesat.families.registry import family
    served = family(name)  # as the registry serves it: unique derived from the count engines
    assert report.agreed == len(CONFORM[name]) * len(served.tasks) and report.mutations_rejected, report


def test_plugin_through_the_api(plugin, tmp_path):
    folder, name, fam = plugin
    inst_name, task, want = CASES.get(name, (None, None, None))
    if inst_name is None:
        pytest.skip(f"no case for {name} yet")
    inst = ps.load(inst_name)
    c = ps.compare(inst, None, task, time_limit=120)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    got = {r.count if task == "count" else r.objective for r in c.results}
    assert got == {want}
    r = c.results[0]
    rec = r.to_record()
    back = ps.Result.from_record(json.loads(json.dumps(rec)), fam, inst)
    assert back.solutions == r.solutions and back.count == r.count
    for s in r.solutions:
        assert fam.solution_from_json(inst, fam.solution_json(inst, s)) == s
    if fam.has_svg():
        assert ps.svg(inst, r.solutions[0]).lstrip().startswith("<svg")


def _fresh_venv(tmp: Path, folder: Path) -> Path:
    """A new virtual environment that sees this environment's packages (puzzlesat and its
    dependencies, through a .pth file) and has the plug-in installed into it by pip."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    outer = sysconfig.get_paths()["purelib"]  # as a site dir: its own .pth files count too
    Path(site, "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    # built from a copy: pip writes build/ and *.egg-info into the folder it builds, and an
    # egg-info left in examples/ would make the plug-in an installed one for every later test
    # that puts its folder on sys.path
    src = tmp / "src"
    shutil.copytree(folder, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                          "--no-build-isolation", "--no-index", "--target", site, str(src)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return py


def test_installed_plugin_works_from_the_command_line(plugin, tmp_path, request):
    folder, name, fam = plugin
    if name not in CLI_DEFAULT and not request.config.getoption("--runslow"):
        pytest.skip(f"slow: the command-line tour of {name} (nqueens takes it in the default suite)")
    py = _fresh_venv(tmp_path, folder)
    env = {**os.environ, "PYTHONPATH": ""}

    def cli(*args):
        return subprocess.run([str(py), "-m", "puzzlesat", *args], capture_output=True, text=True,
                              timeout=300, env=env, cwd=tmp_path)
    p = cli("list", name, "--json")
    assert p.returncode == 0, p.stderr
    names = [row["instance"] for row in json.loads(p.stdout)]
    assert names and all(n.startswith(name + "/") for n in names)
    p = cli("engines", name)
    assert p.returncode == 0 and "native" in p.stdout
    inst_name, task, want = CASES.get(name, (names[0], None, None))
    p = cli("compare", inst_name, "--json", *(["--task", task] if task else []), "--time-limit", "120")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "AGREE", out["reasons"]
    if want is not None:
        assert {r["count"] if task == "count" else r["objective"] for r in out["results"]} == {want}
    p = cli("show", inst_name, "--svg", str(tmp_path / "x.svg"))
    assert p.returncode == 0 and (tmp_path / "x.svg").read_text().startswith("<svg"), p.stderr
    p = cli("bench", inst_name, "--json")
    assert p.returncode == 0 and json.loads(p.stdout.splitlines()[0])["verdict"] == "AGREE"
    spec = tmp_path / "c.toml"
    spec.write_text(f'name = "plug"\ninstances = ["{inst_name}"]\ntime_limit = 60\n'
                    + (f'task = "{task}"\n' if task else "") + '[configs]\nn = "native"\ns = "sat"\n')
    p = cli("campaign", "run", str(spec), "--jobs", "1")  # a spec naming a plug-in's instances
    assert p.returncode == 2 and "--allow-code" in p.stderr and f"plug-in family {name}" in p.stderr
    assert not (tmp_path / "c.db").exists()
    p = cli("campaign", "run", str(spec), "--jobs", "1", "--allow-code")
    assert p.returncode == 0, p.stderr
    p = cli("campaign", "report", "--store", str(tmp_path / "c.db"), "--json")
    assert p.returncode == 0, p.stderr
    assert [i["verdict"] for i in json.loads(p.stdout)["instances"]] == ["AGREE"]
