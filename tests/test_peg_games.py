"""`peg games`: every winning jump sequence counted by the layer dynamic programme, against
published counts (Durango Bill, G. Bell's layer sizes), enumeration, a plain brute force, the model
counter, and exact multi-word arithmetic; interrupted counts are UNKNOWN; work folders resume."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlesat.native_search.peg import games as G
from puzzlesat.native_search.peg.bfs import Space, _bits, group_for
from puzzlesat.puzzles.peg import DIRECTION_SETS, Board, PegInstance, board, catalogue

CAT = catalogue()
MAX = 2**64 - 1


# ---- an independent oracle: every sequence, memoised on frozensets (no symmetry, no layers) ---
def brute(inst: PegInstance) -> tuple[int, int]:
    """(winning sequences, games) by plain recursion over positions as frozensets."""
    lines = inst.board.lines
    goal = inst.finish

    @lru_cache(maxsize=None)
    def rec(pegs: frozenset) -> tuple[int, int]:
        win = int(len(pegs) == 1 if goal is None else pegs == goal)
        games, moved = 0, False
        for a, b, c in lines:
            if a in pegs and b in pegs and c not in pegs:
                moved = True
                w, g = rec((pegs - {a, b}) | {c})
                win, games = win + w, games + g
        return win, games + (not moved)

    start = frozenset(inst.start)
    if inst.first_jump is None:
        return rec(start)
    a, c = inst.first_jump
    line = next((l for l in lines if (l[0], l[2]) == (a, c)), None)
    if line is None or not (a in start and line[1] in start and c not in start):
        return 0, 0
    return rec((start - {a, line[1]}) | {c})


# ---- published counts -------------------------------------------------------------------------
DURANGO_15 = {  # Durango Bill, 15-hole peg solitaire: by vacancy (his holes 1..15 = ours 0..14)
    0: (29_760, 6_816, 568_630), 1: (14_880, 720, 294_543), 3: (85_258, 51_452, 1_149_568),
    4: (1_550, 0, 137_846)}


def test_triangle15_durango_bill_table():
    """Every vacancy orbit of the 15-hole triangle: total winning sequences, those ending in the
    vacated hole, and games (Durango Bill's "total possible games" are these plus the winning
    sequences: 598,390 = 568,630 + 29,760, and so on for every row)."""
    b = board("triangle5")
    for v, r, rows in G.board_table(b, "all", "all"):
        sols, back_home, games = DURANGO_15[v]
        assert r.solutions == sols and r.games == games
        assert r.per_finish.get(v, 0) == back_home
        assert sum(r.per_finish.values()) == sols
        # the table's rows: each orbit representative's count, weighted by the vacancy's share
        for row in rows:
            assert row.solutions == r.per_finish.get(row.finish, 0)
    centre = G.count_games(PegInstance("t", b, frozenset(range(15)) - {3}, None),
                           direction="forward").per_finish
    assert centre.get(4, 0) + centre.get(7, 0) + centre.get(8, 0) == 1_550  # ends in a centre


def test_reversal_duality_on_triangle6():
    """Played backward, a game from vacancy v to survivor f is one from vacancy f to survivor v
    on the complemented board: count(v -> f) = count(f -> v) for every pair (triangle6: 21 holes,
    every vacancy's forward count to its end, each survivor's share of an orbit total)."""
    b = board("triangle6")
    counts = {}
    for v, r, _ in G.board_table(b, "all", "all"):
        for g in b.symmetries:  # spread the orbit representative's counts over its orbit
            for f, n in r.per_finish.items():
                counts[(g[v], g[f])] = n
    assert len({v for v, _ in counts}) == b.n
    assert all(counts.get((f, v), 0) == n for (v, f), n in counts.items())
    assert sum(n > 0 for n in counts.values()) > 100  # most pairs solvable: the check has teeth


def test_english_first_layers_by_jumps_are_bells():
    """OEIS A112737 (G. Bell): positions after n jumps from the central vacancy, up to symmetry."""
    inst = CAT["english33"]()
    sp = Space(inst, group_for(inst, True, False))
    keys, counts = np.array([_bits(inst.start)], np.uint64), np.ones((1, 1), np.uint64)
    sizes = [1]
    for _ in range(8):
        keys, counts, _ = G.step(sp, keys, counts, False)
        sizes.append(len(keys))
    assert sizes == [1, 1, 2, 8, 39, 171, 719, 2757, 9751]


@pytest.mark.slow
def test_english_durango_bill_counts():
    """40,861,647,040,079,968 winning sequences and 577,116,156,815,309,849,672 games (Durango
    Bill); the layers are A112737, the meeting layer A112738's 230,230 (bench/peg_games.py)."""
    inst = CAT["english33"]()
    m = G.count_games(inst)
    assert m.solutions == 40_861_647_040_079_968 and m.meeting == 230_230
    f = G.count_games(inst, direction="forward")
    assert f.solutions == m.solutions and f.games == 577_116_156_815_309_849_672
    assert sum(f.layers_forward) == 23_475_688 and f.words == 2


