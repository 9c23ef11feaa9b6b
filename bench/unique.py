"""Task unique, certified, on the built-in catalogue (issue 36): is the (optimal) solution unique?

    python bench/unique.py                          # the built-in catalogue (samples below), 60 s each
    python bench/unique.py --instances peg/hoppers,sliding/8-hardest --time-limit 60
    python bench/unique.py --families nqueens       # a plug-in's catalogue
    python bench/unique.py --json > unique.jsonl    # one record per instance, as they finish

Each instance is asked `unique` of one model engine (the family's SAT engine; CP-SAT for the
maze, which has none) with `certify=True`: UNIQUE comes with the DRAT/LRAT proof that the CNF with
the one solution blocked is unsatisfiable, checked by puzzlesat's own checker before the answer
is reported; MULTIPLE with two checked solutions that differ on the projection (nothing to
certify); UNKNOWN at the time limit. The table gives the answer, the optimum, the certificate's
verdict, the engine's own seconds, the worker's CPU seconds (none when the worker was killed at
the hard limit), the CPU seconds of the whole run (this process and its workers, the checker
included) and the proof checker's, and the load before and after.

Every instance of the built-in families (maze, peg, pentomino, sliding) is run, except that of
the sliding sets with published optima only a sample is: Korf's 100 15-puzzles (`korf-`) and Korf
and Felner's 50 24-puzzles (`kf24-`) by their SAMPLE easiest for a model — the shortest published
optimum (the model's horizon), then the name. The rest of a sampled set, and Clausecker's 14
24-puzzles that no search has solved (`c24u-`, no optimum published: harder than every `kf24-`),
get a row "not run" that says whether every sampled instance of that set was UNKNOWN.
"""
from __future__ import annotations

import argparse
import json
import os
import resource

import puzzlesat as ps

MODEL = {"peg": "sat", "pentomino": "sat", "sliding": "sat", "maze": "cpsat", "nqueens": "sat"}
BUILT_IN = ("maze", "peg", "pentomino", "sliding")
SAMPLE = {"sliding/korf-": 10, "sliding/kf24-": 5}  # prefix -> how many of the easiest are run
NOT_RUN = {"sliding/c24u-": "sliding/kf24-"}  # prefix -> the sampled set it is harder than


def _group(name: str) -> str | None:
    return next((p for p in (*SAMPLE, *NOT_RUN) if name.startswith(p)), None)


def default_instances(families=BUILT_IN) -> tuple[list[str], list[str]]:
    """(run, not run): the catalogue of `families`, with SAMPLE's sets cut to their easiest."""
    names = [n for n in ps.catalogue() if n.split("/")[0] in families]
    run, skipped = [], []
    for prefix, k in SAMPLE.items():
        group = sorted((n for n in names if n.startswith(prefix)),
                       key=lambda n: (ps.load(n).optimal or 10**9, n))
        run += group[:k]
        skipped += group[k:]
    skipped += [n for n in names if _group(n) in NOT_RUN]
    run += [n for n in names if _group(n) is None]
    return run, skipped


def one(name: str, time_limit: float) -> dict:
    """The unique record of instance `name` (its family's MODEL engine, certified)."""
    fam = name.split("/")[0]
    engine = MODEL.get(fam, "sat")
    inst = ps.load(name)
    u0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    r = ps.solve(inst, engine, "unique", time_limit=time_limit, certify=True)
    u1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    c = r.certificate
    return {"instance": name, "engine": r.engine, "answer": r.answer, "objective": r.objective,
            "published": getattr(inst, "optimal", None), "checked": r.checked,
            "certificate": None if c is None else str(c.verdict),
            "engine_s": round(r.seconds, 3), "cpu_s": r.stats.get("cpu_seconds"),
            "process_cpu_s": round(sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime
                                       for a, b in zip(u0, u1)), 2),
            "checker_s": None if c is None else c.checker_seconds,
            "reason": (r.reason or "")[-120:]}


def not_run(name: str, rows: list[dict]) -> dict:
    """The row of an instance left out of its set's sample: what the sample measured."""
    g = _group(name)
    sampled = [r for r in rows if _group(r["instance"]) == NOT_RUN.get(g, g) and r["answer"] != "not run"]
    unknown = [r for r in sampled if r["answer"] == "UNKNOWN"]
    why = (f"not run: all {len(sampled)} sampled {NOT_RUN.get(g, g)}* instances (the easiest) were "
           "UNKNOWN at the limit" if sampled and len(unknown) == len(sampled)
           else f"not run ({len(unknown)} of {len(sampled)} sampled {NOT_RUN.get(g, g)}* UNKNOWN)")
    return {"instance": name, "engine": "", "answer": "not run", "objective": None,
            "published": getattr(ps.load(name), "optimal", None), "checked": 0,
            "certificate": None, "engine_s": None, "cpu_s": None, "process_cpu_s": None, "checker_s": None,
            "reason": why}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default=None, help="comma-separated names (default: see above)")
    ap.add_argument("--families", default=",".join(BUILT_IN),
                    help="comma-separated families whose catalogue is run (default: the built-in)")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--json", action="store_true", help="one JSON record per line, as they finish")
    a = ap.parse_args()
    names, skipped = (a.instances.split(","), []) if a.instances else default_instances(
        tuple(a.families.split(",")))
    cpu0 = os.times()
    load0 = os.getloadavg()
    rows = []
    for name in names:
        rec = one(name, a.time_limit)
        rows.append(rec)
        if a.json:
            print(json.dumps(rec), flush=True)
    cpu1 = os.times()
    for name in skipped:
        rec = not_run(name, rows)
        rows.append(rec)
        if a.json:
            print(json.dumps(rec), flush=True)
    cpu = sum(cpu1[:4]) - sum(cpu0[:4])
    if a.json:
        return
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.1f} / after {load1[0]:.1f} (1-minute), {os.cpu_count()} CPUs; "
          f"CPU of the whole run {cpu:.0f} s (this process and its workers)")
    print("| instance | engine | answer | optimum (published) | certificate | engine s | CPU s | process CPU s | checker s | reason |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        opt = "" if r["objective"] is None else str(r["objective"])
        if r["published"] is not None:
            opt += f" ({r['published']})"
        print(f"| {r['instance']} | {r['engine']} | {r['answer']} | {opt} | {r['certificate'] or ''} | "
              f"{'' if r['engine_s'] is None else r['engine_s']} | {'' if r['cpu_s'] is None else r['cpu_s']} | "
              f"{'' if r['process_cpu_s'] is None else r['process_cpu_s']} | "
              f"{'' if r['checker_s'] is None else r['checker_s']} | {r['reason']} |")
    tally: dict = {}
    for r in rows:
        tally[r["answer"]] = tally.get(r["answer"], 0) + 1
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
