"""The Lights Out plug-in against its published values (OEIS A075464 minimum presses, A159257
null-space dimensions) with every engine, against a brute-force oracle (every press set through
the checker) on tiny boards, on hypothesis-generated random boards where all engines must agree,
on bad input, and puzzlesat's conformance kit."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import puzzlesat as ps
from puzzlesat.engine import cpsat_enumerate, sat_enumerate
from puzzlesat.testing import assert_family_conforms
from puzzlesat_lightsout import FAMILY
from puzzlesat_lightsout import models, native
from puzzlesat_lightsout.puzzle import (A075464, A159257, LightsOut, board, check, from_rows,
                                        infeasible_reason, quiet_patterns, solution_from_json,
                                        solution_json)

ENGINES = ("native", "cpsat", "sat")


@pytest.fixture(scope="module", autouse=True)
def family():
    """Registered at run time when the plug-in is not installed (then its entry point is)."""
    if "lightsout" not in [e.family for e in ps.engines()]:
        ps.register_family(FAMILY)
    yield


def brute(inst: LightsOut) -> tuple[int | None, int]:
    """Every press set through the checker: (fewest presses or None, how many sets reach it)."""
    best, count = None, 0
    n = inst.rows * inst.cols
    for mask in range(1 << n):
        presses = tuple(i for i in range(n) if mask >> i & 1)
        try:
            v = check(inst, presses)
        except ps.CheckError:
            continue
        if best is None or v < best:
            best, count = v, 0
        count += v == best
    return best, count


def run_in_process(inst: LightsOut, engine: str, task: str, **options) -> ps.Outcome:
    """An engine's outcome called directly (no worker process), its claims checked here as the
    runner checks them: every solution passes the checker, distinct, count = their number, the
    optimum is every solution's value."""
    eng = FAMILY.engine(engine)
    t = ps.Task(task)
    out = eng.function()(inst, t, ps.Context(eng.resolve_options(options, t), time_limit=120))
    values = [check(inst, s) for s in out.solutions]
    assert len({tuple(sorted(s)) for s in out.solutions}) == len(out.solutions)
    if out.status is ps.Status.INFEASIBLE:
        assert not out.solutions
    elif t is ps.Task.COUNT:
        assert out.status is ps.Status.OPTIMAL and out.count == len(out.solutions)
        assert set(values) == {out.objective}
    elif t is ps.Task.OPTIMIZE:
        assert out.status is ps.Status.OPTIMAL and values == [out.objective]
    return out


# ---- published anchors -----------------------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 11))
def test_all_on_boards_match_oeis_a075464_with_every_engine(n):
    inst = ps.load(f"lightsout/allon-{n}")
    assert FAMILY.describe(inst)["known_min_presses"] == A075464[n - 1]
    c = ps.compare(inst, list(ENGINES), "count", time_limit=120)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    assert {r.objective for r in c.results} == {A075464[n - 1]}
    assert len({r.count for r in c.results}) == 1
    native_run = c.results[0]
    assert native_run.stats["null_space_dim"] == A159257[n - 1]


@pytest.mark.parametrize("n", range(1, 21))
def test_null_space_dimensions_match_oeis_a159257(n):
    """Both the elimination (native) and light chasing (the checker's module) give A159257."""
    inst = board(f"allon-{n}", n, n)
    assert len(quiet_patterns(inst)) == A159257[n - 1]
    assert len(native.eliminate(inst)[1]) == A159257[n - 1]


def test_five_by_five_every_solvable_start_has_exactly_four_solutions():
    """Null space of dimension 2 (Anderson & Feil): each solvable 5x5 start has 2^2 solutions,
    counted without a bound by CP-SAT and by SAT enumeration, each passing the checker; an
    unsolvable start has none, and infeasible_reason says so."""
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for i in range(24):
        if i % 2:  # a start made by random presses: solvable
            start = board("s", 5, 5, ())
            for cell in rng.sample(range(25), rng.randint(0, 25)):
                start = _pressed(start, cell)
        else:      # uniformly random: solvable with probability 1/4
            start = board("u", 5, 5, [c for c in range(25) if rng.random() < 0.5])
        m, x = models.cpsat_model(start)
        st_cp, vals = cpsat_enumerate(m, x, ps.Context())
        clauses, xs, _ = models.cnf(start, 4)
        sat = list(sat_enumerate(clauses, xs, ps.Context()))
        solvable = infeasible_reason(start) is None
        seen[solvable] += 1
        want = 4 if solvable else 0
        assert len(vals) == len(sat) == want, (start, solvable)
        for t in vals:
            check(start, tuple(j for j, v in enumerate(t) if v))
        for true in sat:
            check(start, tuple(v - 1 for v in true))
        assert {tuple(j for j, v in enumerate(t) if v) for t in vals} == \
            {tuple(sorted(v - 1 for v in true)) for true in sat}
    assert seen[True] >= 12 and seen[False] >= 3


