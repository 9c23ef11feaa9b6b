"""A plug-in cannot break the house: one that fails to import or to keep the contract is skipped
with one warning line and listed by `puzzlesat plugins`; every exception its code raises where its
contract allows none becomes one line naming it (input: InputError, exit 2; in a run: ERROR with
the reason); instances belong to the family that produced them, not to the module their class is
defined in; a kind or file suffix two families read is reported and needs `family=`.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

import helpers

import puzzlesat as ps
from puzzlesat.core.family import Engine
from puzzlesat.engine import Outcome, Status, Task
from puzzlesat.families import registry

ROOT = Path(__file__).resolve().parents[1]
NQUEENS = ROOT / "examples" / "nqueens"
MAZE = ROOT / "puzzles" / "data" / "maze" / "sample1.txt"   # reference optimum 36


@pytest.fixture(scope="module")
def nq():
    """The n-queens example plug-in, importable and registered at run time."""
    sys.path.insert(0, str(NQUEENS))
    import puzzlesat_nqueens
    from puzzlesat_nqueens import puzzle
    ps.register_family(puzzlesat_nqueens.FAMILY)
    yield puzzlesat_nqueens.FAMILY, puzzle
    ps.unregister_family("nqueens")
    sys.path.remove(str(NQUEENS))


# ---- discovery: installed plug-ins that fail ---------------------------------------------------

def _dist(site: Path, name: str, entry_points: str, files: dict[str, str]) -> None:
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for fn, text in files.items():
        (site / fn).write_text(textwrap.dedent(text))


# the plug-ins of a site folder: two good (n-queens as goodq, and txtq, which reads .txt as maze
# does), and one each way of failing (two for a name two plug-ins give); the checks look at
# these only, whatever else is installed
BAD = {"brokenimport": "needs libfoo", "lacking": "lacks 'check'", "notafamily": "not a puzzlesat.Family",
       "peg-again": "built-in family's", "brokeneng": "no_such_engine_module",
       "unknownfam": "unknown puzzle family 'nosuchfamily'",
       "twin-a": "family name 'twin' is also given by twin-b = twinb_mod:FAMILY: both are skipped",
       "twin-b": "family name 'twin' is also given by twin-a = twina_mod:FAMILY: both are skipped"}


def _site(tmp: Path) -> Path:
    site = tmp / "site"
    _dist(site, "brokenimport", "[puzzlesat.families]\nbrokenimport = broken_mod:FAMILY\n",
          {"broken_mod.py": 'raise ImportError("needs libfoo, which is not installed")\n'})
    _dist(site, "lacking", "[puzzlesat.families]\nlacking = lacking_mod:FAMILY\n",
          {"lacking_mod.py": '''
              from puzzlesat import Family
              KIND, SENSE = "lacking", None
              def catalogue(): return {}
              FAMILY = Family("lacking", __name__, ())
              '''})
    _dist(site, "notafamily", "[puzzlesat.families]\nnotafamily = notfam_mod:THING\n",
          {"notfam_mod.py": "THING = 42\n"})
    _dist(site, "pegagain", "[puzzlesat.families]\npeg-again = pegagain_mod:FAMILY\n",
          {"pegagain_mod.py": '''
              import dataclasses
              from puzzlesat_nqueens import FAMILY as Q
              FAMILY = dataclasses.replace(Q, name="peg")
              '''})
    for t in "ab":  # two plug-ins that give one family name
        _dist(site, f"twin{t}", f"[puzzlesat.families]\ntwin-{t} = twin{t}_mod:FAMILY\n",
              {f"twin{t}_mod.py": '''
                  import dataclasses
                  from puzzlesat_nqueens import FAMILY as Q
                  FAMILY = dataclasses.replace(Q, name="twin")
                  '''})
    _dist(site, "goodq", "[puzzlesat.families]\ngoodq = goodq_mod:FAMILY\n",
          {"goodq_mod.py": '''
              """n-queens under its own name and kind (whatever else is installed)."""
              import dataclasses
              from puzzlesat_nqueens.puzzle import *
              from puzzlesat_nqueens import FAMILY as Q
              KIND = "goodq"
              FAMILY = dataclasses.replace(Q, name="goodq", puzzle=__name__)
              '''})
    shutil.copytree(NQUEENS / "puzzlesat_nqueens", site / "puzzlesat_nqueens",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _dist(site, "txtq", "[puzzlesat.families]\ntxtq = txtq_mod:FAMILY\n",
          {"txtq_mod.py": '''
              """n-queens again, reading a board size from a .txt file (the suffix maze reads)."""
              import dataclasses
              from puzzlesat_nqueens.puzzle import *
              from puzzlesat_nqueens.puzzle import Queens
              from puzzlesat_nqueens import FAMILY as Q
              KIND = "txtq"
              INSTANCE_TYPES = (Queens,)
              SUFFIXES = {".txt": lambda path, text: Queens(str(path), int(text))}
              FAMILY = dataclasses.replace(Q, name="txtq", puzzle=__name__)
              '''})
    _dist(site, "brokeneng", "[puzzlesat.engines]\nbrokeneng = no_such_engine_module:ENGINES\n", {})
    _dist(site, "unknownfam", "[puzzlesat.engines]\nunknownfam = unknownfam_mod:ENGINES\n",
          {"unknownfam_mod.py": '''
              import puzzlesat
              ENGINES = [puzzlesat.UserEngine("nosuchfamily", "x:y", lambda i, t, c: None)]
              '''})
    return site


def _ours(stderr: str) -> list[str]:
    """The lines about this test's plug-ins (another plug-in installed may warn too)."""
    return [ln for ln in stderr.splitlines()
            if any(f"'{name}'" in ln for name in BAD) or "maze and txtq" in ln]


