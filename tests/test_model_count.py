"""count:frontier: a family's formulation counted on its projection without listing the solutions
(models/count.py), exact, against published counts, the brute-force oracle and the enumerating
engines; a counter that stops is UNKNOWN, never a number."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

import puzzlesat as ps
from puzzlesat.core.result import InputError, Status
from puzzlesat.models.count import Counter, count_formulation
from puzzlesat.models.formulation import AtLeast, AtMost, Clause, ExactlyOne, Formulation, Xor
from puzzlesat.models.pentomino.cover import formulation as cover

ANY = '[pieces.{n}]\nshape = "{s}"\ncount = "any"\n'
MDT = "".join(ANY.format(n=n, s=s) for n, s in (("M", "#"), ("D", "##"), ("I", "###"), ("L", "##\\n#.")))


DOMINO = ANY.format(n="D", s="##")


def board(rows, cols, pieces=DOMINO):
    return ps.load(f'kind = "pentomino"\nname = "b"\nsize = [{cols}, {rows}]\n' + pieces)


@pytest.mark.parametrize("rows, cols, pieces, published", [
    (8, 8, ANY.format(n="D", s="##"), 12_988_816),    # OEIS A004003
    (4, 4, MDT, 177_332), (3, 3, MDT, 583)])         # = native:count and the models (test_counts)
def test_tilings_counted_from_the_formulation(rows, cols, pieces, published):
    n, why, stats = count_formulation(cover(board(rows, cols, pieces)))
    assert (n, why) == (published, None)


def brute(nvars, cons, proj):
    """The number of distinct projections of the satisfying assignments (brute force)."""
    seen = set()
    for bits in itertools.product((False, True), repeat=nvars):
        ok = True
        for kind, keys, k in cons:
            vals = [bits[i] if p else not bits[i] for i, p in keys]
            if kind == "or":
                ok = any(vals)
            elif kind == "xor":
                ok = sum(vals) % 2 == k % 2
            elif kind == "le":
                ok = sum(vals) <= k
            elif kind == "ge":
                ok = sum(vals) >= k
            else:
                ok = sum(vals) == 1
            if not ok:
                break
        if ok:
            seen.add(tuple(bits[i] for i in proj))
    return len(seen)


@st.composite
def formulas(draw):
    n = draw(st.integers(1, 7))
    cons = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["or", "xor", "le", "ge", "one"]))
        idx = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
        pols = [draw(st.booleans()) if kind == "or" else True for _ in idx]
        cons.append((kind, list(zip(idx, pols)), draw(st.integers(0, 3))))
    proj = sorted(draw(st.sets(st.integers(0, n - 1))))
    return n, cons, proj


def formulation_of(cons) -> Formulation:
    """The Formulation of a drawn constraint list (keys ("v", i)), projection unset."""
    f = Formulation("random")
    for kind, keys, k in cons:
        ks = tuple(("v", i) for i, _ in keys)
        if kind == "or":
            c = Clause(tuple((("v", i), p) for i, p in keys))
        elif kind == "xor":
            c = Xor(ks, k % 2)
        else:
            c = {"le": AtMost, "ge": AtLeast}[kind](ks, k) if kind != "one" else ExactlyOne(ks)
        f.add("c", c)
    return f


@settings(max_examples=120, deadline=None)
@given(formulas())
def test_projected_counts_equal_brute_force(case):
    n, cons, proj = case
    f = formulation_of(cons)
    f.projection = tuple(("v", i) for i in proj)
    mentioned = {i for _, keys, _ in cons for i, _ in keys} | set(proj)
    # keys in no constraint and outside the projection do not exist for the counter
    want = brute(n, cons, proj) if mentioned == set(range(n)) else None
    got, why, _ = count_formulation(f)
    if want is not None:
        assert (got, why) == (want, None), (cons, proj)


@settings(max_examples=80, deadline=None)
@given(formulas(), st.integers(0, 5))
def test_compiled_layers_equal_the_python_layers_and_brute_force(case, extra):
    """Every key projected: the compiled layers (models/_frontier.py), the Python layers and brute
    force give one count; `extra` free keys double it each (more bits than a word holds below)."""
    n, cons, _ = case
    f = formulation_of(cons)
    f.projection = tuple(("v", i) for i in range(n + extra))
    compiled = Counter(f).run()
    python = Counter(f).run(compiled=False)
    assert compiled[2]["layers"] == "compiled" and python[2]["layers"] == "python"
    assert compiled[:2] == python[:2] == (brute(n, cons, list(range(n))) * 2 ** extra, None)


def test_counts_past_64_bits_are_exact():
    """Counts beyond one uint64 (the limbs widen; never a float, never an overflow): 2 x 100
    dominoes = Fibonacci F(101), 90 free keys = 2^90, and Knuth's 8 x 8 mixed count (TAOCP 7.1.4)."""
    fib = [0, 1]
    while len(fib) < 102:
        fib.append(fib[-1] + fib[-2])
    assert count_formulation(cover(board(2, 100)))[:2] == (fib[101], None)
    assert fib[101] > 2**64
    f = Formulation("free")
    f.projection = tuple(("v", i) for i in range(90))
    assert count_formulation(f)[:2] == (2**90, None)
    n, why, stats = count_formulation(cover(board(8, 8, MDT)))
    assert (n, why) == (92_109_458_286_284_989_468_604, None) and stats["limbs"] >= 3


