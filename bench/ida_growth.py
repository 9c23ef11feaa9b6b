"""What the next IDA* iterations would cost, from the iterations a run completed (issue 38).

    puzzlesat solve sliding/c24u-01 -e native:ida -o pdb=zpdb-large -o fsm=loops-16 \\
        --time-limit 1500 --json > c24u.jsonl
    python bench/ida_growth.py c24u.jsonl --to 125            # project the iterations up to 125
    python bench/ida_growth.py screen.jsonl --check           # the same rule against real counts

Reads `puzzlesat solve --json` records of `native:ida` (one per line; other lines are skipped):
`stats.iterations_expanded_lookups` (zero-aware catalogues: nodes expanded per iteration) or
`stats.iterations` (nodes generated). An iteration counts as complete unless it is the run's last
one (cut by the time limit, or stopped at its first solution). Iteration bounds step by 2; the
last one is `objective` (OPTIMAL) or `stats.lower_bound` (UNKNOWN).

Projection: each further iteration grows by the ratio of the last two complete ones (`last`),
or by the geometric mean of the last three ratios (`mean3`); the CPU seconds at the run's own
rate (expanded / search CPU s). This is a growth-ratio estimate, not a sampling estimator: the
ratio in these trees falls slowly with the bound (heuristic error spreads), so it overestimates
a little; `--check` measures how much on runs that went further (each record: the last complete
iteration predicted from the iterations `--ahead` before it, predicted / real).
"""
from __future__ import annotations

import argparse
import json
import math
import sys


def iterations(rec: dict) -> tuple[list[int], int, str]:
    """(work per iteration, bound of the run's last iteration, the unit) of one solve record."""
    st = rec.get("stats") or {}
    if not isinstance(st, dict):
        raise ValueError("'stats' is not an object")
    if "iterations_expanded_lookups" in st:
        work, unit = [int(e[0]) for e in st["iterations_expanded_lookups"]], "expanded"
    else:
        work, unit = [int(n) for n in st.get("iterations", [])], "nodes"
    last = rec.get("objective") if rec.get("status") == "OPTIMAL" else st.get("lower_bound")
    if last is None:
        raise ValueError(f"{rec.get('instance')}: no bound for the last iteration "
                         f"(status {rec.get('status')})")
    return work, int(last), unit


def ratios(done: list[int]) -> list[float]:
    return [b / a for a, b in zip(done, done[1:]) if a > 0]


def grow(done: list[int], steps: int, rule: str) -> list[float]:
    """The next `steps` iterations' work after the complete ones in `done`."""
    r = ratios(done)
    if not r:
        raise ValueError("fewer than two complete iterations")
    g = r[-1] if rule == "last" else math.exp(sum(math.log(x) for x in r[-3:]) / len(r[-3:]))
    out, w = [], float(done[-1])
    for _ in range(steps):
        w *= g
        out.append(w)
    return out


class BadRecord(Exception):
    """A record this script cannot use: the message names the file and line."""


def read(paths: list[str]) -> list[dict]:
    """The native:ida records of `paths` ('-': stdin), each checked before use: files are read by
    puzzlesat's bounded reader (regular files only), a line that is not JSON or whose iteration
    data is malformed is a BadRecord naming the file and line."""
    from puzzlesat.core.inputs import MAX_INPUT_BYTES, read_text
    recs = []
    for p in paths or ["-"]:
        text = sys.stdin.read(MAX_INPUT_BYTES + 1) if p == "-" else read_text(p, what="record file")
        if len(text) > MAX_INPUT_BYTES:
            raise BadRecord(f"{p}: more than {MAX_INPUT_BYTES:,} characters")
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("not a JSON object")
                if "objective" not in rec and "length" in rec:  # a screen log's line (the 10-min screen)
                    rec = dict(rec, objective=rec["length"],
                               instance=rec.get("instance", f"kf24-{int(rec['id']):02d}"))
                if str(rec.get("engine", "native:ida")).startswith("native:ida") and "stats" in rec:
                    if (rec.get("objective") if rec.get("status") == "OPTIMAL"
                            else rec["stats"].get("lower_bound")) is None:   # e.g. a killed run
                        print(f"{p}, line {n}: skipped: no bound (status {rec.get('status')})",
                              file=sys.stderr)
                        continue
                    iterations(rec)   # the fields the projection reads, checked here
                    recs.append(rec)
            except (ValueError, KeyError, TypeError, IndexError) as e:
                raise BadRecord(f"{p}, line {n}: {e}") from None
    return recs