# ---- the dynamic programme against enumeration, brute force and the model counter ---------------
@pytest.mark.parametrize("name, sols, games", [("hoppers", 5_664, 109_664),
                                               ("hoppers-first06", 1_416, 27_416),
                                               ("triangle15", 29_760, 568_630)])
def test_dp_equals_enumeration_and_brute_force(name, sols, games):
    inst = CAT[name]()
    e = G.enumerate_games(inst)
    assert (e.solutions, e.games) == (sols, games) == brute(inst)
    for kw in ({}, {"symmetry": False}, {"direction": "forward"},
               {"direction": "forward", "symmetry": False}):
        r = G.count_games(inst, **kw)
        assert r.solutions == sols
        if kw.get("direction") == "forward":
            assert r.games == games


def test_model_counter_counts_every_winning_sequence():
    """The model's count (peg cubes --count: every solution with at most K moves, K = the jumps,
    i.e. every winning sequence, each replayed by the checker) equals the dp's."""
    from puzzlesat.compare.peg.cubes import run_cubes
    from puzzlesat.compare.peg.layers import close_pool, pool_for
    from puzzlesat.families.registry import family
    inst = CAT["hoppers-first06"]()
    pool = pool_for("local", 1, None, None, False, retries=2,
                    job="puzzlesat.models.peg.cubes:solve_cube")
    try:
        rep = run_cubes(family("peg"), inst, "sat:ordered[families=best]", inst.jumps_needed, 2,
                        symmetry=True, certify=False, count=True, pool=pool)
    finally:
        close_pool(pool)
    assert rep["count"] == G.count_games(inst).solutions == 1_416


@st.composite
def symmetric_boards(draw):
    """A small board closed under a random subgroup of the square's symmetries, mostly with a
    start and finish closed under it too (so the dp's canonical forms have real orbits and the
    group fixes the start), else a random start and finish; sometimes a required first jump."""
    dirs = draw(st.sampled_from(["orthogonal", "orthogonal+diagonal"]))
    size = draw(st.integers(3, 5))
    c = size - 1
    maps = {"mx": lambda x, y: (c - x, y), "my": lambda x, y: (x, c - y),
            "rot": lambda x, y: (c - y, x), "tr": lambda x, y: (y, x)}
    gens = draw(st.lists(st.sampled_from(sorted(maps)), min_size=1, max_size=2, unique=True))

    def close(pts):
        pts = set(pts)
        grow = True
        while grow:
            grow = False
            for g in gens:
                for p in list(pts):
                    q = maps[g](*p)
                    if q not in pts:
                        pts.add(q)
                        grow = True
        return pts
    pts = close(draw(st.lists(st.tuples(st.integers(0, c), st.integers(0, c)), min_size=2,
                              max_size=6, unique=True)))
    assume_small = len(pts) <= 16
    if not assume_small:
        pts = set(sorted(pts)[:16])
    coords = tuple(sorted(pts, key=lambda p: (p[1], p[0])))
    b = Board("rand", coords, DIRECTION_SETS[dirs])
    n = b.n
    idx = {p: h for h, p in enumerate(coords)}

    def closed_holes(k):
        picks = draw(st.lists(st.sampled_from(coords), min_size=1, max_size=k, unique=True))
        return frozenset(idx[p] for p in close(picks) if p in idx)
    if draw(st.booleans()) and assume_small:  # symmetric: full but a closed set, closed finish
        start = frozenset(range(n)) - closed_holes(2)
        finish = draw(st.sampled_from([None, "closed", "one"]))
        if finish == "closed":
            finish = closed_holes(1)
        elif finish == "one":
            finish = frozenset({draw(st.integers(0, n - 1))})
    else:
        start = frozenset(draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=n,
                                        unique=True)))
        finish = draw(st.sampled_from([None, frozenset({draw(st.integers(0, n - 1))})]))
    first = None
    if draw(st.integers(0, 3)) == 0 and b.lines:
        a, _, cc = draw(st.sampled_from(b.lines))
        first = (a, cc)
    return PegInstance("rand", b, start, finish, first)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(symmetric_boards())
