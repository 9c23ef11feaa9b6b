"""Every engine option is set by some test (issue 17: 11 options never were). Each option set here
must change what it claims — a recorded solver parameter, a statistic, the work done — and never
the answer: the same status, objective and count as the default on a small instance (a
restricting option may only lose optimality: FEASIBLE, never a better or a wrong value).

`test_every_option_is_set_by_a_test` keeps it so: a new option without a test here or an
`options={...}` / `-o name=` elsewhere in tests/ fails it.
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import families, family
from puzzlesat.compare.runner import solve
from puzzlesat.puzzles import maze as M
from puzzlesat.puzzles import pentomino as P
from puzzlesat.core.result import Status, Task
from puzzlesat.puzzles.sliding import Sliding

TESTS = Path(__file__).resolve().parent


# ---- small instances ----------------------------------------------------------------------------
def _peg():
    return load_instance("peg/hoppers")[1]            # optimum 7 moves (SPEC §1)


def _pentomino():
    return P.make("4x5", "\n".join(["....."] * 4), "FLUY")   # 12 tilings (tests/test_pentomino.py)


def _sliding():
    return Sliding("t", 2, 3, (1, 2, 0, 4, 5, 3), (1, 2, 3, 4, 5, 0))  # blank down once: 1 move


def _maze(name="sample2"):
    return M.catalogue()[name]()                       # sample2: optimum 198, 2 optimal walks


INSTANCES = {"peg": _peg, "pentomino": _pentomino, "sliding": _sliding, "maze": _maze}
TASK = {"peg": Task.OPTIMIZE, "pentomino": Task.COUNT, "sliding": Task.COUNT, "maze": Task.COUNT}


@cache
def _run(fam: str, engine: str, opts: tuple = (), task: Task | None = None, inst: str | None = None):
    """One checked in-process run (cached: the default run is shared by every option's test)."""
    f = family(fam)
    i = load_instance(inst)[1] if inst else INSTANCES[fam]()
    return solve(f, i, engine, task or TASK[fam], options=dict(opts), time_limit=120, isolate=False)


def _answer(r):
    return r.status, r.objective, r.count


def _find(obj, key):
    """Every value recorded under `key` anywhere in nested params/stats."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                out.append(v)
            out += _find(v, key)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += _find(v, key)
    return out


def _same_answer(fam, engine, opts, **kw):
    """The run with `opts` and the default run: equal answers, both finished; returns both."""
    d, r = _run(fam, engine, (), **kw), _run(fam, engine, tuple(opts.items()), **kw)
    assert d.status in (Status.OPTIMAL, Status.FEASIBLE), (d.status, d.reason)
    assert _answer(r) == _answer(d), (opts, _answer(r), _answer(d), r.reason)
    assert r.checked == len(r.solutions) >= 1
    return d, r


# ---- CP-SAT parameters: every CP-SAT engine records them as pinned ---------------------------------
CPSAT = [(f.name, e.name) for f in families().values() if f.name in INSTANCES for e in f.engines
         if any(o.name == "linearization_level" for o in e.options)]  # built in (plug-ins: their tests)
CPSAT_PARAMS = [("workers", 2, "num_workers"), ("linearization_level", 1, "linearization_level"),
                ("seed", 7, "random_seed")]


@pytest.mark.parametrize("fam,engine", CPSAT)
@pytest.mark.parametrize("option,value,param", CPSAT_PARAMS)
def test_cpsat_parameters_reach_the_solver(fam, engine, option, value, param):
    """workers / linearization_level / seed: recorded in the pinned CP-SAT parameters of the run
    (enumeration for task count always uses one worker), the answer unchanged."""
    task = Task.FEASIBLE if fam == "pentomino" else Task.OPTIMIZE
    d, r = _same_answer(fam, engine, {option: value}, task=task)
    got = _find(r.params, param) + _find(r.stats, param)
    assert value in got, (option, r.params, r.stats)
    assert value not in _find(d.params, param) + _find(d.stats, param)


# ---- peg ----------------------------------------------------------------------------------------
def _size(r):
    """(variables, constraints or clauses): the model size the engine reports, as numbers."""
    return r.stats["vars"], r.stats.get("clauses", r.stats.get("constraints"))


@pytest.mark.parametrize("engine", ["cpsat:time", "sat:time"])
def test_peg_invariants_add_the_parity_constraints(engine):
    """ipc-p01 (optimum 3; hoppers' board has no position classes, so nothing to add there)."""
    d, r = _same_answer("peg", engine, {"invariants": False}, inst="peg/ipc-p01")
    assert _size(r)[1] < _size(d)[1], (_size(r), _size(d))


@pytest.mark.parametrize("engine", ["cpsat:ordered", "sat:ordered"])
def test_peg_prefix_sets_the_symmetric_prefix(engine):
    """prefix=0: no symmetry clauses on the first jumps (and the commuting order from the first
    jump on); prefix=4: the non-canonical prefixes of 4 jumps forbidden (a larger model); the
    optimum 7 stays."""
    from puzzlesat.models.peg import ordered
    d, none = _same_answer("peg", engine, {"prefix": 0})
    _, deep = _same_answer("peg", engine, {"prefix": 4})
    assert _size(d)[1] < _size(deep)[1] and _size(none) != _size(d), (_size(none), _size(d))
    groups = {p: ordered.build(_peg(), prefix=p).f.groups for p in (0, 2, 4)}
    assert "symmetric prefix" not in groups[0]
    assert 0 < len(groups[2]["symmetric prefix"]) < len(groups[4]["symmetric prefix"])


def test_peg_strategy_minimize_uses_one_objective_solve():
    """descend: a decision call per bound (stats 'decisions'); minimize: CP-SAT's objective."""
    d, r = _same_answer("peg", "cpsat:time", {"strategy": "minimize"}, inst="peg/ipc-p01")
    assert len(d.stats["decisions"]) > 1
    assert r.params["strategy"] == "minimize" and len(r.stats.get("decisions", [])) <= 1, r.stats


# ---- pentomino ----------------------------------------------------------------------------------
def test_pentomino_scan_order_changes_the_search_tree():
    """scan=long: cells scanned along the long side — another search tree (nodes), same 12."""
    d, r = _same_answer("pentomino", "native:dfs", {"scan": "long"})
    assert r.params["scan"] == "long" and r.stats["nodes"] != d.stats["nodes"]


# ---- sliding ------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["cpsat:time", "sat:time"])
def test_sliding_max_horizon_bounds_the_search(engine):
    """At the optimum's length the answer is the same; below it the engine gives up (UNKNOWN,
    never INFEASIBLE: the position is solvable)."""
    d, r = _same_answer("sliding", engine, {"max_horizon": 1})
    assert d.objective == 1
    short = _run("sliding", engine, (("max_horizon", 0),))
    assert short.status is Status.UNKNOWN and "max_horizon=0" in short.reason, short.reason


# ---- maze ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("option,value", [("tt_bits", 0), ("refine", False), ("two_step", False)])
def test_maze_dfs_pruning_options_change_the_work(option, value):
    """Each pruning device, switched off, changes the vertices expanded, never the optimum."""
    d, r = _same_answer("maze", "native:dfs", {option: value}, task=Task.OPTIMIZE, inst="maze/11_56")
    assert r.stats["nodes"] != d.stats["nodes"]
    if option == "tt_bits":
        assert (r.stats["tt_bits_used"], d.stats["tt_bits_used"]) == (0, 20)


def test_maze_dfs_warm_and_growth_shape_the_probes():
    """warm: vertices of plain branch and bound before the probes (at most that many);
    growth: how fast the probes' gap grows (a larger factor, fewer probes)."""
    d, r = _same_answer("maze", "native:dfs", {"warm": 1000}, task=Task.OPTIMIZE, inst="maze/11_56")
    assert r.stats["warm_nodes"] <= 1000 < d.stats["warm_nodes"] and len(r.stats["probes"]) > 1
    d2, g = _same_answer("maze", "native:dfs", {"warm": 1000, "growth": 16.0}, task=Task.OPTIMIZE,
                         inst="maze/11_56")
    assert 1 <= len(g.stats["probes"]) < len(r.stats["probes"])


def test_maze_dfs_chunk_sets_the_kernel_calls():
    """chunk: at most that many vertices per kernel call, each followed by a progress report."""
    calls = []
    m = _maze("11_56")
    r = solve(family("maze"), m, "native:dfs", Task.OPTIMIZE, options={"chunk": 5000}, isolate=False,
              progress=calls.append)
    d = _run("maze", "native:dfs", (), task=Task.OPTIMIZE, inst="maze/11_56")
    assert _answer(r) == _answer(d)
    searches = 1 + len(r.stats["probes"])
    assert len(calls) >= r.stats["nodes"] // 5000 - searches, (len(calls), r.stats["nodes"])
    assert all(c["nodes"] <= r.stats["nodes"] for c in calls)


def test_maze_time_steps_restricts_the_walk_length():
    """steps = the number of free edges: the full model, same answer; fewer: walks of at most
    that many edges, FEASIBLE at best (a restricted model proves nothing)."""
    m = _maze("sample1")
    _same_answer("maze", "cpsat:time", {"steps": len(m.ops)}, task=Task.OPTIMIZE, inst="maze/sample1")
    r = _run("maze", "cpsat:time", (("steps", 4),), task=Task.OPTIMIZE, inst="maze/sample1")
    assert r.status is Status.FEASIBLE and len(r.solutions[0]) - 1 <= 4
    assert r.objective < 36 and "restricted" in r.reason


def test_maze_segments_restricts_the_multiplications():
    """segments = multiplications + 1: the full model; 1 segment: no multiplication at all."""
    m = _maze("sample1")
    muls = sum(1 for c, _ in m.ops if c == "*")
    _same_answer("maze", "cpsat:segments", {"segments": muls + 1}, task=Task.OPTIMIZE, inst="maze/sample1")
    r = _run("maze", "cpsat:segments", (("segments", 1),), task=Task.OPTIMIZE, inst="maze/sample1")
    assert r.status is Status.FEASIBLE and r.objective < 36 and "restricted" in r.reason
    eid = {e: i for i, e in enumerate(m.edges)}
    w = r.solutions[0]
    assert all(m.ops[eid[(min(a, b), max(a, b))]][0] != "*" for a, b in zip(w, w[1:]))


def test_maze_brute_max_trails_gives_up():
    d, r = _same_answer("maze", "native:brute", {"max_trails": 10 ** 6})
    short = _run("maze", "native:brute", (("max_trails", 10),))
    assert short.status in (Status.FEASIBLE, Status.UNKNOWN) and short.stats["trails"] == 10


# ---- the external-solver engine ------------------------------------------------------------------
def test_ext_dimacs_formulation_is_pinned_to_its_sat_engine():
    """ext:dimacs's "formulation" option names the hook it exports (that of the family's SAT
    engine): its one allowed value, recorded; any other is refused before running."""
    from puzzlesat.core.result import InputError
    for fam in families().values():
        ext = next((e for e in fam.engines if e.name == "ext:dimacs"), None)
        if ext is None:
            continue
        sat = next(e for e in fam.engines if e.formulation and e.name.startswith("sat"))
        assert ext.resolve_options({"formulation": sat.formulation})["formulation"] == sat.formulation
        with pytest.raises(InputError, match="choose one of"):
            ext.resolve_options({"formulation": "puzzlesat.models.maze.time_indexed:hook"})


def test_option_resolution_is_pure(tmp_path, monkeypatch):
    """Resolving options looks at nothing on the machine: with no program on PATH at all (no
    cadical, no minisat), every engine of every family resolves its defaults; the external
    program is looked for only when the engine is about to run, and then it is one InputError
    naming the program."""
    from puzzlesat.compare.runner import validate
    from puzzlesat.core.result import InputError
    monkeypatch.setenv("PATH", str(tmp_path))         # an empty folder: nothing is found
    for fam in families().values():
        for e in fam.engines:
            e.resolve_options({})
    fam, inst = load_instance("peg/hoppers")
    ext = fam.engine("ext:dimacs")
    with pytest.raises(InputError, match="'cadical' not found on PATH"):
        validate(fam, inst, ext, {})
    with pytest.raises(InputError, match="'minisat' not found on PATH"):
        ext.resolve_options({"cmd": "minisat {cnf} {model}"})   # given: checked at once
    with pytest.raises(InputError, match="empty command"):
        ext.resolve_options({"cmd": "  "})


# ---- completeness -------------------------------------------------------------------------------
def _set_elsewhere(name: str) -> bool:
    """`name` set as an engine option in another test file: `"name": v` in an options dict, or
    `-o name=v` / `"name=v"` on a command line."""
    pat = re.compile(r"""["']%s["']\s*:|["'](?:-o\s*)?(?:[\w:]+\.)?%s=""" % (name, name))
    return any(pat.search(p.read_text()) for p in TESTS.glob("test_*.py") if p.name != "test_options.py")


def test_every_option_is_set_by_a_test():
    here = Path(__file__).read_text()
    missing = [f"{f.name} {e.name} {o.name}" for f in families().values() if not f.user
               for e in f.engines for o in e.options  # the built-in engines (plug-ins: their tests)
               if not (re.search(r"""["']%s["']""" % o.name, here) or _set_elsewhere(o.name))]
    assert not missing, missing
