"""native:bfs for peg solitaire: published optima, Bell's layer counts, brute-force oracles."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.peg import bfs as native_bfs
from puzzlesat.core.result import Context, Status
from puzzlesat.puzzles.peg import PegInstance, catalogue, check, infeasible_reason

CAT = catalogue()
BELL = [1, 1, 2, 9, 47, 263, 1452, 7772]  # G. Bell: english33 central start, n = 0..7 moves
BELL_TOTAL = 23_475_688


def bfs(name: str, task: str = "optimize", **options):
    return solve(family("peg"), CAT[name](), "native:bfs", task, options=options)


# ---- an independent oracle: plain BFS by moves over real positions (no symmetry, sets) -------
def chain_successors(lines, pegs: frozenset, first=None) -> set[frozenset]:
    """Positions one move (any prefix of one peg's jump chain) after `pegs`."""
    out = set()
    todo = [(pegs, None)]
    while todo:
        p, hole = todo.pop()
        for a, b, c in lines:
            if (hole is None and first is not None and (a, c) != first) or \
                    (hole is not None and a != hole):
                continue
            if a in p and b in p and c not in p:
                q = (p - {a, b}) | {c}
                out.add(q)
                todo.append((q, c))
    return out


def brute_min_moves(inst: PegInstance) -> int | None:
    lines = inst.board.lines

    def done(p):
        return len(p) == 1 if inst.finish is None else p == inst.finish
    start = frozenset(inst.start)
    if done(start):
        return 0
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        first = inst.first_jump if p == start else None
        for q in chain_successors(lines, p, first):
            if q not in dist:
                dist[q] = dist[p] + 1
                if done(q):
                    return dist[q]
                queue.append(q)
    return None


# ---- published and cross-engine facts --------------------------------------------------------
@pytest.mark.parametrize("name, moves", [("hoppers", 7), ("triangle21", 12), ("hoppers-first06", 7),
                                         ("triangle21-first146", 12)])
def test_spec_optima(name, moves):
    r = bfs(name)
    assert (r.status, r.objective, r.checked) == (Status.OPTIMAL, moves, 1)
    if CAT[name]().first_jump is not None:
        a, c = CAT[name]().first_jump
        assert (r.solutions[0][0][0], r.solutions[0][0][2]) == (a, c)


@pytest.mark.parametrize("name", ["hoppers", "triangle15", "triangle21", "hoppers-first06"])
def test_agrees_with_iddfs(name):
    a, b = bfs(name), solve(family("peg"), CAT[name](), "native:iddfs", "optimize")
    assert a.status == b.status == Status.OPTIMAL and a.objective == b.objective


@pytest.mark.parametrize("key", ["p01", "p02", "p05", "p11", "p12", "p16", "p18", "p19"])
def test_ipc_optima(key):
    inst = CAT[f"ipc-{key}"]()
    r = bfs(f"ipc-{key}")
    assert (r.status, r.objective) == (Status.OPTIMAL, inst.known_min_moves)


@pytest.mark.parametrize("opts", [{"symmetry": False}, {"bidirectional": False},
                                  {"symmetry": False, "bidirectional": False}, {"exhaust": True},
                                  {"exhaust": True, "direction": "backward"}])
def test_options_agree(opts):
    for name in ("hoppers", "hoppers-first06", "triangle15"):
        r = bfs(name, **opts)
        assert (r.status, r.objective) == (Status.OPTIMAL, bfs(name).objective)


def test_feasible_task_and_stats():
    r = bfs("ipc-p12", "feasible")
    assert r.status == Status.FEASIBLE and r.objective == 11
    s = bfs("ipc-p12").stats
    assert sum(s["meet"]) == 11 and len(s["layers_forward"]) == s["meet"][0] + 1
    assert len(s["layers_backward"]) == s["meet"][1] + 1 and s["peak_rss_mib"] > 0 and s["nodes"] > 0


def test_infeasible_by_exhausting_a_side():
    # hoppers from the central start to one peg in hole 1: the position classes allow it (no
    # precheck verdict), yet no jump sequence gets there; the search must prove it by itself.
    inst = PegInstance("h-edge", CAT["hoppers"]().board, CAT["hoppers"]().start, frozenset({1}))
    assert brute_min_moves(inst) is None and infeasible_reason(inst) is None
    for opts in (dict(), dict(bidirectional=False), dict(symmetry=False), dict(exhaust=True)):
        r = solve(family("peg"), inst, "native:bfs", "optimize", options=opts)
        assert r.status == Status.INFEASIBLE and r.reason


def test_first_jump_impossible_and_zero_moves():
    h = CAT["hoppers"]()
    bad = PegInstance("bad", h.board, h.start, h.finish, (6, 0))  # 6 is empty at the start
    res = native_bfs.search(bad)
    assert res.moves is None and "first jump" in res.reason
    same = PegInstance("same", h.board, h.start, h.start)
    assert native_bfs.search(same).moves == 0


# ---- layers ----------------------------------------------------------------------------------
def test_bell_first_layers():
    inst = CAT["english33"]()
    group = native_bfs.group_for(inst, symmetry=True, with_finish=False)
    sp = native_bfs.Space(inst, group)
    root = np.array([sum(1 << h for h in inst.start)], np.uint64)
    counters = {"nodes": 0}
    got = [len(x) for x in native_bfs.layers(sp, root, False, counters, limit=7)]
    assert len(group) == 8 and got == BELL and counters["nodes"] > sum(BELL[:-1])


def full_graph_distances(inst: PegInstance, source: frozenset, reverse: bool) -> dict:
    """Move distances from `source` (reverse: to `source`) over all 2^n positions of a small board."""
    n, lines = inst.board.n, inst.board.lines
    succ = {}
    for m in range(1 << n):
        p = frozenset(h for h in range(n) if m >> h & 1)
        succ[p] = chain_successors(lines, p)
    if reverse:
        pred: dict = {p: set() for p in succ}
        for p, qs in succ.items():
            for q in qs:
                pred[q].add(p)
        succ = pred
    dist = {source: 0}
    queue = deque([source])
    while queue:
        p = queue.popleft()
        for q in succ[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def test_layers_equal_full_graph_bfs_on_hoppers():
    inst = CAT["hoppers"]()
    sp = native_bfs.Space(inst, [tuple(range(inst.board.n))])
    for reverse, source in ((False, inst.start), (True, inst.finish)):
        dist = full_graph_distances(inst, frozenset(source), reverse)
        want: dict[int, set[int]] = {}
        for p, d in dist.items():
            want.setdefault(d, set()).add(sum(1 << h for h in p))
        root = np.array([sum(1 << h for h in source)], np.uint64)
        got = {d: {int(x) for x in layer}
               for d, layer in enumerate(native_bfs.layers(sp, root, reverse, {"nodes": 0})) if len(layer)}
        assert got == want


def test_symmetric_layers_count_orbits():
    inst = CAT["hoppers"]()
    full = native_bfs.search(inst, symmetry=False, exhaust=True)
    red = native_bfs.search(inst, symmetry=True, exhaust=True)
    dist = full_graph_distances(inst, frozenset(inst.start), False)
    syms = inst.board.symmetries
    orbits: dict[int, set] = {}
    for p, d in dist.items():
        orbits.setdefault(d, set()).add(min(tuple(sorted(g[h] for h in p)) for g in syms))
    assert full.layers_forward == [sum(1 for d in dist.values() if d == k) for k in range(len(orbits))]
    assert red.layers_forward == [len(orbits[k]) for k in range(len(orbits))]
    assert red.group_order == 8 and red.reachable_total < full.reachable_total


# ---- random small instances against the oracle -----------------------------------------------
@st.composite
def small_instances(draw):
    bname = draw(st.sampled_from(["hoppers", "triangle15", "english33"]))
    b = CAT[bname]().board
    n = b.n
    k = draw(st.integers(2, {"hoppers": 12, "triangle15": 10, "english33": 6}[bname]))
    pegs = set(draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)))
    if draw(st.booleans()):  # a symmetric start, so that the group is not trivial
        g = draw(st.sampled_from(b.symmetries))
        pegs |= {g[h] for h in pegs}
        if len(pegs) == n:
            pegs.discard(draw(st.sampled_from(sorted(pegs))))
    finish = None
    if draw(st.booleans()):
        finish = frozenset({draw(st.integers(0, n - 1))})
    first = None
    if draw(st.integers(0, 3)) == 0:
        ok = [(a, c) for a, m, c in b.lines if a in pegs and m in pegs and c not in pegs]
        if ok:
            first = draw(st.sampled_from(ok))
    return PegInstance("random", b, frozenset(pegs), finish, first)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(), st.booleans(), st.booleans())