def test_broken_plugins_are_skipped_with_one_line_each(tmp_path):
    site = _site(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(site)}

    def cli(*args):
        return helpers.cli(*args, cwd=tmp_path, env=env, timeout=300)
    p = cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"puzzlesat {ps.__version__}", p.stderr
    assert cli("--help").returncode == 0
    p = cli("list", "peg", "--json")
    assert p.returncode == 0 and len(json.loads(p.stdout)) == 28, p.stderr
    families_only = _ours(p.stderr)  # engine entry points load when engines are looked at
    assert len(families_only) == len(BAD) - 2 + 1 and "Traceback" not in p.stderr, p.stderr
    p = cli("engines", "peg", "--json")
    assert p.returncode == 0 and "native:iddfs" in p.stdout, p.stderr
    lines = p.stderr.splitlines()
    assert "Traceback" not in p.stderr and all(ln.startswith("puzzlesat: warning: ") for ln in lines)
    for name, why in BAD.items():  # each plug-in once, with why
        assert sum(f"'{name}'" in ln and why in ln for ln in lines) == 1, (name, lines)
    assert sum("suffix '.txt'" in ln and "maze and txtq" in ln for ln in lines) == 1, lines
    assert len(_ours(p.stderr)) == len(BAD) + 1, lines
    p = cli("plugins", "--json")
    assert p.returncode == 0, p.stderr
    listed = {(e["group"], e["name"]): e for e in json.loads(p.stdout)}
    for name, why in BAD.items():
        group = "puzzlesat.engines" if name in ("brokeneng", "unknownfam") else "puzzlesat.families"
        assert listed[group, name]["status"] == "skipped" and why in listed[group, name]["error"]
    assert listed["puzzlesat.families", "goodq"]["status"] == "ok"
    assert listed["puzzlesat.families", "goodq"]["provides"] == ["goodq"]
    assert listed["conflict", "suffix .txt"]["provides"] == ["maze", "txtq"]
    p = cli("list", "--verbose")
    assert p.returncode == 0 and "needs libfoo" in p.stdout and "txtq" in p.stdout, p.stderr
    # the built-in families and the good plug-ins work
    p = cli("solve", "peg/hoppers", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["objective"] == 7, p.stderr
    p = cli("solve", "goodq/queens-6", "--task", "count", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["count"] == 4, p.stderr
    # the suffix both read: refused in one line naming both; --family settles it
    shutil.copy(MAZE, tmp_path / "m.txt")
    (tmp_path / "six.txt").write_text("6\n")
    p = cli("solve", "m.txt")
    assert p.returncode == 2 and "maze and txtq" in p.stderr and "--family" in p.stderr
    assert p.stderr.splitlines()[-1].startswith("puzzlesat: error:")
    p = cli("solve", "m.txt", "--family", "maze", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["objective"] == 36, p.stderr
    p = cli("solve", "six.txt", "--family", "txtq", "--task", "count", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["count"] == 4, p.stderr


def test_discovery_in_the_api_warns_once_and_lists(tmp_path, caplog):
    site = _site(tmp_path)
    sys.path.insert(0, str(site))
    try:
        registry._rediscover()
        registry._REPORTED.clear()
        with caplog.at_level(logging.WARNING, logger="puzzlesat.plugins"):
            assert ps.load("peg/hoppers").name == "hoppers"
            assert [e.name for e in ps.engines("peg")][0] == "native:iddfs"  # engine entry points
            ps.load("sliding/8-easy")
            infos = ps.plugins()
        warned = _ours("\n".join(r.getMessage() for r in caplog.records if r.name == "puzzlesat.plugins"))
        assert len(warned) == len(BAD) + 1 == len(set(warned)), warned
        bad = {p.name: p.error for p in infos if p.error}
        assert set(BAD) | {"suffix .txt"} <= set(bad) and not {"goodq", "txtq"} & set(bad)
        assert all(why in bad[name] for name, why in BAD.items())
        assert ps.family_of(ps.load("txtq/queens-5")).name == "txtq"
    finally:
        sys.path.remove(str(site))
        getattr(registry, "_rediscover", lambda: None)()


# ---- a plug-in family's code raising ------------------------------------------------------------

class Misbehaving:
    """The n-queens puzzle (a plug-in's), whose members named in `fail` raise ZeroDivisionError."""

    KIND, SENSE = "badq", None

    def __init__(self, puzzle):
        self.q, self.fail = puzzle, set()

    def _go(self, what: str) -> None:
        if what in self.fail:
            raise ZeroDivisionError(f"{what} divided by zero")

    def catalogue(self):
        self._go("catalogue")
        return {"queens-6": lambda: self.q.Queens("queens-6", 6)}

    def from_toml(self, data, src):
        self._go("from_toml")
        return self.q.from_toml({k: v for k, v in data.items() if k != "kind"}, src)

    def check(self, inst, sol):
        self._go("check")
        return self.q.check(inst, sol)

    def solution_json(self, inst, sol):
        self._go("solution_json")
        return self.q.solution_json(inst, sol)

    def solution_from_json(self, inst, data):
        return self.q.solution_from_json(inst, data)

    def solution_key(self, inst, sol):
        self._go("solution_key")
        return tuple(sol)

    def describe(self, inst):
        self._go("describe")
        return self.q.describe(inst)

    def render(self, inst, sol=None):
        self._go("render")
        return self.q.render(inst, sol)

    def svg(self, inst, sol=None):
        self._go("svg")
        return self.q.svg(inst, sol)

    def infeasible_reason(self, inst):
        self._go("infeasible_reason")
        return None

    def to_toml(self, inst):
        self._go("to_toml")
        return f'kind = "badq"\nn = {inst.n}\n'

    @property
    def SUFFIXES(self):  # a board size in a .bq file
        return {".bq": self._read_file}

    @property
    def COLLECTIONS(self):  # a board size a line in a .bql file
        return {".bql": self._read_line}

    def _read_file(self, path, text):
        self._go("read_file")
        return self.q.Queens(str(path), int(text))

    def _read_line(self, line, src):
        self._go("read_line")
        if "plain" in self.fail and line.strip() == "5":  # InputError naming neither file nor line
            raise ps.InputError("5 is not allowed here")
        return self.q.Queens(src.name, int(line))


@pytest.fixture
def badq(nq):
    fam, puzzle = nq
    bad = Misbehaving(puzzle)
    ps.register_family(dataclasses.replace(fam, name="badq", puzzle=bad, code=""))
    yield bad
    ps.unregister_family("badq")


@pytest.mark.parametrize("member", ["check", "solution_key", "infeasible_reason"])
def test_a_plugin_member_raising_in_a_run_makes_it_error(badq, member):
    inst = ps.load("badq/queens-6")
    assert ps.solve(inst, "native", "count").count == 4
    badq.fail.add(member)
    r = ps.solve(inst, "native", "count")
    assert r.status is Status.ERROR and "\n" not in r.reason, r.reason
    assert r.reason.startswith(f"plug-in family badq (module {__name__}): {member} raised "
                               f"ZeroDivisionError: {member} divided by zero (at test_plugin_containment.py:")
    c = ps.compare(inst, ["native", "sat"], "count")  # the comparison goes on, reporting both
    assert [x.status for x in c.results] == [Status.ERROR] * 2 and c.verdict is not ps.Verdict.AGREE


@pytest.mark.parametrize("member, call", [
    ("from_toml", lambda: ps.load('kind = "badq"\nn = 6\n')),
    ("catalogue", lambda: ps.load("badq/queens-6")),
    ("catalogue", lambda: ps.catalogue("badq")),
    ("check", lambda: ps.check(ps.load("badq/queens-6"), {"columns": [1, 3, 5, 0, 2, 4]})),
    ("describe", lambda: ps.family_of(i := ps.load("badq/queens-6")).describe(i)),
    ("render", lambda: ps.family_of(i := ps.load("badq/queens-6")).render(i)),
    ("svg", lambda: ps.svg(ps.load("badq/queens-6"))),
    ("to_toml", lambda: ps.family_of(i := ps.load("badq/queens-6")).to_toml(i)),
])
def test_a_plugin_member_raising_is_one_plugin_error(badq, member, call):
    call()  # works before it fails
    badq.fail.add(member)
    where = "<text>: " if member == "from_toml" else ""  # the TOML text's name, as for its errors
    with pytest.raises(ps.PluginError, match=rf"^{where}plug-in family badq .*: {member} raised "
                                             r"ZeroDivisionError: .* \(at test_plugin_containment.py:\d+\)$") as e:
        call()
    assert isinstance(e.value, ps.InputError) and e.value.plugin == "badq"


@pytest.mark.parametrize("member, args", [("describe", ("show", "badq/queens-6")),
                                          ("render", ("show", "badq/queens-6")),
                                          ("svg", ("show", "badq/queens-6", "--svg", "x.svg")),
                                          ("svg", ("solve", "badq/queens-6", "--picture", "y.svg")),
                                          ("catalogue", ("list", "badq")),
                                          ("from_toml", ("solve", "q.toml")),
                                          ("solution_json", ("solve", "badq/queens-6", "--json"))])
def test_the_command_line_prints_one_line_and_exits_2(badq, member, args, tmp_path):
    (tmp_path / "q.toml").write_text('kind = "badq"\nn = 5\n')
    assert helpers.cli(*args, cwd=tmp_path).returncode == 0
    badq.fail.add(member)
    p = helpers.cli(*args, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    [line] = p.stderr.splitlines()
    assert line.startswith("puzzlesat: error: ") and "badq" in line and f"{member} raised" in line


def test_a_plugin_file_reader_raising_is_one_line_naming_the_file_and_line(badq, tmp_path):
    one, lines = tmp_path / "six.bq", tmp_path / "b.bql"
    one.write_text("6\n")
    lines.write_text("6\n\n5\n")
    assert ps.load(one).n == 6 and [(i.name, i.n) for i in ps.load_all(lines)] == [(f"{lines}#1", 6),
                                                                                 (f"{lines}#3", 5)]
    assert helpers.cli("solve", "b.bql", "--task", "count", cwd=tmp_path).returncode == 0
    badq.fail |= {"read_file", "read_line"}
    at = r" \(at test_plugin_containment.py:\d+\)$"
    with pytest.raises(ps.PluginError, match=rf"^{one}: plug-in family badq .*: the .bq reader raised "
                                             rf"ZeroDivisionError: read_file divided by zero{at}"):
        ps.load(one)
    with pytest.raises(ps.PluginError, match=rf"^{lines}:1: plug-in family badq .*: the .bql collection "
                                             rf"reader raised ZeroDivisionError: read_line divided by zero{at}"):
        ps.load_all(lines)
    for args in (("solve", "b.bql"), ("compare", "b.bql"), ("show", "six.bq")):
        p = helpers.cli(*args, cwd=tmp_path)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        [line] = p.stderr.splitlines()
        assert line.startswith("puzzlesat: error: ") and "reader raised ZeroDivisionError" in line
    # a reader's own InputError that names no place is given the file and line read
    badq.fail = {"plain"}
    with pytest.raises(ps.InputError, match=rf"^{lines}:3: 5 is not allowed here$"):
        ps.load_all(lines)
    p = helpers.cli("solve", "b.bql", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr == "puzzlesat: error: b.bql:3: 5 is not allowed here\n"


def test_a_built_in_familys_exceptions_stay_bugs(monkeypatch):
    from puzzlesat.puzzles import peg
    monkeypatch.setattr(peg, "describe", lambda inst: 1 / 0)
    fam = ps.family_of(ps.load("peg/hoppers"))
    with pytest.raises(ZeroDivisionError):
        fam.describe(ps.load("peg/hoppers"))


def test_a_plugin_engine_that_cannot_be_imported_is_one_line():
    ps.register_engine("peg", "broken:import", "no_such_module_xyz:run", tasks=["optimize"])
    ps.register_engine("peg", "broken:validate", lambda i, t, c: Outcome(Status.UNKNOWN),
                       tasks=["optimize"], validate="no_such_module_xyz:check")
    try:
        r = ps.solve(ps.load("peg/hoppers"), "broken:import")
        assert r.status is Status.ERROR and "\n" not in r.reason, r.reason
        assert r.reason.startswith("engine could not be loaded (no_such_module_xyz:run): "
                                   "ModuleNotFoundError: No module named 'no_such_module_xyz'")
        with pytest.raises(ps.PluginError, match=r"^user engine broken:validate: engine "
                           r"broken:validate: validate \(no_such_module_xyz:check\) raised "
                           "ModuleNotFoundError"):
            ps.solve(ps.load("peg/hoppers"), "broken:validate")
    finally:
        ps.unregister_engine("peg", "broken:import")
        ps.unregister_engine("peg", "broken:validate")


def _raises(inst, task, ctx):
    raise RuntimeError("boom,\n  on a second line")


def test_an_engine_that_raises_is_error_with_one_line_naming_what_and_where(tmp_path):
    ps.register_engine("peg", "crashes", _raises, tasks=["optimize"])
    try:
        r = ps.solve(ps.load("peg/hoppers"), "crashes")
    finally:
        ps.unregister_engine("peg", "crashes")
    assert r.status is Status.ERROR and r.reason == (
        "engine raised RuntimeError: boom, on a second line (at test_plugin_containment.py:"
        f"{_raises.__code__.co_firstlineno + 1})")
    p = helpers.cli("solve", "peg/hoppers", "--engine", f"{__file__}:_raises", "--json", cwd=tmp_path)
    assert p.returncode == 1 and json.loads(p.stdout)["reason"] == r.reason, p.stdout + p.stderr
    p = helpers.cli("compare", "peg/hoppers", "--engines", f"native,{__file__}:_raises", cwd=tmp_path)
    assert "engine raised RuntimeError: boom, on a second line" in p.stdout and "Traceback" not in p.stdout


# ---- which family an instance belongs to ---------------------------------------------------------

def _other(inst, task, ctx):
    """Counts by brute force over permutations (an engine only the variant family has)."""
    import itertools
    from puzzlesat_nqueens.puzzle import check
    sols = []
    for p in itertools.permutations(range(inst.n)):
        try:
            check(inst, p)
        except ps.CheckError:
            continue
        sols.append(p)
    return Outcome(Status.OPTIMAL if sols else Status.INFEASIBLE, count=len(sols), solutions=tuple(sols))


class Variant:
    """The n-queens puzzle under another kind, sharing its instance class."""

    KIND = "queens2"

    def __init__(self, puzzle):
        self.q = puzzle
        self.INSTANCE_TYPES = (puzzle.Queens,)

    def __getattr__(self, name):
        return getattr(self.q, name)

    def from_toml(self, data, src):
        return self.q.from_toml({k: v for k, v in data.items() if k != "kind"}, src)


@pytest.fixture
def queens2(nq):
    fam, puzzle = nq
    v = dataclasses.replace(fam, name="queens2", puzzle=Variant(puzzle), code="",
                            engines=(*fam.engines, Engine("native:other", _other, (Task.COUNT,))))
    ps.register_family(v)
    yield puzzle
    ps.unregister_family("queens2")


def test_two_families_sharing_an_instance_class_run_their_own_engines(queens2):
    mine = ps.load("queens2/queens-6")
    assert type(mine) is type(ps.load("nqueens/queens-6"))
    assert ps.family_of(mine).name == "queens2" and ps.family_of(ps.load("nqueens/queens-6")).name == "nqueens"
    r = ps.solve(mine, "native:other", "count")
    assert r.status is Status.OPTIMAL and r.count == 4 and r.family == "queens2"
    with pytest.raises(ps.InputError, match="unknown engine 'native:other' for nqueens"):
        ps.solve(ps.load("nqueens/queens-6"), "native:other", "count")
    assert ps.family_of(ps.load("n = 6\n", family="queens2")).name == "queens2"
    with pytest.raises(ps.InputError, match="could be an instance of families nqueens and queens2"):
        ps.family_of(queens2.Queens("by-hand", 6))  # built by hand: which one? loud, not a guess


def test_a_kind_two_families_read_needs_family(nq):
    fam, puzzle = nq
    ps.register_family(dataclasses.replace(fam, name="nqueens-again", code=""))
    try:
        with pytest.raises(ps.InputError, match="kind 'nqueens' is read by families nqueens and "
                                                "nqueens-again: .*--family nqueens\\|nqueens-again"):
            ps.load('kind = "nqueens"\nn = 6\n')
        got = ps.load('kind = "nqueens"\nn = 6\n', family="nqueens-again")
        assert ps.family_of(got).name == "nqueens-again" and got.n == 6
        assert ps.load("nqueens/queens-4").n == 4  # the rest of both families works
        assert [p.provides for p in ps.plugins() if p.name == "kind nqueens"] == [("nqueens", "nqueens-again")]
    finally:
        ps.unregister_family("nqueens-again")
    assert ps.load('kind = "nqueens"\nn = 6\n').n == 6


def test_a_suffix_two_families_read_needs_family(nq, tmp_path):
    fam, puzzle = nq
    mod = type(sys)("txtq_runtime")
    mod.__dict__.update({k: getattr(puzzle, k) for k in dir(puzzle) if not k.startswith("_")})
    mod.KIND, mod.SUFFIXES = "txtq", {".txt": lambda path, text: puzzle.Queens(str(path), int(text))}
    ps.register_family(dataclasses.replace(fam, name="txtq", puzzle=mod, code=""))
    (tmp_path / "six.txt").write_text("6\n")
    try:
        with pytest.raises(ps.InputError, match=r"m.txt: suffix '.txt' is read by families maze and txtq"):
            ps.load(str(shutil.copy(MAZE, tmp_path / "m.txt")))
        assert ps.family_of(ps.load(tmp_path / "m.txt", family="maze")).name == "maze"
        six = ps.load(tmp_path / "six.txt", family="txtq")
        assert ps.family_of(six).name == "txtq" and ps.solve(six, "native", "count").count == 4
        with pytest.raises(ps.InputError, match="family peg reads no .txt files"):
            ps.load(tmp_path / "six.txt", family="peg")
    finally:
        ps.unregister_family("txtq")
    assert ps.family_of(ps.load(tmp_path / "m.txt")).name == "maze"
