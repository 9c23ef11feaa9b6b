"""Short peg solutions (`peg problems --upper-bound`) against the known minima, timed.

Run: python bench/peg_upper.py [--sides 7,8,9,10] [--width 10000] [--weights p8i16r8m16,...]
       [--end-pegs 9]
Prints, per triangle side and beam score, the beam campaign's result (beams only, one per vacancy
orbit, in memory): problems reached of those the position classes allow, the least moves found
against OEIS A127500 (never below it: a solution below a proved minimum is a bug, exit status 1),
the sum of the best moves over the problems reached, and the process's CPU seconds for it. This is
how the default scores were chosen (docs/peg.md, short solutions). Times on a shared machine: CPU
seconds, not wall.
"""
from __future__ import annotations

import argparse
import sys
import time

from puzzlesat.compare.peg.upper import Plan, run, solvable_pairs
from puzzlesat.puzzles.peg import board

A127500 = {4: 5, 5: 9, 6: 9, 7: 12, 8: 13, 9: 16, 10: 18}   # a(11), a(12): 19..28, 21..29 (Bell)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sides", default="7,8,9,10")
    ap.add_argument("--width", type=int, default=10_000)
    ap.add_argument("--weights", default="p8i16r8m16,p8i16r4m32,p8i4r1m8")
    ap.add_argument("--end-pegs", type=int, default=9)
    a = ap.parse_args()
    ok = True
    print(f"{'board':>10} {'weights':>12} {'width':>8} {'reached':>9} {'least':>6} {'A127500':>8} "
          f"{'sum':>6} {'CPU s':>8}")
    for side in (int(s) for s in a.sides.split(",")):
        b = board(f"triangle{side}")
        allowed = len(solvable_pairs(b))
        for w in a.weights.split(","):
            c0 = time.process_time()
            camp = run(b, Plan(widths=(a.width,), weights=(w,), end_pegs=a.end_pegs),
                       phases=("beam",))
            cpu = time.process_time() - c0
            moves = [r.moves for r in camp.best.values()]
            least = min(moves) if moves else None
            known = A127500.get(side)
            if known is not None and least is not None and least < known:
                ok = False
            print(f"{b.name:>10} {w:>12} {a.width:>8} {len(moves):>4}/{allowed:<4} "
                  f"{least if least is not None else '-':>6} {known if known else '-':>8} "
                  f"{sum(moves):>6} {cpu:>8.1f}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