def _pressed(inst: LightsOut, cell: int) -> LightsOut:
    """The board after pressing `cell` (written here from the rules)."""
    r, c = divmod(cell, inst.cols)
    on = set(inst.on)
    for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < inst.rows and 0 <= cc < inst.cols:
            on ^= {rr * inst.cols + cc}
    return board(inst.name, inst.rows, inst.cols, on)


# ---- brute force -----------------------------------------------------------------------------
def test_every_start_of_tiny_boards_against_brute_force():
    """Every start of every board up to 6 cells, and 40 random starts of 3x3 and 2x5: the native
    engine and the solvability invariant against all 2^(mn) press sets through the checker."""
    rng = random.Random(3)
    insts = []
    for rows, cols in ((1, 1), (1, 2), (1, 3), (2, 2), (1, 4), (1, 5), (2, 3), (3, 2), (1, 6)):
        for mask in range(1 << (rows * cols)):
            insts.append(board(f"b{rows}x{cols}-{mask}", rows, cols,
                               [i for i in range(rows * cols) if mask >> i & 1]))
    for rows, cols in ((3, 3), (2, 5), (4, 2)):
        for _ in range(20):
            insts.append(board(f"r{rows}x{cols}", rows, cols,
                               [i for i in range(rows * cols) if rng.random() < 0.5]))
    unsolvable = 0
    for inst in insts:
        best, count = brute(inst)
        assert (infeasible_reason(inst) is None) == (best is not None), inst
        out = run_in_process(inst, "native", "count")
        if best is None:
            unsolvable += 1
            assert out.status is ps.Status.INFEASIBLE
        else:
            assert (out.objective, out.count) == (best, count), inst
    assert unsolvable > 20  # e.g. 1x2 and 2x3 have quiet patterns: some starts are unsolvable


@pytest.mark.parametrize("name", ["allon-2x3", "allon-3x4", "allon-4", "random-4x7", "corner-5",
                                  "centre-5", "dark-4"])
def test_catalogue_boards_every_engine_agrees(name):
    """Rectangles, random and single-light starts: all engines agree; where the board has at most
    16 cells, with the brute force too."""
    inst = ps.load(f"lightsout/{name}")
    c = ps.compare(inst, list(ENGINES), "count", time_limit=120, precheck=False)
    assert c.verdict is ps.Verdict.AGREE, c.reasons
    if inst.rows * inst.cols <= 16:
        best, count = brute(inst)
        assert {(r.objective, r.count) for r in c.results} == {(best, count)}


def test_unsolvable_start_is_infeasible_with_the_reason():
    inst = ps.load("lightsout/corner-5")
    reason = infeasible_reason(inst)
    assert "column space" in reason and "quiet pattern" in reason
    r = ps.solve(inst, "native", "optimize")  # the precheck answers at once
    assert r.status is ps.Status.INFEASIBLE and r.reason == reason
    for task in ("optimize", "count", "feasible"):
        c = ps.compare(inst, list(ENGINES), task, precheck=False, time_limit=60)
        assert c.verdict is ps.Verdict.AGREE and {r.status for r in c.results} == {ps.Status.INFEASIBLE}
    assert infeasible_reason(ps.load("lightsout/centre-5")) is None


# ---- random boards: all engines agree ----------------------------------------------------------
@st.composite
def boards(draw):
    rows = draw(st.integers(1, 5))
    cols = draw(st.integers(1, 6))
    on = draw(st.sets(st.integers(0, rows * cols - 1)))
    return board("hyp", rows, cols, on)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.sampled_from(("optimize", "count", "feasible")))
def test_random_boards_all_engines_agree(inst, task):
    outs = [run_in_process(inst, e, task) for e in ENGINES]
    solvable = infeasible_reason(inst) is None
    assert {o.status is ps.Status.INFEASIBLE for o in outs} == {not solvable}
    if solvable and task != "feasible":
        assert len({o.objective for o in outs}) == 1
        if task == "count":
            assert len({tuple(sorted(o.solutions)) for o in outs}) == 1


@pytest.mark.parametrize("opts", [dict(encoding=e, xor_cut=c, search=s)
                                  for e in ("seqcounter", "totalizer", "cardnetwrk")
                                  for c in (3, 4, 5) for s in ("descending", "ascending")])
