"""Benchmark: pentomino tilings counted by native, CP-SAT and SAT, beside the PyPI exact-cover peers.

    /tmp/venv/bin/python bench/pentomino.py [--boards 6x10,3x20] [--engines native,cpsat,sat]
                                            [--time-limit 300] [--modes all,sym]

For every board and mode (all tilings / up to symmetry) it times each engine through the runner
(forked worker, hard time limit, every solution checked) and, in the same run, the peers
`xcover` (covers()) and `exact_cover` (get_solution_count) on the same exact-cover matrix (one
row per placement: its cells plus its piece). Up to symmetry, the peers get the same
symmetry-breaking plan (one sub-problem per plan node: X restricted to one placement per orbit,
…), so all columns count orbits the same way. A peer that is not installed is reported as such
(`pip install 'puzzlesat[bench]'`). Peers run in this process without a time limit.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings


from puzzlesat.compare.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.puzzles import pentomino as P  # noqa: E402
from puzzlesat.puzzles.pentomino_breaking import symmetry_plan  # noqa: E402

SPEC = {"6x10": (9356, 2339), "5x12": (4040, 1010), "4x15": (1472, 368), "3x20": (8, 2),
        "8x8-centre": (520, 65)}


def matrices(inst, up: bool):
    """Exact-cover option lists, one per sub-problem: the whole board, or (up to symmetry) one per
    node of the symmetry-breaking plan — its fixed placements removed, its piece restricted to the
    node's kept placements — so the peers count orbits exactly as our engines do."""
    pls = P.placements(inst)

    def options(fixed, allowed):
        covered = {c for i in fixed for c in pls[i].cells}
        used = {pls[i].piece for i in fixed}
        return [[f"piece{p.piece}"] + [f"{r},{c}" for r, c in p.cells]
                for i, p in enumerate(pls)
                if p.piece not in used and covered.isdisjoint(p.cells)
                and (p.piece not in allowed or i in allowed[p.piece])]
    if not up:
        return [(options((), {}), False)]
    out = []
    for node in symmetry_plan(inst).nodes():
        if node.piece < 0:
            out.append((options(node.fixed, {}), node.residual > 1))
        elif node.free:
            out.append((options(node.fixed, {node.piece: set(node.free)}), False))
    return out


def peer_xcover(inst, up):
    import xcover
    n = 0
    for opts, dedup in matrices(inst, up):
        if dedup:
            return None
        n += sum(1 for _ in xcover.covers(opts))
    return n


def peer_exact_cover(inst, up):
    import exact_cover
    import numpy as np
    n = 0
    for opts, dedup in matrices(inst, up):
        if dedup:
            return None
        items = sorted({it for o in opts for it in o})
        col = {it: j for j, it in enumerate(items)}
        m = np.zeros((len(opts), len(items)), dtype=bool)
        for i, o in enumerate(opts):
            for it in o:
                m[i, col[it]] = True
        n += int(exact_cover.get_solution_count(m))
    return n


PEERS = {"xcover": peer_xcover, "exact_cover": peer_exact_cover}


def warm_up():
    """Compile numba kernels (ours in the worker cache, xcover's here) outside the timings."""
    small = P.make("warm", "\n".join(["....."] * 4), "FLUY")
    solve(family("pentomino"), small, "native", "count")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            peer_xcover(small, False)
    except ImportError:
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", default=",".join(SPEC))
    ap.add_argument("--engines", default="native,cpsat,sat")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--modes", default="all,sym")
    ap.add_argument("--time-limit", type=float, default=300.0)
    args = ap.parse_args()
    fam = family("pentomino")
    engines = [e for e in args.engines.split(",") if e]
    peers = [p for p in args.peers.split(",") if p]
    warm_up()
    cols = engines + peers
    print("Times: wall seconds of the checked run (forked worker, every solution checked) and, in\n"
          "parentheses, the CPU seconds of the engine itself (search; for models: build + solve).\n"
          "Peers: in-process wall (CPU) seconds of their count on the same exact-cover matrix.\n")
    print(f"| board | count | {' | '.join(cols)} |")
    print("|---|---|" + "---|" * len(cols))
    for board in args.boards.split(","):
        inst = P.catalogue()[board]()
        for mode in args.modes.split(","):
            up = mode == "sym"
            want = SPEC[board][1 if up else 0]
            cells = []
            for e in engines:
                r = solve(fam, inst, e, "count", time_limit=args.time_limit,
                          options={"up_to_symmetry": up})
                if r.status.value == "OPTIMAL":
                    cpu = r.stats.get("cpu_seconds")
                    cells.append(f"{r.seconds:.2f} s" + (f" ({cpu:.2f})" if cpu is not None else "")
                                 + ("" if r.count == want else f" (GOT {r.count})"))
                else:
                    lb = r.stats.get("count_lower_bound")
                    cells.append(f"{r.status.value} >{args.time_limit:.0f} s"
                                 + (f" ({lb} found)" if lb else ""))
                print(f"  {board} {mode} {e}: {cells[-1]} {r.stats.get('model_size', '')}",
                      file=sys.stderr, flush=True)
            for p in peers:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0, c0 = time.perf_counter(), time.process_time()
                        n = PEERS[p](inst, up)
                        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
                except ImportError:
                    cells.append("not installed")
                    continue
                cells.append("n/a" if n is None else f"{dt:.2f} s ({cpu:.2f})"
                             + ("" if n == want else f" (GOT {n})"))
                print(f"  {board} {mode} {p}: {cells[-1]}", file=sys.stderr, flush=True)
            label = f"{want} {'up to symmetry' if up else 'all'}"
            print(f"| {board} | {label} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
