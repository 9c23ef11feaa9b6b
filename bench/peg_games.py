"""Every winning jump sequence counted (`peg games`), timed, against the published counts.

Run: python bench/peg_games.py [--english] [--sides 4,5,6,7] [--hoppers] [--french V,...]
       [--time-limit S] [--memory-mb M] [--work-dir DIR]
--english: the English central game by the meeting layers (Durango Bill: 40,861,647,040,079,968
winning sequences; the meeting layer holds OEIS A112738's 230,230 positions) and by the forward
side to its end (577,116,156,815,309,849,672 games; 23,475,688 positions = OEIS A112737's sum).
--sides: every single-vacancy problem of triangle N (one forward count per vacancy orbit, each
giving every survivor's count and the vacancy's games; triangle5 against Durango Bill's 15-hole
table). --hoppers: every problem of Hoppers. --french c1,d2,d3: the French-37 vacancies (heavy:
see docs/peg.md). Prints each count with the process's CPU seconds (user + sys) and wall seconds
since the previous line, peak RSS, and the load; a mismatch prints MISMATCH and makes the exit
status 1. Times on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

from puzzlesat.native_search.peg.games import board_table, count_games
from puzzlesat.puzzles.peg import board, catalogue, hole_label, parse_hole

ENGLISH_WINS = 40_861_647_040_079_968          # Durango Bill, Peg33
ENGLISH_GAMES = 577_116_156_815_309_849_672     # Durango Bill, Peg33 ("game sequences")
A112738_MIDDLE = 230_230                        # positions after 15 jumps that can still win
A112737_TOTAL = 23_475_688                      # positions reachable, up to symmetry
DURANGO_15 = {0: (29_760, 568_630), 1: (14_880, 294_543), 3: (85_258, 1_149_568),
              4: (1_550, 137_846)}  # vacancy: (winning sequences, games); his "total possible
#                                     games" column is games + winning sequences
ok = True


def check(cond: bool, what: str) -> str:
    global ok
    if not cond:
        ok = False
        print(f"MISMATCH: {what}")
    return "ok" if cond else "MISMATCH"


class Clock:
    def __init__(self):
        self.cpu, self.wall = self._cpu(), time.monotonic()

    @staticmethod
    def _cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def lap(self) -> str:
        cpu, wall = self._cpu(), time.monotonic()
        out = (f"{cpu - self.cpu:.1f} s CPU, {wall - self.wall:.1f} s wall, peak RSS "
               f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, load "
               f"{os.getloadavg()[0]:.1f}")
        self.cpu, self.wall = cpu, wall
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--english", action="store_true")
    ap.add_argument("--sides", default="")
    ap.add_argument("--hoppers", action="store_true")
    ap.add_argument("--french", default="")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--memory-mb", type=int, default=None)
    ap.add_argument("--work-dir", default=None)
    a = ap.parse_args()
    deadline = None if a.time_limit is None else time.monotonic() + a.time_limit
    memory = None if a.memory_mb is None else a.memory_mb * 2**20
    clock = Clock()
    if a.english:
        inst = catalogue()["english33"]()
        m = count_games(inst, deadline=deadline, memory=memory, work_dir=a.work_dir)
        print(f"english33 meet: {m.solutions} winning sequences "
              f"[{check(m.solutions == ENGLISH_WINS, 'english winning count')}], meeting layer "
              f"{m.meeting} [{check(m.meeting == A112738_MIDDLE, 'A112738')}], "
              f"{sum(m.layers_forward) + sum(m.layers_backward)} positions; {clock.lap()}")
        f = count_games(inst, direction="forward", deadline=deadline, memory=memory,
                        work_dir=a.work_dir)
        print(f"english33 forward: {f.solutions} winning sequences "
              f"[{check(f.solutions == ENGLISH_WINS, 'english forward winning count')}], "
              f"{f.games} games [{check(f.games == ENGLISH_GAMES, 'english games')}], "
              f"{sum(f.layers_forward)} positions "
              f"[{check(sum(f.layers_forward) == A112737_TOTAL, 'A112737')}], {f.words} words; "
              f"{clock.lap()}")
        print(f"  winning sequences by survivor: {f.per_finish}")
        print(f"  games by pegs left: {f.dead_by_pegs}")
    boards = [f"triangle{s}" for s in a.sides.split(",") if s] + (["hoppers"] if a.hoppers else [])
    for bname in boards:
        b = board(bname)
        for v, r, rows in board_table(b, deadline=deadline, memory=memory, work_dir=a.work_dir):
            extra = ""
            if bname == "triangle5" and v in DURANGO_15:
                extra = " [" + check((r.solutions, r.games) == DURANGO_15[v], f"15-hole {v}") + "]"
            print(f"{bname} vacate {hole_label(b, v)}: {r.solutions} winning sequences, "
                  f"{r.games} games{extra}; {sum(r.layers_forward)} positions, "
                  f"{r.group_order} symmetries; {clock.lap()}")
            for row in rows:
                if row.solutions:
                    print(f"  -> {hole_label(b, row.finish)}: {row.solutions} "
                          f"(orbit of {row.orbit_size})")
    if a.french:
        b = board("french37")
        for v in a.french.split(","):
            vh = parse_hole(b, v)
            for _, r, rows in board_table(b, [vh], "all", deadline=deadline, memory=memory,
                                          work_dir=a.work_dir,
                                          progress=lambda v, s, d, n: print(
                                              f"  {v} {s} {d}: {n}", file=sys.stderr, flush=True)):
                print(f"french37 vacate {v}: {r.solutions} winning sequences, {r.games} games "
                      f"({r.reason or 'complete'}); layers {r.layers_forward}; {clock.lap()}")
                for row in rows:
                    if row.solutions:
                        print(f"  -> {hole_label(b, row.finish)}: {row.solutions}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
