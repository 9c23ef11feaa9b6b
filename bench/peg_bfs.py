"""Peg solitaire native:bfs benchmark: the English central game, its exhaustive layers, IPC p01-p20.

Run: /tmp/venv/bin/python bench/peg_bfs.py [--skip-exhaust] [--skip-ipc] [--no-symmetry-run]
                                           [--iddfs] [--time-limit S]
Every run goes through compare.runner.solve (a forked worker with a hard limit; every solution is
replayed by the independent checker). Printed: per-layer sizes and seconds on each side, the
optimum, nodes (successors generated), peak RSS of the worker, wall time. Reference facts checked:
english33 = 18 moves (Bergholt 1912, Beasley 1964), G. Bell's forward layers 1, 1, 2, 9, 47, 263,
1452, 7772 and total 23,475,688 (up to the 8 symmetries), the IPC-2011 pegsol optima. A mismatch
prints MISMATCH and makes the exit status 1. Times are wall-clock on a shared machine.
"""
from __future__ import annotations

import argparse
import sys
import time


from puzzlesat.families.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.core.result import Status  # noqa: E402
from puzzlesat.puzzles.peg import catalogue  # noqa: E402

BELL = [1, 1, 2, 9, 47, 263, 1452, 7772]
BELL_TOTAL = 23_475_688
FAM = family("peg")
CAT = catalogue()
ok = True


def verdict(cond: bool, what: str) -> str:
    global ok
    if not cond:
        ok = False
        print(f"MISMATCH: {what}")
    return "ok" if cond else "MISMATCH"


def layer_table(stats: dict) -> None:
    f, b = stats["layers_forward"], stats.get("layers_backward") or []
    sf, sb = stats["seconds_forward"], stats.get("seconds_backward") or []
    print(f"{'layer':>5} {'forward':>12} {'fwd s':>8} {'backward':>12} {'bwd s':>8}")
    for d in range(max(len(f), len(b))):
        cells = [f"{f[d]:>12,} {sf[d]:>8.3f}" if d < len(f) else " " * 21,
                 f"{b[d]:>12,} {sb[d]:>8.3f}" if d < len(b) and len(b) > 1 else ""]
        print(f"{d:>5} {cells[0]} {cells[1]}")


def run(name: str, limit: float, **opts):
    t0 = time.perf_counter()
    r = solve(FAM, CAT[name](), "native:bfs", "optimize", time_limit=limit, options=opts)
    return r, time.perf_counter() - t0


def english(limit: float, **opts) -> None:
    label = ", ".join(f"{k}={v}" for k, v in opts.items()) or "defaults (bidirectional, symmetry)"
    print(f"\n== peg/english33 central game, native:bfs {label}")
    r, secs = run("english33", limit, **opts)
    if r.status is not Status.OPTIMAL:
        verdict(False, f"english33: {r.status} {r.reason}")
        return
    s = r.stats
    layer_table(s)
    print(f"optimum {r.objective} [{verdict(r.objective == 18, 'english33 optimum')}], meet at "
          f"forward {s['meet'][0]} + backward {s['meet'][1]}, symmetries {s['symmetries']}, "
          f"nodes {s['nodes']:,}, positions stored {sum(s['layers_forward']) + sum(s['layers_backward']):,}, "
          f"peak RSS {s['peak_rss_mib']:,.0f} MiB, {secs:.1f} s wall (engine {s['seconds']:.1f} s)")
    if opts.get("exhaust"):
        print(f"reachable total {s['reachable_total']:,} "
              f"[{verdict(s['reachable_total'] == BELL_TOTAL, 'Bell total')}], first layers "
              f"[{verdict(s['layers_forward'][:8] == BELL, 'Bell layers 0..7')}]")
    elif opts.get("symmetry", True):
        print(f"forward layers 0..7 vs Bell: [{verdict(s['layers_forward'][:8] == BELL, 'Bell layers')}]")


def ipc(limit: float, iddfs: bool) -> None:
    print("\n== IPC-2011 pegsol p01-p20 (english33 board), native:bfs defaults"
          + (", native:iddfs beside it" if iddfs else ""))
    head = (f"{'instance':<9} {'known':>5} {'bfs':>4} {'meet':>6} {'sym':>3} {'nodes':>12} {'MiB':>6} "
            f"{'wall s':>7} {'engine s':>8}")
    print(head + (f" {'iddfs':>6} {'s':>7}" if iddfs else ""))
    total = engine_total = 0.0
    for i in range(1, 21):
        name = f"ipc-p{i:02d}"
        known = CAT[name]().known_min_moves
        r, secs = run(name, limit)
        total += secs
        engine_total += r.stats.get("seconds", 0.0)
        s = r.stats
        verdict(r.status is Status.OPTIMAL and r.objective == known, f"{name}: {r.status} {r.objective}")
        meet = f"{s['meet'][0]}+{s['meet'][1]}" if s.get("meet") else "-"
        line = (f"{name:<9} {known:>5} {r.objective!s:>4} {meet:>6} {s.get('symmetries', '-')!s:>3} "
                f"{s.get('nodes', 0):>12,} {s.get('peak_rss_mib', 0):>6.0f} {secs:>7.2f} "
                f"{s.get('seconds', 0):>8.3f}")
        if iddfs:
            q = solve(FAM, CAT[name](), "native:iddfs", "optimize", time_limit=limit)
            line += f" {q.objective!s:>6} {q.seconds:>7.2f}"
        print(line)
    print(f"total {total:.1f} s wall (a forked, checked run each), {engine_total:.1f} s in the engine")


def small(limit: float) -> None:
    print("\n== small boards: native:bfs vs native:iddfs (optimum, seconds)")
    for name in ("hoppers", "hoppers-first06", "triangle15", "triangle21", "triangle21-first146"):
        a, secs = run(name, limit)
        b = solve(FAM, CAT[name](), "native:iddfs", "optimize", time_limit=limit)
        verdict(a.objective == b.objective and a.status is Status.OPTIMAL, f"{name}: bfs vs iddfs")
        print(f"{name:<20} bfs {a.objective!s:>3} {secs:>6.2f} s   iddfs {b.objective!s:>3} "
              f"{b.seconds:>6.2f} s   layers {a.stats['layers_forward']} / {a.stats['layers_backward']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--skip-exhaust", action="store_true")
    ap.add_argument("--skip-ipc", action="store_true")
    ap.add_argument("--no-symmetry-run", action="store_true",
                    help="also solve english33 without symmetry reduction (about 8x the positions)")
    ap.add_argument("--iddfs", action="store_true", help="time native:iddfs on IPC p01-p20 too")
    a = ap.parse_args()
    english(a.time_limit)
    if a.no_symmetry_run:
        english(a.time_limit, symmetry=False)
    if not a.skip_exhaust:
        english(a.time_limit, exhaust=True)
    if not a.skip_ipc:
        ipc(a.time_limit, a.iddfs)
    small(a.time_limit)
    print("\nall checks passed" if ok else "\nSOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