def test_random_instances_match_brute_force(inst, symmetry, bidirectional):
    want = brute_min_moves(inst)
    res = native_bfs.search(inst, symmetry=symmetry, bidirectional=bidirectional)
    assert res.moves == want
    if want is not None:
        assert check(inst, res.solution) == want or (want == 0 and res.solution == ())


# ---- numba off -------------------------------------------------------------------------------
def test_runs_as_plain_python(no_jit):
    code = ("from puzzlesat.puzzles.peg import catalogue, check\n"
            "from puzzlesat.native_search.peg.bfs import search\n"
            "i = catalogue()['hoppers-first06']()\n"
            "r = search(i)\n"
            "print(r.moves, check(i, r.solution), r.layers_forward[:4])\n")
    assert no_jit(code).split() == ["7", "7", "[1,", "1,", "2,", "9]"]


# ---- the full-size results (minutes; the benchmark's territory) --------------------------------
@pytest.mark.slow
def test_english33_central_game_is_18():
    r = bfs("english33")
    assert (r.status, r.objective) == (Status.OPTIMAL, 18)
    assert r.stats["layers_forward"][:8] == BELL


@pytest.mark.slow
def test_english33_exhaust_total():
    r = bfs("english33", exhaust=True)
    assert r.stats["reachable_total"] == BELL_TOTAL and r.stats["layers_forward"][:8] == BELL
    assert (r.status, r.objective) == (Status.OPTIMAL, 18)


