"""Sliding-tile benchmark: native IDA* on Korf's 100, the 8-puzzle BFS, the models, and a peer.

Run: /tmp/venv/bin/python bench/sliding.py [--korf all|N|a-b|i,j,k] [--pdb 663|555|none]
                                            [--model-limit S] [--skip-models] [--skip-peer]
Every native and model answer goes through the family's checker (compare.runner.solve) and is
compared with the published optimal length; any mismatch is printed as MISMATCH and fails the run.
The peer `slidingpuzzle` (PyPI) pins numpy==1.23.5, so install it beside the venv without its
dependencies (pip install --no-deps --target DIR slidingpuzzle; PYTHONPATH=DIR) to time it.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path


from puzzlesat.compare.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.puzzles.sliding import Sliding, catalogue, default_goal, neighbours  # noqa: E402


def korf_ids(spec: str) -> list[int]:
    if spec == "all":
        return list(range(1, 101))
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    if "," in spec:
        return [int(x) for x in spec.split(",")]
    return list(range(1, int(spec) + 1))


def random_walk(seed: int, length: int, rows: int = 4, cols: int = 4) -> tuple[int, ...]:
    """The generator of the catalogue's easy 15-puzzle positions (no immediate undo)."""
    rng = random.Random(seed)
    b = list(default_goal(rows, cols))
    prev = None
    for _ in range(length):
        z = b.index(0)
        c = rng.choice([x for x in neighbours(rows, cols, z) if x != prev])
        b[z], b[c] = b[c], 0
        prev = z
    return tuple(b)


def bench_korf(ids: list[int], pdb: str) -> bool:
    from puzzlesat.native_search.sliding_pdb import load
    fam = family("sliding")
    cat = catalogue()
    ok = True
    if pdb != "none":
        t0 = time.perf_counter()
        load(pdb)
        print(f"pattern databases {pdb}: loaded or built in {time.perf_counter() - t0:.1f} s")
    print(f"\n## native IDA* on Korf's 100 (pdb={pdb})")
    print(f"{'#':>4} {'len':>4} {'pub':>4} {'nodes':>14} {'Mnodes/s':>9} {'seconds':>8}")
    tot_nodes, tot_time = 0, 0.0
    worst = (0.0, 0)
    for i in ids:
        inst = cat[f"korf-{i:03d}"]()
        r = solve(fam, inst, "native:ida", "optimize", options={"pdb": pdb}, isolate=False)
        nodes = r.stats.get("nodes", 0)
        secs = r.seconds
        rate = nodes / secs / 1e6 if secs > 0 else 0.0
        bad = r.status.value != "OPTIMAL" or r.objective != inst.optimal
        ok &= not bad
        tot_nodes += nodes
        tot_time += secs
        worst = max(worst, (secs, i))
        print(f"{i:4d} {r.objective!s:>4} {inst.optimal:4d} {nodes:14,d} {rate:9.1f} {secs:8.2f}"
              + ("  MISMATCH " + str(r.status) if bad else ""), flush=True)
    print(f"total: {len(ids)} instances, {tot_nodes:,d} nodes, {tot_time:.1f} s, "
          f"{tot_nodes / max(tot_time, 1e-9) / 1e6:.1f} Mnodes/s; slowest #{worst[1]} {worst[0]:.1f} s")
    return ok


def bench_bfs() -> bool:
    from puzzlesat.native_search.sliding_bfs import explore
    print("\n## native BFS of the whole 8-puzzle state space (from the goal)")
    explore(2, 2)  # compile
    t0 = time.perf_counter()
    e = explore(3, 3)
    secs = time.perf_counter() - t0
    ok = (e.positions, e.radius, len(e.farthest)) == (181440, 31, 2)  # SPEC §3
    print(f"positions {e.positions}, radius {e.radius}, antipodes {len(e.farthest)}: "
          f"{[list(p) for p in e.farthest]} in {secs:.2f} s" + ("" if ok else "  MISMATCH with SPEC §3"))
    t0 = time.perf_counter()
    e = explore(2, 5)
    print(f"2x5: positions {e.positions}, radius {e.radius}, {len(e.farthest)} antipodes, "
          f"{time.perf_counter() - t0:.2f} s")
    return ok


