"""Peg single-vacancy problem tables (`peg problems`) and Bell's level tables, timed.

Run: python bench/peg_problems.py [--sides 4,5,6,7,8] [--french] [--levels] [--method table|bfs]
       [--stream 1] [--forward-depth D] [--backward-depth D] [--max-forward N] [--beam W] [--least]
       [--plan V:D,... [--json-dir DIR]]
Prints, per triangle side, the per-problem table (vacate, finish, min moves, impossible, or the
proved bounds of a problem left open), the minimum against OEIS A127500 (a mismatch, or a minimum
that open problems could still beat, prints MISMATCH / NOT PROVED and makes the exit status 1),
and the process's CPU seconds (user + sys), wall seconds and peak RSS; with --french the French-37
table (every vacancy orbit, every finish: minimum, impossible, or bounds with a checked solution);
with --plan V:D,... (and --json-dir DIR) the table one vacancy orbit at a time, each with its own
forward depth (how triangle8's complete table is made; docs/peg.md); with --least only the least minimum over all problems per side (one search between all starts and
all single pegs); with --levels both English central-game level tables (native:bfs --exhaust, forward and backward)
against G. Bell's. Progress of the shared layers goes to stderr. Times on a shared machine.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time

from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.peg.problems import minimum, minimum_proved, problems
from puzzlesat.puzzles.peg import board, catalogue, hole_label

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


def usage() -> tuple[float, float]:
    """(CPU seconds user + sys, peak RSS MiB) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss / 1024


def table(name: str, opts: dict) -> list:
    b = board(name)
    t0, (c0, _) = time.perf_counter(), usage()
    rows = []
    print(f"\n{name} ({b.n} holes)", flush=True)
    def say(line: str) -> None:
        print(f"    [{time.perf_counter() - t0:7.1f} s] {line}"[:200], file=sys.stderr, flush=True)
    for r in problems(b, progress=say, **opts):
        rows.append(r)
        print(f"  {hole_label(b, r.vacate):>4} -> {hole_label(b, r.finish):>4}: {r.moves_text():>10}  "
              f"{r.proof:<15} x{r.orbit_size:<2}", flush=True)
    c1, rss = usage()
    searched = [r for r in rows if r.proof != "position class"]
    print(f"  {len(rows)} problems ({len(searched)} past the position classes), "
          f"{sum(r.min_moves is not None for r in rows)} solved, "
          f"{sum(r.status.value == 'INFEASIBLE' for r in rows)} impossible, "
          f"{sum(r.status.value not in ('OPTIMAL', 'INFEASIBLE') for r in rows)} open; "
          f"wall {time.perf_counter() - t0:.1f} s, CPU {c1 - c0:.1f} s, peak RSS {rss:.0f} MiB")
    return rows


def triangle(n: int, opts: dict) -> None:
    rows = table(f"triangle{n}", opts)
    m, proved = minimum(rows), minimum_proved(rows)
    what = verdict(m == A127500[n], f"triangle{n}") if proved else "NOT PROVED"
    if not proved:
        global ok
        ok = False
    print(f"  minimum {m} (A127500: {A127500[n]}) {what}")


def least(n: int, a) -> None:
    """The least minimum over all problems of triangle(n) alone (peg problems --least)."""
    from puzzlesat.native_search.peg.problems import problem_instance
    from puzzlesat.native_search.peg.table import least_over_all
    from puzzlesat.puzzles.peg import check
    b = board(f"triangle{n}")
    t0, (c0, _) = time.perf_counter(), usage()
    r = least_over_all(b, a.forward_depth, a.backward_depth, a.stream, a.beam,
                       progress=lambda s: print(f"    [{time.perf_counter() - t0:7.1f} s] {s}",
                                                file=sys.stderr, flush=True))
    c1, rss = usage()
    got = check(problem_instance(b, *r.pair), r.solution) if r.solution else None
    print(f"\ntriangle{n} least over all problems: "
          + (f"{r.moves}" if r.moves is not None else f">= {r.lower}, <= {got}")
          + f" (A127500: {A127500[n]}) "
          + (verdict(r.moves == A127500[n] == got, f"triangle{n} least") if r.moves is not None
             else "NOT PROVED"))
    print(f"  forward layers {r.layers_forward}\n  backward layers {r.layers_backward}")
    if r.solution:
        print(f"  solution {r.pair[0]} -> {r.pair[1]} ({got} moves, checked): "
              + " ".join(f"{x}-{z}" for x, _, z in r.solution))
    print(f"  wall {time.perf_counter() - t0:.1f} s, CPU {c1 - c0:.1f} s, peak RSS {rss:.0f} MiB")
    if r.moves is None:
        global ok
        ok = False