def test_sat_options_give_the_same_answers(opts):
    for name, want in (("allon-5", (15, 4)), ("allon-4", (4, 2)), ("random-5x5", None)):
        inst = ps.load(f"lightsout/{name}")
        out = run_in_process(inst, "sat", "count", **opts)
        ref = run_in_process(inst, "native", "count")
        assert (out.objective, out.count) == (ref.objective, ref.count)
        assert want is None or (out.objective, out.count) == want


@pytest.mark.parametrize("size, centres", [(4, (5,)), (4, (5, 10)), (5, (6, 18)), (5, (0, 12, 24)),
                                           (9, (10, 13, 16, 37, 40, 43, 64, 67, 70))])
def test_optimum_at_the_lower_bound(size, centres):
    """Disjoint plus shapes on boards with many solutions: the optimum is one press per plus, equal
    to the bound ceil(lights / 5) for interior pluses; both SAT searches must reach it."""
    inst = board("plus", size, size, ())
    for c in centres:
        inst = _pressed(inst, c)
    want = len(centres)
    for search in ("descending", "ascending"):
        for solver in ("cadical195", "minisat22", "glucose4"):
            out = run_in_process(inst, "sat", "optimize", search=search, solver=solver)
            assert out.objective == want, (search, solver)
    assert run_in_process(inst, "cpsat", "optimize").objective == want
    assert run_in_process(inst, "native", "optimize").objective == want


def test_xor_cutting_encoding_is_exact():
    """The CNF of XOR(lits) = parity has, over its input literals, exactly the right models."""
    for k in range(1, 8):
        for cut in (3, 4, 5):
            for parity in (0, 1):
                top = [k]

                def new_var(top=top):
                    top[0] += 1
                    return top[0]
                cls = models.xor_clauses(list(range(1, k + 1)), parity, new_var, cut)
                models_seen = {tuple(sorted(t)) for t in sat_enumerate(cls, range(1, k + 1), ps.Context())}
                want = {tuple(v for v in range(1, k + 1) if bits >> (v - 1) & 1)
                        for bits in range(1 << k) if bin(bits).count("1") % 2 == parity}
                assert models_seen == want, (k, cut, parity)


@pytest.mark.parametrize("n", (4, 5, 9, 11))
def test_compiled_and_plain_python_kernel_agree(n, monkeypatch):
    """Short walks run the kernel's Python; with SHORT = 0 the compiled kernel walks them too."""
    inst = board(f"allon-{n}", n, n)
    plain = run_in_process(inst, "native", "count")
    monkeypatch.setattr(native, "SHORT", 0)
    compiled = run_in_process(inst, "native", "count")
    assert (plain.objective, plain.solutions) == (compiled.objective, compiled.solutions)
    assert plain.objective == A075464[n - 1]