@pytest.mark.slow
def test_all_ipc_optima():
    for key in [f"p{i:02d}" for i in range(1, 21)]:
        r = bfs(f"ipc-{key}")
        assert (r.status, r.objective) == (Status.OPTIMAL, CAT[f"ipc-{key}"]().known_min_moves), key


def test_memory_budget_moves_layers_to_disk_not_a_proof():
    """A memory budget too small for the layers builds them on disk: the same optimum."""
    inst = CAT["triangle21"]()
    res = native_bfs.search(inst, memory=0)
    assert res.moves == 12 and res.spilled > 0 and check(inst, res.solution) == 12
    out = solve(family("peg"), inst, "native:bfs", "optimize", options={"memory_mb": 1,
                                                                     "disk_limit_mb": 1})
    assert out.status == Status.OPTIMAL and out.objective == 12


def test_progress_reports_every_layer():
    seen = []
    res = native_bfs.search(CAT["triangle21"](), ctx=Context(progress=seen.append))
    fwd = [f["size"] for f in seen if f["side"] == "forward"]
    bwd = [f["size"] for f in seen if f["side"] == "backward"]
    assert fwd == res.layers_forward and bwd == res.layers_backward
    assert all({"side", "layer", "size", "elapsed"} <= set(f) for f in seen)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300)), st.lists(st.integers(0, 300)))