def plan(n: int, steps: str, opts: dict, json_dir: str | None) -> None:
    """triangle(n)'s table one vacancy orbit at a time, each with its own forward depth
    (`steps` = "V:D[:auto],...", every vacancy orbit's least hole once; ":auto" grows that step's
    backward layers by --max-backward instead of --backward-depth): the vacancies with the
    hardest problems need deeper layers than fit for all together. Each step's rows go to
    JSON_DIR/triangle{n}-v{V}.json as soon as it ends (partial results survive)."""
    import json
    import os
    from puzzlesat.native_search.peg.problems import orbit_pairs
    b = board(f"triangle{n}")
    words = [w.split(":") for w in steps.split(",") if w]
    depth = {int(w[0]): int(w[1]) for w in words}
    auto = {int(w[0]) for w in words if w[2:] == ["auto"]}
    reps = sorted({v for (v, _), _ in orbit_pairs(b)})
    if sorted(depth) != reps:
        sys.exit(f"--plan: give a depth for each vacancy orbit {reps} exactly once (got {sorted(depth)})")
    t0, (c0, _) = time.perf_counter(), usage()
    rows = []
    print(f"\ntriangle{n} ({b.n} holes), one vacancy orbit at a time", flush=True)
    for v in reps:
        s0, (d0, _) = time.perf_counter(), usage()
        def say(line: str, s0: float = s0) -> None:
            print(f"    [{time.perf_counter() - s0:7.1f} s] {line}"[:200], file=sys.stderr,
                  flush=True)
        o = {**opts, "forward_depth": depth[v]}
        if v in auto:
            o["backward_depth"] = None
        step = list(problems(b, vacate=[v], progress=say, **o))
        d1, rss = usage()
        for r in step:
            print(f"  {hole_label(b, r.vacate):>4} -> {hole_label(b, r.finish):>4}: "
                  f"{r.moves_text():>10}  {r.proof:<15} x{r.orbit_size:<2}", flush=True)
        print(f"  vacancy {v} (forward depth {depth[v]}"
              f"{', backward by the caps' if v in auto else ''}): wall {time.perf_counter() - s0:.1f} s, "
              f"CPU {d1 - d0:.1f} s, peak RSS so far {rss:.0f} MiB", flush=True)
        if json_dir:
            os.makedirs(json_dir, exist_ok=True)
            with open(os.path.join(json_dir, f"triangle{n}-v{v}.json"), "w") as f:
                json.dump({"board": b.name, "forward_depth": depth[v], "options": o,
                           "problems": [r.json(b) for r in step]}, f)
        rows += step
    c1, rss = usage()
    searched = [r for r in rows if r.proof != "position class"]
    open_ = [r for r in rows if r.status.value not in ("OPTIMAL", "INFEASIBLE")]
    print(f"  {len(rows)} problems ({len(searched)} past the position classes), "
          f"{sum(r.min_moves is not None for r in rows)} solved, "
          f"{sum(r.status.value == 'INFEASIBLE' for r in rows)} impossible, {len(open_)} open; "
          f"wall {time.perf_counter() - t0:.1f} s, CPU {c1 - c0:.1f} s, peak RSS {rss:.0f} MiB")
    m, proved = minimum(rows), minimum_proved(rows)
    global ok
    if open_:
        ok = False
        print("  NOT COMPLETE: open problems remain")
    what = verdict(m == A127500[n], f"triangle{n}") if proved else "NOT PROVED"
    ok = ok and proved
    print(f"  minimum {m} (A127500: {A127500[n]}) {what}")


def french(opts: dict) -> None:
    b = board("french37")
    rows = table("french37", opts)
    solvable = sorted({hole_label(b, r.vacate) for r in rows
                       if r.min_moves is not None or r.upper is not None})
    print(f"  vacancies with a checked solution to some single survivor: {', '.join(solvable)} "
          f"{verdict(solvable == ['c1', 'd2', 'd3'], 'french37 solvable vacancies')}")


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
    ap.add_argument("--method", default="table", choices=["table", "bfs"])
    ap.add_argument("--stream", type=int, default=1)
    ap.add_argument("--backward-depth", type=int, default=None)
    ap.add_argument("--max-forward", type=int, default=None)
    ap.add_argument("--max-backward", type=int, default=None)
    ap.add_argument("--beam", type=int, default=200_000)
    ap.add_argument("--forward-depth", type=int, default=None)
    ap.add_argument("--least", action="store_true",
                    help="only the least minimum over all problems per side (peg problems --least)")
    ap.add_argument("--plan", default=None, metavar="V:D[:auto],...",
                    help="one vacancy orbit at a time with its own forward depth, ':auto' = backward "
                         "layers by --max-backward (triangle8: docs/peg.md)")
    ap.add_argument("--json-dir", default=None, help="with --plan: each vacancy's rows as JSON here")
    a = ap.parse_args()
    if a.least:
        for n in (int(x) for x in a.sides.split(",") if x):
            least(n, a)
        sys.exit(0 if ok else 1)
    opts: dict = {"method": a.method}
    if a.method == "table":
        opts.update(stream=a.stream, backward_depth=a.backward_depth, beam_width=a.beam,
                    forward_depth=a.forward_depth)
        opts.update({k: v for k, v in (("max_forward", a.max_forward),
                                       ("max_backward", a.max_backward)) if v is not None})
    if a.plan:
        for n in (int(x) for x in a.sides.split(",") if x):
            plan(n, a.plan, opts, a.json_dir)
        sys.exit(0 if ok else 1)
    for n in (int(x) for x in a.sides.split(",") if x):
        triangle(n, opts)
    if a.french:
        french(opts)
    if a.levels:
        print("\nenglish33 central game, level tables (native:bfs --exhaust)")
        levels()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