def _positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="solve --json records ('-' or none: stdin)")
    ap.add_argument("--to", type=int, default=0, help="project the iterations up to this bound")
    ap.add_argument("--rule", choices=("last", "mean3"), default="last",
                    help="growth per iteration: the last complete ratio (default; --check: it "
                         "overestimated 1.09-1.30x two iterations ahead) or the mean of the last three")
    ap.add_argument("--cores", type=_positive, default=2, help="wall hours = CPU hours / cores")
    ap.add_argument("--check", action="store_true",
                    help="predict each record's last complete iteration from the earlier ones")
    ap.add_argument("--ahead", type=_positive, default=2,
                    help="--check: from the iterations this many before it (default 2)")
    a = ap.parse_args(argv)
    from puzzlesat.core.result import InputError
    try:
        recs = read(a.files)
    except (BadRecord, InputError) as e:
        print(f"ida_growth.py: {e}", file=sys.stderr)
        return 2
    if not recs:
        print("no native:ida records", file=sys.stderr)
        return 2
    if a.check:
        print(f"| instance | bound | real | predicted from {a.ahead} before (last / mean3) | pred/real |")
        print("|---|---|---|---|---|")
        for rec in recs:
            work, last, unit = iterations(rec)
            done = work[:-1]
            if len(done) < a.ahead + 2:
                continue
            bound = last - 2
            real = done[-1]
            p_last = grow(done[:-a.ahead], a.ahead, "last")[-1]
            p_mean = grow(done[:-a.ahead], a.ahead, "mean3")[-1]
            print(f"| {rec['instance']} | {bound} | {real:,} | {p_last:,.0f} / {p_mean:,.0f} | "
                  f"{p_last / real:.2f} / {p_mean / real:.2f} |")
        return 0
    for rec in recs:
        work, last, unit = iterations(rec)
        done = work[:-1]
        st = rec["stats"]
        cpu = st.get("search_cpu_seconds") or 0.0
        rate = (sum(work) / cpu) if cpu else 0.0
        first = last - 2 * (len(work) - 1)
        print(f"{rec['instance']}: {rec['status']}, {st.get('heuristic')}, h0 {st.get('h0')}; "
              f"{unit} per iteration, bounds {first}..{last}:")
        for i, w in enumerate(work):
            tag = "complete" if i < len(done) else "cut / partial"
            print(f"  {first + 2 * i}: {w:,} ({tag})")
        print(f"  growth ratios of complete iterations: "
              f"{', '.join(f'{r:.2f}' for r in ratios(done))}")
        print(f"  rate: {rate:,.0f} {unit} per search CPU s ({sum(work):,} in {cpu} CPU s)")
        if rec["status"] == "UNKNOWN" and a.to >= last and len(done) >= 2:
            steps = (a.to - (last - 2)) // 2
            proj = grow(done, steps, a.rule)
            total = float(sum(done))  # a new run redoes the complete iterations first
            print(f"  projected ({a.rule} ratio), CPU h at that rate; a run from the start to the "
                  f"end of that iteration, wall h on {a.cores} cores:")
            for k, w in enumerate(proj):
                total += w
                b = last + 2 * k
                h = w / rate / 3600 if rate else float("nan")
                print(f"  {b}: {w:.3g} {unit}, {h:.3g} CPU h; from the start: {total:.3g} {unit}, "
                      f"{total / rate / 3600 / a.cores if rate else float('nan'):.3g} wall h "
                      f"-> proves >= {b + 2}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