def test_sorted_set_helpers(xs, ys):
    a, b = (np.unique(np.array(v, np.uint64)) for v in (xs, ys))
    assert native_bfs._minus(a, b).tolist() == sorted(set(xs) - set(ys))
    assert native_bfs._common(a, b).tolist() == sorted(set(xs) & set(ys))
    assert native_bfs._unique(np.array(xs, np.uint64)).tolist() == sorted(set(xs))
    d = native_bfs._minus(b, a)
    assert native_bfs._union(a, d).tolist() == sorted(set(xs) | set(ys))


def test_merge_unique_is_the_sorted_union():
    """expand's linear merge of sorted unique chunks = the sorted union (with repeats, empties)."""
    from puzzlesat.native_search.peg.bfs import merge_unique
    rng = np.random.default_rng(7)
    for n1, n2 in [(0, 0), (0, 5), (5, 0), (1000, 300), (10, 10), (1, 2000)]:
        a = np.unique(rng.integers(0, 2500, n1).astype(np.uint64))
        b = np.unique(rng.integers(0, 2500, n2).astype(np.uint64))
        assert np.array_equal(merge_unique(a, b), np.union1d(a, b))


# ---- the expansion kernel's chain-state table ---------------------------------------------------
def chain_oracle(lines, p: int, backward: bool) -> set[int]:
    """Bitboards one move (every prefix of every jump chain, no state merged) from bitboard p;
    backward: unjump chains (a peg in c with b, a empty goes to a and refills b)."""
    out, todo = set(), [(p, None)]
    while todo:
        q, hole = todo.pop()
        for a, b, c in lines:
            src, over, dst = (c, b, a) if backward else (a, b, c)
            if hole is not None and src != hole:
                continue
            if q >> src & 1 and (q >> over & 1) != backward and not q >> dst & 1:
                r = q ^ (1 << a | 1 << b | 1 << c)
                out.add(r)
                todo.append((r, dst))
    return out


def _space(bname: str, symmetric: bool) -> native_bfs.Space:
    from puzzlesat.puzzles.peg import board
    b = board(bname)
    group = list(b.symmetries) if symmetric else [tuple(range(b.n))]
    return native_bfs.Space(PegInstance("t", b, frozenset(range(b.n)), None, None), group)


def _expanded(sp, ps, backward, bound=None, hmax=-1):
    counters = {"nodes": 0}
    layer = np.unique(sp.canon(ps))
    out = sp.expand(layer, backward, [], counters, bound=bound, hmax=hmax)
    return set(int(x) for x in out), counters


def _oracle(sp, ps, backward, keep=lambda q: True) -> set[int]:
    want = {q for p in set(int(x) for x in sp.canon(ps))
            for q in chain_oracle(sp.inst.board.lines, p, backward) if keep(q)}
    return set(int(x) for x in sp.canon(sorted(want))) if want else set()


LONE = [("triangle7", 0), ("triangle7", 14), ("triangle6", 10), ("english33", 0)]


@pytest.mark.parametrize("bname, hole", LONE)
def test_lone_peg_long_chains_lose_no_successor(bname, hole):
    # a lone peg unjumping on an empty board: triangle7 from hole 0 has 82,022 chains to 4,134
    # positions, the chain-state table follows each state once
    for symmetric in (False, True):
        sp = _space(bname, symmetric)
        got, counters = _expanded(sp, [1 << hole], True)
        assert got == _oracle(sp, [1 << hole], True)
        full = sp.full ^ (1 << hole)  # and the complement forward: one vacancy, short chains
        assert _expanded(sp, [full], False)[0] == _oracle(sp, [full], False)


@pytest.mark.parametrize("bname", ["triangle5", "triangle6", "english33", "hoppers"])
def test_random_layers_expand_to_every_chain_prefix(bname):
    rng = np.random.default_rng(sum(map(ord, bname)))
    for symmetric in (False, True):
        sp = _space(bname, symmetric)
        for _ in range(6):
            density = rng.uniform(0.1, 0.9)
            ps = [int(sum(1 << h for h in range(sp.n) if rng.random() < density)) or 1
                  for _ in range(int(rng.integers(1, 30)))]
            for backward in (False, True):
                assert _expanded(sp, ps, backward)[0] == _oracle(sp, ps, backward)