def test_kernel_runs_as_plain_python_without_jit():
    """NUMBA_DISABLE_JIT=1: the kernel is a plain function (the engine's fallback path)."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("from numba.core import config; assert config.DISABLE_JIT\n"
            "from puzzlesat_lightsout import native\n"
            "from puzzlesat_lightsout.puzzle import board\n"
            "import puzzlesat as ps\n"
            "native.SHORT = 0\n"
            "out = native.run(board('b', 9, 9), ps.Task.COUNT, ps.Context())\n"
            "print(out.objective, out.count)\n")
    here = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": here + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["25", "6"]


def test_time_limit_is_unknown_never_optimal():
    """39 x 39 has a 32-dimensional null space (A159257): 2^32 solutions are not walked in 2 s."""
    inst = board("allon-39", 39, 39)
    r = ps.solve(inst, "native", "optimize", time_limit=2)
    assert r.status in (ps.Status.FEASIBLE, ps.Status.UNKNOWN)
    if r.status is ps.Status.FEASIBLE:
        assert r.objective == check(inst, r.solutions[0])
    r = ps.solve(inst, "native", "count", time_limit=2)
    assert r.status is ps.Status.UNKNOWN and r.count is None


# ---- surface: JSON, pictures, input ------------------------------------------------------------
def test_json_round_trip_and_pictures():
    inst = ps.load("lightsout/random-5x5")
    r = ps.solve(inst, "native", "count")
    for s in r.solutions:
        assert solution_from_json(inst, json.loads(json.dumps(solution_json(inst, s)))) == s
    back = ps.Result.from_record(json.loads(json.dumps(r.to_record())), FAMILY, inst)
    assert back.solutions == r.solutions and back.count == r.count
    assert ps.svg(inst, r.solutions[0]).startswith("<svg") and "circle" in ps.svg(inst, r.solutions[0])
    assert FAMILY.render(inst, r.solutions[0]).count("X") == r.objective
    with pytest.raises(ps.CheckError):
        solution_from_json(inst, {"presses": [[5, 0]]})
    with pytest.raises(ps.CheckError, match="pressed twice"):
        check(inst, (0, 0))
    with pytest.raises(ps.CheckError, match="still on"):
        check(inst, ())


def test_random_catalogue_boards_are_what_generate_draws():
    from puzzlesat_lightsout.puzzle import RANDOM, generate, to_toml
    seeds = {"random-4x7": (1, "uniform"), "random-6x6": (2, "uniform"), "random-7x9": (3, "uniform"),
             "random-5x5": (4, "pressed"), "random-8x8": (5, "pressed")}
    for name, lights in RANDOM.items():
        seed, how = seeds[name]
        made = generate(len(lights), len(lights[0]), seed, how, name=name)
        assert made == ps.load(f"lightsout/{name}")
        assert ps.load(to_toml(made)) == made
        assert how == "uniform" or infeasible_reason(made) is None


def test_generate_command_writes_a_board():
    from click.testing import CliRunner
    from puzzlesat_lightsout.cli import generate
    out = CliRunner().invoke(generate, ["-r", "3", "-c", "4", "-s", "7", "--how", "pressed"])
    assert out.exit_code == 0, out.output
    inst = ps.load(out.output)
    assert (inst.rows, inst.cols) == (3, 4) and infeasible_reason(inst) is None


def test_toml_boards_load():
    a = ps.load('kind = "lightsout"\nlights = ["10", "#."]\n')
    assert (a.rows, a.cols, a.on) == (2, 2, (0, 2))
    b = ps.load('kind = "lightsout"\nname = "x"\nrows = 2\ncols = 3\nlights = "all"\n')
    assert b == board("x", 2, 3)
    assert from_rows("y", ["11", "11"]) == board("y", 2, 2)


@pytest.mark.parametrize("text, match", [
    ('lights = "all"\nrows = 0\ncols = 3', "rows: expected an integer from 1 to 40"),
    ('lights = "all"\nrows = 2', 'lights: lights = "all" needs rows and cols'),
    ('lights = ["101", "01"]', "lights: row 1 has 2 cells, row 0 has 3"),
    ('lights = ["1x1"]', "lights: row 0: character 'x'"),
    ('lights = []', "lights: expected \"all\" or a non-empty list"),
    ('lights = ["11"]\nrows = 2', "rows: rows = 2 but lights has 1 rows"),
    ('lights = ["11"]\ncols = 3', "cols: cols = 3 but the lights rows have 2 cells"),
    ('lights = ["11"]\ncolour = "red"', "colour: unknown key 'colour'"),
    ('rows = 2\ncols = 2', "missing required key 'lights'"),
    ('lights = ["1"]\nname = 3', "name: expected a string"),
    ('lights = ["' + "1" * 41 + '"]', "lights: the board must be 1 to 40 cells on each side"),
])
def test_bad_input_names_the_field(text, match):
    with pytest.raises(ps.InputError, match=match):
        ps.load('kind = "lightsout"\n' + text + "\n")


def test_options_are_checked_before_running():
    inst = ps.load("lightsout/allon-3")
    with pytest.raises(ps.InputError, match="not incremental"):
        ps.solve(inst, "sat", "count", solver="kissat404")
    with pytest.raises(ps.InputError, match="xor_cut"):
        ps.solve(inst, "sat", xor_cut=2)
    with pytest.raises(ps.InputError, match="workers"):
        ps.solve(inst, "cpsat", workers=0)


def test_the_plug_in_uses_only_the_public_contract():
    """Every puzzlesat import of the package is the front door or puzzlesat.engine."""
    import ast
    from pathlib import Path
    pkg = Path(__file__).resolve().parents[1] / "puzzlesat_lightsout"
    seen = set()
    for f in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            seen |= {n for n in names if n.split(".")[0] == "puzzlesat"}
    assert seen == {"puzzlesat", "puzzlesat.engine"}


def test_the_family_conforms():
    """Contract, round trips, mutated solutions refused, every engine agreeing, bad input."""
    report = assert_family_conforms(
        FAMILY, ["lightsout/allon-4", "lightsout/corner-5", "lightsout/random-4x7"], time_limit=60,
        bad_toml={'kind = "lightsout"\nlights = "all"\nrows = 3\n': r"lights = \"all\" needs rows and cols",
                  'kind = "lightsout"\nlights = ["10", "1"]\n': r"row 1 has 1 cells, row 0 has 2"})
    assert report.agreed == 12 and report.mutations_rejected > 0, report  # 3 instances x 4 tasks (unique from count)
