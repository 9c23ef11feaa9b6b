"""Random differential run: N seeded random instances per generator of tests/test_differential.py
(maze, big 10x11 maze, peg, sliding, pentomino), each through `compare` over the engines and
checked against the oracles written there from the rules. The full generators (not the CI's
`quick` ones): 2x3 / 3x2 sliding starts up to 21 moves, peg starts up to 8 pegs, big mazes with
multiplier-heavy ops and cpsat:time.

Run: python bench/differential.py N [--seed S] [--time-limit T] [--only maze,peg,...]
Prints one line per instance that fails (with the instance), a summary per family, and exits 1
if any verdict was not AGREE or any engine's answer differed from the oracle.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_differential import GENERATORS, cases, describe, run_case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="instances per generator")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per engine run")
    ap.add_argument("--only", default=",".join(GENERATORS), help="comma-separated generators")
    args = ap.parse_args()
    per = {g: args.n for g in args.only.split(",")}
    t0 = time.time()
    runs, bad, seen = Counter(), Counter(), Counter()
    for c in cases(args.seed, per):
        key = c.family if "big" not in c.note else "maze-big"
        seen[key] += 1
        runs[key] += len(c.engines)
        problems = run_case(c, args.time_limit)
        if problems:
            bad[key] += 1
            print(f"FAIL {c.instance.name}: {problems}\n{describe(c)}", flush=True)
    print(f"seed {args.seed}, {sum(seen.values())} instances, {sum(runs.values())} engine runs, "
          f"{time.time() - t0:.0f} s")
    for k in seen:
        print(f"  {k:<10} {seen[k]:>4} instances {runs[k]:>5} engine runs  {bad[k]} failed")
    print("every verdict AGREE and equal to the oracle" if not bad else "FAILURES above")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