def test_compiled_layers_run_without_jit(no_jit):
    """The kernels run as plain Python under NUMBA_DISABLE_JIT=1 (6 x 6 dominoes: 6,728, OEIS
    A004003; a count past 2^64 from 70 free keys)."""
    code = ("import puzzlesat as ps\n"
            "from puzzlesat.models.count import Counter\n"
            "from puzzlesat.models.formulation import Formulation\n"
            "from puzzlesat.models.pentomino.cover import formulation\n"
            "inst = ps.load('kind = \"pentomino\"\\nname = \"d\"\\nsize = [6, 6]\\n"
            "[pieces.D]\\nshape = \"##\"\\ncount = \"any\"\\n')\n"
            "n, why, st = Counter(formulation(inst)).run()\n"
            "f = Formulation('free'); f.projection = tuple(range(70))\n"
            "print(n, st['layers'], Counter(f).run()[0] == 2**70)")
    assert no_jit(code).split() == ["6728", "compiled", "True"]


def test_engine_agrees_with_the_enumerating_engines_and_stops_honestly():
    inst = board(3, 3, MDT)
    c = ps.compare(inst, ["count:frontier", "native:count", "sat"], "count", time_limit=120)
    assert c.verdict.value == "AGREE", c.reasons
    assert [r.count for r in c.results] == [583, 583, 583]
    r = ps.solve(ps.load("pentomino/6x10"), "count:frontier", "count", memory_mb=1)
    assert (r.status, r.count) == (Status.UNKNOWN, None) and r.reason.startswith("memory")
    with pytest.raises(InputError, match="orbits need the"):
        ps.solve(inst, "count:frontier", "count", up_to_symmetry=True)


def test_an_optimisation_family_is_counted_at_its_optimum():
    r = ps.solve(ps.load("sliding/8-easy"), "count:frontier", "count", time_limit=120)
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 2, 1)