def test_bounded_expansion_keeps_every_prefix_within_the_bound():
    from puzzlesat.native_search.peg import bound
    sp = _space("triangle7", False)
    bd = bound.forward_bound(sp.inst.board, None)
    rng = np.random.default_rng(7)
    ps = [int(sum(1 << h for h in range(sp.n) if rng.random() < 0.5)) for _ in range(40)]
    ps += [sp.full ^ 1, sp.full ^ (1 << 14)]
    for hmax in (2, 4, 6):
        want = _oracle(sp, ps, False, lambda q, hmax=hmax: int(bd.of([q])[0]) <= hmax)
        assert _expanded(sp, ps, False, bd, hmax)[0] == want


def test_state_table_and_buffer_restarts_neither_lose_nor_double_count(monkeypatch):
    sp = _space("triangle7", True)
    rng = np.random.default_rng(3)
    ps = [1, 1 << 14, 1 << 20] + [int(sum(1 << h for h in range(sp.n) if rng.random() < 0.3))
                                   for _ in range(50)]
    for backward in (False, True):
        want = _expanded(sp, ps, backward)
        small = native_bfs._state_table
        monkeypatch.setattr(native_bfs, "_state_table", lambda size=4, small=small: small(size))  # 4, 16, 64, ...
        monkeypatch.setattr(native_bfs, "CHUNK", 8)  # the successor buffer overflows too
        got = _expanded(sp, ps, backward)
        monkeypatch.undo()
        assert got == want and want[0] == _oracle(sp, ps, backward)


def test_state_table_runs_as_plain_python(no_jit):
    code = ("import numpy as np\n"
            "from puzzlesat.native_search.peg import bfs as native_bfs\n"
            "from puzzlesat.puzzles.peg import board, PegInstance\n"
            "b = board('triangle6')\n"
            "sp = native_bfs.Space(PegInstance('t', b, frozenset(range(b.n)), None, None),"
            " [tuple(range(b.n))])\n"
            "small = native_bfs._state_table\n"
            "native_bfs._state_table = lambda size=4: small(size)\n"
            "c = {'nodes': 0}\n"
            "out = sp.expand(np.array([1 << 10], np.uint64), True, [], c)\n"
            "print(len(out), c['nodes'], c['kept'])\n")
    assert no_jit(code).split() == ["84", "84", "84"]


@pytest.mark.parametrize("bname, start, backward, depth", [("triangle6", 1 << 10, True, 2),
                                                           ("english33", None, False, 3),
                                                           ("english33", 1 << 16, True, 2)])
def test_search_layers_sharing_chain_states_expand_to_every_prefix(bname, start, backward, depth):
    # the positions of a layer reach common states by different chains: none may hide another's
    for symmetric in (False, True):
        sp = _space(bname, symmetric)
        layer = np.unique(sp.canon([sp.full ^ (1 << 16) if start is None else start]))
        for _ in range(depth):
            got = _expanded(sp, layer, backward)[0]
            assert got == _oracle(sp, layer, backward)
            layer = np.array(sorted(got), np.uint64)


def test_merson_pruned_engine_options_prove_triangle21_is_12():
    # the engine options prune and max_moves through the runner: K = 11 refuted, K = 12 meets
    run = {k: solve(family("peg"), CAT["triangle21"](), "native:bfs", "optimize",
                    options={"prune": "merson", "max_moves": k}) for k in (11, 12)}
    assert run[11].status == Status.UNKNOWN and run[11].stats["lower_bound"] == 12
    assert (run[12].status, run[12].objective, run[12].checked) == (Status.OPTIMAL, 12, 1)
    assert bfs("triangle21", prune="merson").objective == 12
