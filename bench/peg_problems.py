"""Peg single-vacancy problem tables (`peg problems`) and Bell's level tables, timed.

Run: python bench/peg_problems.py [--sides 4,5,6,7] [--french] [--levels]
Prints, per triangle side, the per-problem table (vacate, finish, min moves or impossible, proof,
seconds) and the minimum against OEIS A127500; with --french the French-37 vacancy orbits and
which finishes the position classes leave; with --levels both English central-game level tables
(native:bfs --exhaust, forward and backward) against G. Bell's. A mismatch prints MISMATCH and
makes the exit status 1. Wall-clock times on a shared machine.
"""
from __future__ import annotations

import argparse
import sys
import time

from puzzlesat.compare.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.peg_problems import minimum, orbit_pairs, problem_instance, problems
from puzzlesat.puzzles.peg import board, catalogue, hole_label, infeasible_reason

A127500 = {4: 5, 5: 9, 6: 9, 7: 12, 8: 13, 9: 16, 10: 18}
BELL_FORWARD = [1, 1, 2, 9, 47, 263, 1452, 7772]
BELL_FORWARD_TAIL = [148, 15]
BELL_BACKWARD = [1, 1, 16, 979, 14115]
BELL_BACKWARD_TAIL = [37, 5]
BELL_TOTAL = 23_475_688
ok = True


def verdict(cond: bool, what: str) -> str:
    global ok
    if not cond:
        ok = False
        print(f"MISMATCH: {what}")
    return "ok" if cond else "MISMATCH"


def triangle(n: int) -> None:
    b = board(f"triangle{n}")
    t0 = time.perf_counter()
    rows = []
    print(f"\ntriangle{n} ({b.n} holes)")
    for r in problems(b):
        rows.append(r)
        m = r.min_moves if r.min_moves is not None else ("impossible" if r.status.value == "INFEASIBLE"
                                                         else r.status.value)
        print(f"  {r.vacate:>3} -> {r.finish:>3}: {m!s:>10}  {r.proof:<15} x{r.orbit_size:<2} {r.seconds:7.2f} s")
    m = minimum(rows)
    print(f"  minimum {m} (A127500: {A127500[n]}) {verdict(m == A127500[n], f'triangle{n}')}"
          f"  {len(rows)} problems, {time.perf_counter() - t0:.1f} s")


def french() -> None:
    b = board("french37")
    vs = sorted({v for (v, _), _ in orbit_pairs(b)})
    for v in vs:
        allowed = [hole_label(b, f) for (vv, f), _ in orbit_pairs(b)
                   if vv == v and infeasible_reason(problem_instance(b, v, f)) is None]
        print(f"  {hole_label(b, v)}: " + (", ".join(allowed) if allowed else "impossible (position class)"))


def levels() -> None:
    inst = catalogue()["english33"]()
    for direction in ("forward", "backward"):
        t0 = time.perf_counter()
        r = solve(family("peg"), inst, "native:bfs", options={"exhaust": True, "direction": direction})
        lay = r.stats["layers"]
        head, tail = ((BELL_FORWARD, BELL_FORWARD_TAIL) if direction == "forward"
                      else (BELL_BACKWARD, BELL_BACKWARD_TAIL))
        good = lay[:len(head)] == head and lay[-2:] == tail and sum(lay) == BELL_TOTAL
        print(f"  {direction}: {lay}\n    total {sum(lay)}, optimum {r.objective}, "
              f"{time.perf_counter() - t0:.1f} s, peak RSS {r.stats['peak_rss_mib']} MiB "
              f"{verdict(good and r.objective == 18, direction)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sides", default="4,5,6,7")
    ap.add_argument("--french", action="store_true")
    ap.add_argument("--levels", action="store_true")
    a = ap.parse_args()
    for n in (int(x) for x in a.sides.split(",") if x):
        triangle(n)
    if a.french:
        print("\nfrench37 single vacancies: finishes the position classes allow")
        french()
    if a.levels:
        print("\nenglish33 central game, level tables (native:bfs --exhaust)")
        levels()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