def test_auto_takes_the_counter_when_the_frontier_is_narrow_else_the_enumeration():
    """count:auto: the model counter on a narrow all-projected frontier (no solution listed), the
    SAT engine's enumeration (every solution checked) on a wide frontier, keys outside the
    projection, orbits or a probe that runs out of memory; the same counts either way."""
    mdt = board(3, 3, MDT)
    r = ps.solve(mdt, "count:auto", "count")
    assert (r.count, r.stats["route"], r.checked) == (583, "count:frontier", 0)
    auto = {e.name: e.options for e in ps.engines("pentomino")}["count:auto"]
    assert auto["enumerator"] == "puzzlesat.models.pentomino.sat:run"  # sat:cover's
    r = ps.solve(mdt, "count:auto", "count", **{"probe_bits": 4, "enumerator": auto["enumerator"]})
    assert (r.count, r.stats["route"], r.checked) == (583, "enumeration", 583)
    assert "bits wide" in r.stats["route_reason"]
    r = ps.solve(mdt, "count:auto", "count", up_to_symmetry=True)
    assert (r.count, r.stats["route"], r.checked) == (87, "enumeration", 87)
    r = ps.solve(ps.load("pentomino/3x20"), "count:auto", "count", **{"probe_bits": 64, "probe_mb": 1})
    assert (r.count, r.stats["route"], r.checked) == (8, "enumeration", 8)
    assert r.stats["route_reason"].startswith("the model counter's probe stopped: memory")
    r = ps.solve(ps.load("sliding/8-easy"), "count:auto", "count")
    assert (r.objective, r.count, r.stats["route"]) == (2, 1, "enumeration")
    assert "outside the projection" in r.stats["route_reason"]


def test_the_default_count_route_takes_the_faster_counter_by_its_rule(monkeypatch):
    """`solve` with no engine named counts by the route of compare/route.py: native:count under
    MODEL_BITS, the model counter from it on (patched down here, to stay light), the native where
    it lists the solutions or orbits are asked; the published count either way, the route and its
    reason in stats; an engine named runs exactly that engine; other tasks run the native."""
    from helpers import cli
    from puzzlesat.compare import route
    from puzzlesat.compare.plan import plan_one
    from puzzlesat.families.registry import family_of
    d8, p3 = board(8, 8), ps.load("pentomino/3x20")
    fam = family_of(d8)
    r = ps.solve(d8, task="count")
    assert (r.engine, r.count, r.stats["route"], r.stats["frontier_bits"]) == (
        "native:count", 12_988_816, "native:count", 8)                    # OEIS A004003
    assert "under 20" in r.stats["route_reason"]
    out = cli("solve", "pentomino/3x20").stdout              # the CLI's default: the same route
    assert "route: native:dfs (native:dfs lists the solutions" in out and "OPTIMAL" in out
    run = plan_one(fam, p3, "default", "count", options={"up_to_symmetry": True})
    assert run.engine.name == "native:dfs" and run.extra["route"]["route_reason"].startswith("orbits")
    assert "route" not in plan_one(fam, d8, "count:frontier", "count").extra
    run = plan_one(family_of(ps.load("peg/hoppers")), ps.load("peg/hoppers"), "default", "optimize")
    assert (run.engine.name, "route" in run.extra) == ("native:auto", False)
    monkeypatch.setattr(route, "MODEL_BITS", 8)
    r = ps.solve(d8, task="count")
    assert (r.engine, r.count, r.checked, r.stats["route"]) == ("count:frontier", 12_988_816, 0, "count:frontier")
    assert r.stats["route_reason"].startswith("the frontier is 8 bits wide")


def test_a_default_route_model_counter_that_runs_out_of_memory_gives_way_to_the_native(monkeypatch):
    """The model counter stopped by its memory budget: the native counts in the time left, the
    result says so (route, fallback_after) and its seconds include the stopped counter's."""
    from puzzlesat.compare import route
    from puzzlesat.compare.plan import plan_one
    from puzzlesat.compare.runner import execute
    from puzzlesat.families.registry import family_of
    monkeypatch.setattr(route, "MODEL_BITS", 0)
    inst = board(8, 8, MDT)
    run = plan_one(family_of(inst), inst, "default", "count").with_options(memory_mb=1)
    assert run.engine.name == "count:frontier" and run.extra["fallback"].engine.name == "native:count"
    r = execute(run)
    assert (r.engine, r.status, r.count) == ("native:count", Status.OPTIMAL,
                                             92_109_458_286_284_989_468_604)  # Knuth, TAOCP 7.1.4
    assert r.stats["route"] == "native:count"
    assert r.stats["fallback_after"].startswith("count:frontier stopped after ")
    assert "memory" in r.stats["fallback_after"]