def bench_models(limit: float) -> bool:
    fam = family("sliding")
    cat = catalogue()
    names = ["8-hardest", "8-hardest-2", "15-easy-20", "15-easy-26", "15-easy-30", "15-easy-36",
             "15-easy-40", "korf-055"]
    print(f"\n## models: time to prove the optimum (limit {limit:.0f} s each)")
    print(f"{'instance':<14} {'opt':>4} {'engine':<9} {'status':<8} {'len':>4} {'seconds':>8}  horizons (T, sat, s)")
    ok = True
    for nm in names:
        inst = cat[nm]()
        for eng in ("sat", "cpsat"):
            r = solve(fam, inst, eng, "optimize", time_limit=limit)
            bad = r.status.value == "OPTIMAL" and r.objective != inst.optimal
            ok &= not bad
            hz = " ".join(f"{t}{'+' if s else '-' if s is False else '?'}{sec:.1f}"
                          for t, s, sec in r.stats.get("horizons", []))
            print(f"{nm:<14} {inst.optimal:4d} {eng:<9} {r.status.value:<8} {r.objective!s:>4} "
                  f"{r.seconds:8.2f}  {hz}" + ("  MISMATCH" if bad else ""), flush=True)
    r = solve(fam, cat["8-hardest"](), "sat", "count", time_limit=limit)
    print(f"sat count 8-hardest: {r.status} {r.count} optimal plans in {r.seconds:.1f} s")
    return ok


def _peer_tiles(inst: Sliding, coords) -> tuple[int, ...]:
    """The peer's moves (cells of the tiles moved, as (row, col)) as our list of tiles moved."""
    board = list(inst.start)
    out = []
    for y, x in coords:
        c = int(y) * inst.cols + int(x)
        z = board.index(0)
        out.append(board[c])
        board[z], board[c] = board[c], 0
    return tuple(out)


def bench_peer(sample8: int) -> None:
    print("\n## peer: slidingpuzzle 0.1.5 (PyPI), default search() = A* with linear conflicts "
          "+ last-moves + corner-tiles")
    try:
        import numpy as np
        import slidingpuzzle as sp
    except ImportError:
        print("not installed (pip install --no-deps --target DIR slidingpuzzle; PYTHONPATH=DIR)")
        return
    from puzzlesat.native_search.sliding_bfs import RankSpace
    from puzzlesat.puzzles.sliding import check
    cat = catalogue()
    insts = [cat[nm]() for nm in ["8-hardest", "8-hardest-2", "15-easy-20", "15-easy-30", "15-easy-36",
                                  "15-easy-40"]]
    print(f"{'instance':<14} {'opt':>4} {'peer len':>8} {'optimal?':>8} {'seconds':>8}")
    for inst in insts:
        board = np.array(inst.start, dtype=int).reshape(inst.rows, inst.cols)
        t0 = time.perf_counter()
        res = sp.search(board)
        secs = time.perf_counter() - t0
        n = check(inst, _peer_tiles(inst, res.solution))  # the peer's answer replayed by our checker
        print(f"{inst.name:<14} {inst.optimal:4d} {n:8d} {'yes' if n == inst.optimal else 'NO':>8} {secs:8.2f}")
    if sample8:
        sp_ = RankSpace(3, 3)
        sp_.run(default_goal(3, 3))
        rng = random.Random(1)
        worse = total = 0
        t0 = time.perf_counter()
        for d in range(20, 32):
            layer = sp_.layer(d)
            for p in rng.sample(layer, min(sample8, len(layer))):
                inst = Sliding("s", 3, 3, p, default_goal(3, 3))
                res = sp.search(np.array(p).reshape(3, 3))
                total += 1
                worse += check(inst, _peer_tiles(inst, res.solution)) != d
        print(f"8-puzzle sample: {total} positions of 20-31 moves, {worse} answered non-optimally "
              f"({time.perf_counter() - t0:.1f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--korf", default="all", help="all, N (first N), a-b, or i,j,k")
    ap.add_argument("--pdb", default="663", choices=["663", "555", "none"])
    ap.add_argument("--model-limit", type=float, default=120.0)
    ap.add_argument("--skip-models", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--skip-korf", action="store_true")
    ap.add_argument("--peer-sample", type=int, default=2, help="8-puzzle positions per distance 20-31")
    a = ap.parse_args()
    ok = True
    ok &= bench_bfs()
    if not a.skip_korf:
        ok &= bench_korf(korf_ids(a.korf), a.pdb)
    if not a.skip_models:
        ok &= bench_models(a.model_limit)
    if not a.skip_peer:
        bench_peer(a.peer_sample)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
