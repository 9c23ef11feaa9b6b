"""Task unique, certified, on the built-in catalogue (issue 36): is the (optimal) solution unique?

    python bench/unique.py                          # every instance a model may answer in 60 s
    python bench/unique.py --instances peg/hoppers,sliding/8-hardest --time-limit 60
    python bench/unique.py --json > unique.jsonl    # one record per instance, as they finish

Each instance is asked `unique` of one model engine (the family's SAT engine; CP-SAT for the
maze, which has none) with `certify=True`: UNIQUE comes with the DRAT/LRAT proof that the CNF with
the one solution blocked is unsatisfiable, checked by puzzlesat's own checker before the answer
is reported; MULTIPLE with two checked solutions that differ on the projection (nothing to
certify); UNKNOWN at the time limit. The table gives the answer, the optimum, the certificate's
verdict, the engine's own seconds and CPU seconds, and the load before and after.

The default list leaves out what no model answers in a minute on this machine (the 24-puzzles,
Korf's 15-puzzles, the full English, French and diamond peg boards: their optima take the SAT
engine minutes to hours).
"""
from __future__ import annotations

import argparse
import json
import os

import puzzlesat as ps

MODEL = {"peg": "sat", "pentomino": "sat", "sliding": "sat", "maze": "cpsat", "nqueens": "sat"}
SKIP = ("sliding/korf-", "sliding/kf24-", "sliding/c24u-", "peg/english33", "peg/french37",
        "peg/diamond41")


def default_instances() -> list[str]:
    """The catalogue minus what SKIP names (see the module docstring)."""
    return [n for n in ps.catalogue() if not n.startswith(SKIP)]


def one(name: str, time_limit: float) -> dict:
    """The unique record of instance `name` (its family's MODEL engine, certified)."""
    fam = name.split("/")[0]
    engine = MODEL.get(fam, "sat")
    inst = ps.load(name)
    r = ps.solve(inst, engine, "unique", time_limit=time_limit, certify=True)
    return {"instance": name, "engine": r.engine, "answer": r.answer, "objective": r.objective,
            "checked": r.checked, "certificate": None if r.certificate is None else str(r.certificate.verdict),
            "engine_s": r.stats.get("engine_seconds"), "cpu_s": r.stats.get("cpu_seconds"),
            "reason": (r.reason or "")[-120:]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default=None, help="comma-separated names (default: see above)")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--json", action="store_true", help="one JSON record per line, as they finish")
    a = ap.parse_args()
    names = a.instances.split(",") if a.instances else default_instances()
    load0 = os.getloadavg()
    rows = []
    for name in names:
        rec = one(name, a.time_limit)
        rows.append(rec)
        if a.json:
            print(json.dumps(rec), flush=True)
    if a.json:
        return
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.1f} / after {load1[0]:.1f} (1-minute), {os.cpu_count()} CPUs")
    print("| instance | engine | answer | optimum | certificate | engine s | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['instance']} | {r['engine']} | {r['answer']} | "
              f"{'' if r['objective'] is None else r['objective']} | {r['certificate'] or ''} | "
              f"{r['engine_s'] or ''} | {r['cpu_s'] or ''} |")
    tally: dict = {}
    for r in rows:
        tally[r["answer"]] = tally.get(r["answer"], 0) + 1
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