def test_dp_equals_brute_force_on_random_symmetric_boards(inst):
    want = brute(inst)
    for kw in ({}, {"symmetry": False}, {"direction": "forward"}):
        r = G.count_games(inst, **kw)
        assert r.solutions == want[0], kw
        if kw.get("direction") == "forward":
            assert r.games == want[1]
    e = G.enumerate_games(inst)
    assert (e.solutions, e.games) == want


@pytest.mark.parametrize("bname", ["triangle5", "hoppers"])
def test_meeting_counts_equal_brute_force_on_every_problem(bname):
    """The meet-in-the-middle count of every single-vacancy problem (one per orbit), under the
    symmetries fixing both the vacancy and the survivor (groups of several orders), equals the
    brute force."""
    from puzzlesat.native_search.peg.problems import orbit_pairs, problem_instance
    b = board(bname)
    orders = set()
    for (v, f), _ in orbit_pairs(b):
        inst = problem_instance(b, v, f)
        orders.add(len(group_for(inst, True, True)))
        assert G.count_games(inst).solutions == brute(inst)[0], (v, f)
    assert len(orders) > 1


def test_orbit_totals_are_the_unreduced_counts():
    """The stored orbit totals h(c) = |O(c)| f(c): summed over a layer they equal the sum of the
    unreduced layer's counts f (hoppers, 8 symmetries, every layer)."""
    inst = CAT["hoppers"]()
    red = Space(inst, group_for(inst, True, False))
    raw = Space(inst, [tuple(range(inst.board.n))])
    k1 = k2 = np.array([_bits(inst.start)], np.uint64)
    c1 = c2 = np.ones((1, 1), np.uint64)
    while len(k1):
        assert G.total(c1) == G.total(c2)
        assert len(k2) == sum(G.orbit_sizes(red, k1))  # every member of every orbit, once
        k1, c1, _ = G.step(red, k1, c1, False)
        k2, c2, _ = G.step(raw, k2, c2, False)
    assert len(k2) == 0


