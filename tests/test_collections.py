"""Collection files: a family's COLLECTIONS format holds one instance a line; `load_all`, `solve`,
`compare` and campaigns take the whole file (each instance named FILE#LINE), `FILE#LINE` names one,
and a bad line is refused naming the file and the line. The family here is a small plug-in
installed for the test: n-queens boards, one size a line."""
from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import helpers

import puzzlesat as ps

ROOT = Path(__file__).resolve().parents[1]
QLINES = '''
    """n-queens boards, one size a line (# comments): a collection format for the tests."""
    import dataclasses
    import json
    from puzzlesat_nqueens.puzzle import *
    from puzzlesat_nqueens.puzzle import Queens
    from puzzlesat_nqueens import FAMILY as Q

    KIND = "qlines"
    INSTANCE_TYPES = (Queens,)

    def read_line(line, src):
        text = line.split("#")[0].strip()
        if not text:
            return None
        if not text.isdigit() or not 1 <= int(text) <= 12:
            raise src.error(f"expected a board size from 1 to 12, got {text!r}")
        return Queens(src.name, int(text))

    def to_toml(inst):
        return f'kind = "qlines"\\nname = {json.dumps(inst.name)}\\nn = {inst.n}\\n'

    COLLECTIONS = {".qn": read_line}
    FAMILY = dataclasses.replace(Q, name="qlines", puzzle=__name__)
    '''
BOARDS = "6\n# sizes with published counts (OEIS A000170)\n\n5\n4\n"   # lines 1, 4, 5
COUNTS = {"boards.qn#1": 4, "boards.qn#4": 10, "boards.qn#5": 2}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A site folder with the plug-in installed (its dist-info names the entry point)."""
    site = tmp_path_factory.mktemp("site")
    info = site / "qlines-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: qlines\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[puzzlesat.families]\nqlines = qlines_mod:FAMILY\n")
    (site / "qlines_mod.py").write_text(textwrap.dedent(QLINES))
    shutil.copytree(ROOT / "examples" / "nqueens" / "puzzlesat_nqueens", site / "puzzlesat_nqueens",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return site


@pytest.fixture(scope="module")
def qlines(site):
    """The plug-in registered in this process too."""
    sys.path.insert(0, str(site))
    import qlines_mod
    ps.register_family(qlines_mod.FAMILY)
    yield qlines_mod
    ps.unregister_family("qlines")
    sys.path.remove(str(site))


@pytest.fixture
def boards(tmp_path):
    (tmp_path / "boards.qn").write_text(BOARDS)
    return tmp_path


def test_load_all_names_each_instance_by_file_and_line(qlines, boards, monkeypatch):
    monkeypatch.chdir(boards)
    got = ps.load_all("boards.qn")
    assert [(i.name, i.n) for i in got] == [("boards.qn#1", 6), ("boards.qn#4", 5), ("boards.qn#5", 4)]
    assert {ps.family_of(i).name for i in got} == {"qlines"}
    one = ps.load("boards.qn#4")
    assert (one.name, one.n) == ("boards.qn#4", 5)
    assert ps.solve(one, "native", "count").count == 10
    with pytest.raises(ps.InputError, match=r"a collection of 3 instances: name one as boards.qn#LINE"):
        ps.load("boards.qn")
    with pytest.raises(ps.InputError, match=r"^boards.qn:2: this line holds no instance$"):
        ps.load("boards.qn#2")
    with pytest.raises(ps.InputError, match=r"^boards.qn: no line 9 \(the file has 5 lines\)$"):
        ps.load("boards.qn#9")
    (boards / "bad.qn").write_text("6\n7\nseven\n")
    with pytest.raises(ps.InputError, match=r"^bad.qn:3: expected a board size from 1 to 12, got 'seven'$"):
        ps.load_all("bad.qn")
    assert ps.load("bad.qn#2").n == 7  # the good lines of a file with a bad one still load one by one


def _cli(site, *args, cwd):
    env = {**os.environ, "PYTHONPATH": str(site)}
    return helpers.cli(*args, cwd=cwd, env=env, timeout=300)


def test_solve_and_compare_take_a_collection(site, boards):
    p = _cli(site, "solve", "boards.qn", "--task", "count", "--json", cwd=boards)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    assert {r["instance"]: r["count"] for r in recs} == COUNTS
    assert "boards.qn: 3 instances, native:dfs: OPTIMAL 3" in p.stderr
    p = _cli(site, "solve", "boards.qn", "--task", "count", cwd=boards)
    assert p.returncode == 0 and "boards.qn#4  OPTIMAL  count 10" in p.stdout
    assert "boards.qn: 3 instances, native:dfs: OPTIMAL 3;" in p.stdout
    p = _cli(site, "compare", "boards.qn", "--task", "count", "--json", "--engines", "native,sat", cwd=boards)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    assert [(r["instance"], r["verdict"]) for r in recs] == [(n, "AGREE") for n in COUNTS]
    (boards / "bad.qn").write_text("6\nseven\n")
    p = _cli(site, "solve", "bad.qn", cwd=boards)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip() == "puzzlesat: error: bad.qn:2: expected a board size from 1 to 12, got 'seven'"
    p = _cli(site, "solve", "boards.qn", "--picture", "x.svg", cwd=boards)
    assert p.returncode == 2 and "name one as boards.qn#LINE" in p.stderr


def test_a_campaign_expands_a_collection_into_its_instances(site, boards):
    (boards / "c.toml").write_text('name = "lines"\ninstances = ["boards.qn", "boards.qn#5"]\n'
                                   'task = "count"\ntime_limit = 60\n[configs]\nn = "native"\ns = "sat"\n')
    p = _cli(site, "campaign", "run", "c.toml", "--jobs", "1", "--allow-code", cwd=boards)
    assert p.returncode == 0, p.stderr
    p = _cli(site, "campaign", "report", "--store", "c.db", "--json", cwd=boards)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert {i["instance"]: i["verdict"] for i in rep["instances"]} == {n: "AGREE" for n in COUNTS}
    rows = helpers.rows(boards / "c.db")
    assert {(r["instance"], r["count"]) for r in rows} == set(COUNTS.items())


def test_solving_a_collection_plans_each_run_once(qlines, boards, monkeypatch):
    """The command line plans every instance's run first (all input errors before any work), then
    executes those plans: one `plan` call per instance (counted at its first step)."""
    from click.testing import CliRunner

    from puzzlesat.cli.main import cli
    from puzzlesat.compare import plan as plan_module
    calls = []
    admit = plan_module.admit_family
    monkeypatch.setattr(plan_module, "admit_family",
                        lambda fam, *a, **kw: (calls.append(fam.name), admit(fam, *a, **kw))[1])
    monkeypatch.chdir(boards)
    res = CliRunner().invoke(cli, ["solve", "boards.qn", "--task", "count", "--json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    recs = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    assert {r["instance"]: r["count"] for r in recs} == COUNTS
    assert calls == ["qlines"] * 3
