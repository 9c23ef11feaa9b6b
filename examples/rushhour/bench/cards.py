"""Rush Hour benchmark: the 40 cards and the published hardest positions with every engine.

Prints one JSON line per (instance, engine): status, optimum, wall and CPU seconds (the worker's
process time, solver threads included), model size, horizons tried; the machine load before and
after. Run it under `nice -n 15` on a shared machine and quote CPU seconds with the load:

    nice -n 15 python examples/rushhour/bench/cards.py --time-limit 120
    nice -n 15 python examples/rushhour/bench/cards.py --only crs-93,fogleman-51 --engines native

Cards run in order of their published optimum; `--give-up N` stops a model engine after N
cards in a row that it answered UNKNOWN (the longer ones are out of its reach too).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import puzzlesat as ps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0, help="wall seconds per run")
    ap.add_argument("--engines", default="native,cpsat,sat")
    ap.add_argument("--only", default="", help="comma-separated catalogue names (default: the "
                    "cards by optimum, then the hardest positions)")
    ap.add_argument("--give-up", type=int, default=3)
    args = ap.parse_args()
    from puzzlesat_rushhour import FAMILY
    if "rushhour" not in [e.family for e in ps.engines()]:
        ps.register_family(FAMILY)
    cat = FAMILY.catalogue()
    from puzzlesat_rushhour.native import Search  # load the compiled kernels here, once: the
    Search(cat["small-4x4"]()).run(2)             # forked workers inherit them
    if args.only:
        names = args.only.split(",")
    else:
        cards = sorted((n for n in cat if n.startswith("card-")), key=lambda n: (cat[n]().optimum, n))
        names = cards + ["crs-93-moves", "fogleman-51", "fogleman-60", "crs-93"]
    print(json.dumps({"load_before": os.getloadavg()}), flush=True)
    misses = {e: 0 for e in args.engines.split(",")}
    for name in names:
        inst = cat[name]()
        for eng in misses:
            if eng != "native" and misses[eng] >= args.give_up:
                continue
            r = ps.solve(inst, eng, "optimize", time_limit=args.time_limit)
            st = r.stats
            row = {"instance": name, "metric": inst.metric, "published": inst.optimum,
                   "engine": eng, "status": r.status.value, "optimum": r.objective,
                   "wall": round(r.seconds, 2), "cpu": st.get("cpu_seconds"),
                   "vars": st.get("vars"), "size": st.get("clauses", st.get("constraints")),
                   "horizons": len(st.get("horizons", [])) or None,
                   "component": st.get("component"), "reason": r.reason}
            if r.status is ps.Status.OPTIMAL and r.objective != inst.optimum is not None:
                row["WRONG"] = True
            misses[eng] = misses[eng] + 1 if r.status is ps.Status.UNKNOWN else 0
            print(json.dumps(row), flush=True)
    print(json.dumps({"load_after": os.getloadavg()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