# ---- exact arithmetic ------------------------------------------------------------------------
words = st.lists(st.integers(0, MAX), min_size=1, max_size=3)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2**130)), min_size=1, max_size=40))
def test_chunk_sums_are_exact_and_widen(entries):
    """Keys with counts up to 2**130: the sorted, summed chunk equals Python's sums, widened to
    as many words as the largest sum needs (never wrapped)."""
    rows = [v for _, v in entries]
    W = max(1, max(v.bit_length() for v in rows) // 64 + 1)
    counts = np.array([G.from_int(v, W) for v in rows], np.uint64)
    keys = np.array([k for k, _ in entries], np.uint64)
    src = np.arange(len(entries), dtype=np.int64)
    ok, oc = G._aggregate_chunk(keys, src, counts)
    want: dict[int, int] = {}
    for k, v in entries:
        want[k] = want.get(k, 0) + v
    assert list(ok) == sorted(want)
    assert [G.to_int(r) for r in oc] == [want[k] for k in sorted(want)]
    assert oc.shape[1] == max(1, max(v.bit_length() for v in want.values()) // 64 + 1) or \
        oc.shape[1] >= W


def test_sums_near_2_to_the_64():
    """2**64 - 1 twice into one position needs a second word: the layer step widens, and the
    totals and merges stay exact."""
    inst = CAT["hoppers"]()
    sp = Space(inst, [tuple(range(inst.board.n))])
    k = np.array([_bits(inst.start)], np.uint64)
    for _ in range(2):
        k, _, _ = G.step(sp, k, np.ones((len(k), 1), np.uint64), False)
    big = np.full((len(k), 1), MAX, np.uint64)
    nk, nc, _ = G.step(sp, k, big, False)
    one, c1, _ = G.step(sp, k, np.ones((len(k), 1), np.uint64), False)
    assert nc.shape[1] == 2 and list(nk) == list(one)
    assert [G.to_int(r) for r in nc] == [G.to_int(r) * MAX for r in c1]
    assert G.total(nc) == G.total(c1) * MAX
    a = (np.array([1, 5], np.uint64), np.array([[MAX, MAX], [3, 0]], np.uint64))
    b = (np.array([1, 7], np.uint64), np.array([[1], [2]], np.uint64))
    mk, mc = G.merge(a, b)
    assert list(mk) == [1, 5, 7] and [G.to_int(r) for r in mc] == [2**128, 3, 2]
    assert G.total(np.array([[MAX, MAX]] * 3, np.uint64)) == 3 * (2**128 - 1)
    with pytest.raises(ValueError):
        G.from_int(2**64, 1)


# ---- stopped runs, work folders ----------------------------------------------------------------
def test_a_stopped_count_is_unknown_never_a_number():
    inst = CAT["english33"]()
    r = G.count_games(inst, deadline=time.monotonic() - 1)
    assert r.solutions is None and r.games is None and not r.complete and "no count" in r.reason
    r = G.count_games(inst, direction="forward", memory=1)  # not even one key range fits
    assert r.solutions is None and r.games is None and r.per_finish is None
    assert "GiB" in r.reason
    e = G.enumerate_games(CAT["triangle15"](), max_nodes=1000)
    assert e.solutions is None and e.games is None and "node limit" in e.reason


class Stop(Exception):
    pass


def test_work_folder_resumes_and_redoes_a_damaged_layer(tmp_path):
    """A run stopped after some layers (here: an exception from the progress hook, right after a
    layer was saved) resumes from its last saved layer; a layer file changed on disk is found by
    its SHA-256 and computed again from the layer before; the counts do not change."""
    inst = CAT["triangle21"]()
    want = G.count_games(inst)
    want_f = G.count_games(inst, direction="forward")
    for direction, ref in (("meet", want), ("forward", want_f)):
        d = tmp_path / direction

        def stop_at(side, depth, n, at=6):
            if depth == at:
                raise Stop
        with pytest.raises(Stop):
            G.count_games(inst, direction=direction, work_dir=d, progress=stop_at)
        r = G.count_games(inst, direction=direction, work_dir=d)
        assert r.resumed and (r.solutions, r.games) == (ref.solutions, ref.games)
        assert r.per_finish == ref.per_finish
        # damage the deepest forward layer: found, dropped, redone from the one before
        folder = next(d.iterdir())
        man = json.loads((folder / "manifest.json").read_text())
        last = max(n for n, e in man["layers"].items() if e["side"] == "f")
        p = folder / f"{last}.counts.bin"
        p.write_bytes(p.read_bytes()[:-8] + b"\x01" * 8)
        r2 = G.count_games(inst, direction=direction, work_dir=d)
        assert last in r2.redone and (r2.solutions, r2.games) == (ref.solutions, ref.games)


def test_layers_on_disk_count_the_same(tmp_path):
    """With a memory budget of 1 MiB the larger layers are built on disk (key ranges summed one
    at a time): the same counts as in memory, meeting and forward, in a temporary folder or a
    work folder that a second run resumes from."""
    for name in ("triangle21", "triangle21-first146"):
        inst = CAT[name]()
        for direction in ("meet", "forward"):
            ref = G.count_games(inst, direction=direction)
            r = G.count_games(inst, direction=direction, memory=2**20)
            assert r.layers_on_disk > 0 and r.disk_peak > 0
            assert (r.solutions, r.games, r.per_finish) == (ref.solutions, ref.games,
                                                            ref.per_finish)
    inst = CAT["triangle21"]()
    ref = G.count_games(inst, direction="forward")
    r = G.count_games(inst, direction="forward", memory=2**20, work_dir=tmp_path)
    again = G.count_games(inst, direction="forward", memory=2**20, work_dir=tmp_path)
    assert again.resumed and (r.games, again.games) == (ref.games, ref.games)


def test_a_layer_on_disk_resumes_inside_and_redoes_a_changed_range(tmp_path, monkeypatch):
    """A layer built on disk and stopped in the middle (its time limit, after a few of its
    slices, each checkpointed) goes on from its checkpoint; a range file changed on disk is
    found by its SHA-256 and the layer is built again; the counts do not change."""
    inst = CAT["triangle21"]()
    ref = G.count_games(inst, direction="forward")
    monkeypatch.setattr(G, "SLICE", 500)                 # many slices per layer
    monkeypatch.setattr(G, "CHECKPOINT_SECONDS", 0.0)    # a checkpoint after every slice
    real = G.check_time

    def stop_after(k):
        calls = []

        def check(deadline, where):
            if "expansion of layer" in where:
                calls.append(where)
                if len(calls) == k:
                    raise G.OutOfTime(f"time limit inside {where}")
            real(deadline, where)
        return check
    for damage in (False, True):
        d = tmp_path / str(damage)
        monkeypatch.setattr(G, "check_time", stop_after(8))
        r = G.count_games(inst, direction="forward", memory=2**20, work_dir=d)
        assert r.solutions is None and r.games is None and "expansion of layer" in r.reason
        parts = list(d.glob("*/*.part"))
        assert len(parts) == 1
        if damage:
            f = max(parts[0].glob("r*.counts"), key=lambda p: p.stat().st_size)
            data = bytearray(f.read_bytes())
            data[0] ^= 1
            f.write_bytes(bytes(data))
        monkeypatch.setattr(G, "check_time", real)
        r = G.count_games(inst, direction="forward", memory=2**20, work_dir=d)
        assert (r.solutions, r.games) == (ref.solutions, ref.games)
        if damage:
            assert any(n.endswith(".part") for n in r.redone) and r.resumed_inside == 0
        else:
            assert r.resumed_inside > 0 and not r.redone


# ---- the command line --------------------------------------------------------------------------
def run_cli(*args):
    from click.testing import CliRunner
    from puzzlesat.cli import cli
    return CliRunner().invoke(cli, ["peg", "games", *args])


def test_cli_counts_and_exit_statuses():
    r = run_cli("peg/hoppers-first06", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["status"], out["solutions"], out["method"]) == ("OPTIMAL", 1416, "dp")
    r = run_cli("peg/triangle15", "--method", "enumerate")
    assert r.exit_code == 0 and "29,760 winning jump sequences" in r.stdout
    assert "568,630 games" in r.stdout
    r = run_cli("peg/english33", "--time-limit", "0.5", "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["status"] == "UNKNOWN" and out["solutions"] is None and out["games"] is None
    r = run_cli("triangle4", "--vacate", "all", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["problems"]
    b = board("triangle4")
    assert len(rows) == 19  # one per orbit of (vacate, finish) pairs, as `peg problems`
    for row in rows:
        inst = PegInstance("t", b, frozenset(range(b.n)) - {row["vacate"]},
                           frozenset({row["finish"]}))
        assert row["solutions"] == brute(inst)[0]
    for bad in (["peg/hoppers", "--method", "enumerate", "--direction", "forward"],
                ["nosuchboard", "--vacate", "all"], ["triangle5", "--vacate", "99"],
                ["sliding/8-easy"], ["triangle5", "--vacate", "all", "--method", "enumerate"]):
        r = run_cli(*bad)
        assert r.exit_code == 2 and "error" in r.output, (bad, r.output)


def test_cli_bad_input_has_no_traceback():
    p = subprocess.run([sys.executable, "-m", "puzzlesat", "peg", "games", "nosuchboard",
                        "--vacate", "all"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "nosuchboard" in p.stderr
