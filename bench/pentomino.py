"""Benchmark: pentomino tilings counted by native, CP-SAT and SAT, beside the PyPI exact-cover peers.

    /tmp/venv/bin/python bench/pentomino.py [--boards 6x10,3x20] [--engines native,cpsat,sat]
                                            [--time-limit 300] [--modes all,sym] [--processes 2]
                                            [--branching auto] [--raw] [--solve]

For every board and mode (all tilings / up to symmetry) it times each engine through the runner
(forked worker, hard time limit, every solution checked) and, in the same run, the peers
`xcover` (covers()) and `exact_cover` (get_solution_count) on the same exact-cover matrix (one
row per placement: its cells plus its piece). Up to symmetry, the peers get the same
symmetry-breaking plan (one sub-problem per plan node: X restricted to one placement per orbit,
…), so all columns count orbits the same way. A peer that is not installed is reported as such
(`pip install 'puzzlesat[bench]'`). Peers run in this process without a time limit.

--raw times the native kernel alone (no conversion, no checker) for each --branching listed
(e.g. first-cell,fewest), side by side with the peers in the same run, in CPU seconds, and prints
each peer's CPU time over ours (the speed-up; CPU time is less load-dependent than wall time).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings


from puzzlesat.families.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.puzzles import pentomino as P  # noqa: E402
from puzzlesat.puzzles.pentomino_breaking import symmetry_plan  # noqa: E402

# (all, up to symmetry): SPEC §2, and issue 14's published unique counts (Polyform Puzzler,
# D. Goodger; 3x4x5 also Bouwkamp 1981) with all = the sum of the orbit sizes our engines find
# (None: not published, not asserted).
SPEC = {"6x10": (9356, 2339), "5x12": (4040, 1010), "4x15": (1472, 368), "3x20": (8, 2),
        "8x8-centre": (520, 65), "8x8-corners": (17360, 2170), "8x8-holes-1-6": (1504, 188),
        "8x8-holes-2-5": (168, 21), "one-sided-3x30": (184, 46), "one-sided-6x15": (None, 2567183),
        "3x4x5": (31520, 3940), "2x3x10": (96, 12), "2x5x6": (2112, 264),
        "soma": (11520, 240), "tetracubes-2x4x4": (None, None)}


def matrices(inst, up: bool):
    """Exact-cover option lists, one per sub-problem: the whole board, or (up to symmetry) one per
    node of the symmetry-breaking plan — its fixed placements removed, its piece restricted to the
    node's kept placements — so the peers count orbits exactly as our engines do."""
    pls = P.placements(inst)

    def options(fixed, allowed):
        covered = {c for i in fixed for c in pls[i].cells}
        used = {pls[i].piece for i in fixed}
        return [[f"piece{p.piece}"] + [",".join(map(str, x)) for x in p.cells]
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


def raw_count(inst, up: bool, processes: int, branch: str = "auto",
              orbits: bool = True) -> tuple[int, int, float, list[float]]:
    """The native kernel alone on the independent subtrees (job i on process i mod N), counting
    the solution rows without converting or checking them: (count, nodes, wall s, CPU s per
    process). The checked figure is the engine column; this isolates the search's own speed."""
    import multiprocessing.connection as mpc
    import resource
    from puzzlesat.native_search.pentomino import dfs as N
    t0 = time.perf_counter()
    brs = N.branches(inst, up, True, orbits=orbits)
    jobs = N.subtrees(inst, brs, "short", branch)
    conns, pids = [], []
    for w in range(processes):
        a, b = mpc.Pipe(duplex=False)
        pid = os.fork()
        if pid == 0:  # the child: count its share, report (count, nodes, CPU seconds)
            a.close()
            cache: dict = {}
            n = nodes = 0
            for k, f in jobs[w::processes]:
                if k not in cache:
                    cache.clear()
                    cache[k] = N._Search(inst, brs[k], "short", branch)
                st = {"nodes": 0}
                n += sum(1 for _ in cache[k].run(f, st, None, None)) * max(1, len(brs[k].images))
                nodes += st["nodes"]
            ru = resource.getrusage(resource.RUSAGE_SELF)
            b.send((n, nodes, ru.ru_utime + ru.ru_stime))
            os._exit(0)
        b.close()
        conns.append(a)
        pids.append(pid)
    res = [c.recv() for c in conns]
    for pid in pids:
        os.waitpid(pid, 0)
    return (sum(r[0] for r in res), sum(r[1] for r in res), time.perf_counter() - t0,
            [round(r[2], 2) for r in res])


PEERS = {"xcover": peer_xcover, "exact_cover": peer_exact_cover}


def warm_up():
    """Compile numba kernels (ours in the worker cache, xcover's here) outside the timings."""
    small = P.make("warm", "\n".join(["....."] * 4), "FLUY")
    for how in ("first-cell", "fewest"):
        solve(family("pentomino"), small, "native", "count", options={"branching": how})
        raw_count(small, False, 1, how)
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
    ap.add_argument("--processes", type=int, default=1, help="native: processes for the subtrees")
    ap.add_argument("--solve", action="store_true", help="also time task feasible (one checked "
                    "tiling) per board and engine")
    ap.add_argument("--branching", default="auto", help="native: auto, first-cell, fewest; "
                    "with --raw a comma-separated list, each timed")
    ap.add_argument("--raw", action="store_true", help="time only the native kernel on the "
                    "subtrees (count of unconverted rows, 1 and --processes processes) beside "
                    "the peers")
    ap.add_argument("--orbits", default="on", help="all tilings, native: on (one search per "
                    "placement orbit of a piece, the tilings mapped onto their orbits), off "
                    "(the plain search), or on,off for both side by side")
    args = ap.parse_args()
    peers = [p for p in args.peers.split(",") if p]
    if args.raw:
        warm_up()
        for board in args.boards.split(","):
            inst = P.catalogue()[board]()
            for mode in args.modes.split(","):
                want = SPEC[board][1 if mode == "sym" else 0]
                ours = {}
                orbs = args.orbits.split(",") if mode == "all" else ["off"]
                for how in args.branching.split(","):
                    for orb in orbs:
                        tag = how + (", orbits" if orb == "on" else "")
                        for procs in sorted({1, args.processes}):
                            n, nodes, wall, cpu = raw_count(inst, mode == "sym", procs, how,
                                                            orb == "on")
                            ours.setdefault(tag, sum(cpu))
                            print(f"{board} {mode} raw kernel {tag}, {procs} process(es): {n} "
                                  f"tilings{'' if want in (None, n) else f' (EXPECTED {want})'}, "
                                  f"{nodes} nodes, {wall:.1f} s wall, CPU {cpu} s", flush=True)
                for p in peers:
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            c0 = time.process_time()
                            n = PEERS[p](inst, mode == "sym")
                            cpu = time.process_time() - c0
                    except ImportError:
                        print(f"{board} {mode} {p}: not installed")
                        continue
                    ratio = ", ".join(f"{cpu / max(t, 1e-9):.2f}x {how}" for how, t in ours.items())
                    print(f"{board} {mode} {p}: {n} tilings"
                          f"{'' if want in (None, n) else f' (EXPECTED {want})'}, CPU {cpu:.1f} s"
                          f" ({p} CPU / ours: {ratio})", flush=True)
        return
    fam = family("pentomino")
    engines = [e for e in args.engines.split(",") if e]
    warm_up()
    cols = engines + peers
    print("Times: wall seconds of the checked run (forked worker, every solution checked) and, in\n"
          "parentheses, the CPU seconds of the engine itself (search; for models: build + solve).\n"
          "Peers: in-process wall (CPU) seconds of their count on the same exact-cover matrix.\n")
    print(f"| board | count | {' | '.join(cols)} |")
    print("|---|---|" + "---|" * len(cols))
    for board in args.boards.split(","):
        inst = P.catalogue()[board]()
        if args.solve:  # task feasible: one checked tiling, or UNKNOWN at the limit
            cells = []
            for e in engines:
                opts = {"branching": args.branching} if e == "native" else {}
                r = solve(fam, inst, e, "feasible", time_limit=args.time_limit, options=opts)
                cpu = r.stats.get("cpu_seconds")
                if r.status.value in ("FEASIBLE", "OPTIMAL", "INFEASIBLE"):
                    cells.append(f"{r.status.value} {r.seconds:.2f} s"
                                 + (f" ({cpu:.2f})" if cpu is not None else ""))
                elif r.status.value == "UNKNOWN":
                    cells.append(f"UNKNOWN >{args.time_limit:.0f} s")
                else:
                    cells.append(f"{r.status.value}: {r.reason}")
                print(f"  {board} solve {e}: {cells[-1]}", file=sys.stderr, flush=True)
            cells += ["—"] * len(peers)
            print(f"| {board} | solve (one tiling) | {' | '.join(cells)} |", flush=True)
        for mode in args.modes.split(","):
            up = mode == "sym"
            want = SPEC[board][1 if up else 0]
            cells = []
            for e in engines:
                opts = {"up_to_symmetry": up}
                if e == "native" and args.processes > 1:
                    opts["processes"] = args.processes
                if e == "native":
                    opts["branching"] = args.branching
                r = solve(fam, inst, e, "count", time_limit=args.time_limit, options=opts)
                if r.status.value == "OPTIMAL":
                    cpu = r.stats.get("cpu_seconds")
                    cells.append(f"{r.seconds:.2f} s" + (f" ({cpu:.2f})" if cpu is not None else "")
                                 + ("" if want is None or r.count == want else f" (GOT {r.count})")
                                 + ("" if want is not None else f" [{r.count}]"))
                elif r.status.value == "UNKNOWN":  # cut by the limit: never a count
                    lb = r.stats.get("count_lower_bound")
                    cells.append(f"UNKNOWN >{args.time_limit:.0f} s"
                                 + (f" ({lb} found)" if lb else ""))
                else:
                    cells.append(f"{r.status.value}: {r.reason}")
                print(f"  {board} {mode} {e}: {cells[-1]} {r.stats.get('vars', '')} vars {r.stats.get('clauses', r.stats.get('constraints', ''))} clauses/cons",
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
                             + ("" if want is None or n == want else f" (GOT {n})"))
                print(f"  {board} {mode} {p}: {cells[-1]}", file=sys.stderr, flush=True)
            label = f"{want} {'up to symmetry' if up else 'all'}"
            print(f"| {board} | {label} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
