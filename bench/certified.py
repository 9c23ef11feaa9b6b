"""Certified answers end to end: engines run with certify=True, each answer's proofs checked by the
runner; one row per (instance, task, engine, solver).

Run: /work/venv-certify2/bin/python bench/certified.py [--slow] [--keep DIR]

Per row: the claim, the solver, the proofs (one per UNSAT call the certificate needs), their
bytes and lemmas, the engine's CPU seconds (the whole run: every solver call, the enumeration,
the proof-logging refutation of a count), the checker's CPU seconds (parsing + checking, summed
over the proofs, in the runner's checking worker after the engine returned, within the run's
time limit) and the verdict. Last: one proof tampered with (its lemmas cut to the first 10 and the empty clause), checked again: REJECTED
with the reason. The numba kernels are compiled before any timing; the machine load (uptime) is
printed before and after.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import puzzlesat as ps
from puzzlesat.core.result import Certificate

CASES = [  # (instance, task, engine, solver[, options])
    ("peg/hoppers", "optimize", "sat", "cadical195"),
    ("peg/hoppers", "optimize", "sat", "glucose4"),
    ("peg/hoppers", "optimize", "ext:dimacs", None),
    ("peg/hoppers-first06", "count", "sat", "cadical195"),
    ("peg/triangle21", "optimize", "sat", "cadical195"),
    ("sliding/8-hardest", "optimize", "sat", "cadical195"),
    ("pentomino/3x20", "count", "sat", "cadical195"),
    ('kind = "peg"\nboard = "hoppers"\nempty = [0]\nfinish = [4]\n', "optimize", "sat", "cadical195"),
    ('kind = "pentomino"\nboard = """\n.....\n.....\n.....\n"""\npieces = "LPU"', "count", "sat",
     "cadical195"),
    ("pentomino/3x20", "count", "sat", "cadical195", {"up_to_symmetry": True}),
    ("peg/hoppers", "optimize", "cpsat", None),
    ("peg/hoppers-first06", "count", "cpsat", None),
    ("sliding/8-unsolvable", "optimize", "sat", "cadical195"),
]
SLOW = [("sliding/8-hardest", "count", "sat", "cadical195"),
        ("sliding/15-easy-40", "optimize", "sat", "cadical195"),
        ("pentomino/3x20", "count", "sat", "glucose4")]


def uptime() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def label(spec: str) -> str:
    if "\n" not in spec:
        return spec
    return "hoppers 0->4" if "hoppers" in spec else "3x5 LPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slow", action="store_true", help="also " + ", ".join(f"{c[0]} {c[1]}" for c in SLOW))
    ap.add_argument("--keep", help="folder for the run folders (default: a temporary one, removed)")
    a = ap.parse_args()
    d = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench-certified-"))
    d.mkdir(parents=True, exist_ok=True)
    print(f"load before: {uptime()}")
    ps.certify  # noqa: B018
    warm = d / "warm.cnf"
    warm.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    (d / "warm.drat").write_text("2 0\n0\n")
    ps.certify(warm, d / "warm.drat")
    print("| instance | task | answer | claim | solver | proofs | proof bytes | lemmas | engine CPU s "
          "| check CPU s | verdict |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---|")
    last = None
    for spec, task, engine, solver, *more in CASES + (SLOW if a.slow else []):
        inst = ps.load(spec)
        opts = {"certify": True, "proof_dir": str(d), **(more[0] if more else {})}
        if solver:
            opts["solver"] = solver
        r = ps.solve(inst, engine, task, time_limit=600, **opts)
        c = r.certificate if r.certificate is not None else Certificate.not_certifiable("no certificate")
        ans = r.objective if task == "optimize" and r.objective is not None else r.count
        what = task + (" up to symmetry" if opts.get("up_to_symmetry") else "")
        print(f"| {label(spec)} | {what} | {r.status} {'' if ans is None else ans} | {c.claim or c.reason} "
              f"| {solver or ('cpsat (CNF)' if engine == 'cpsat' else 'cadical (binary)')} | {len(c.proofs)} "
              f"| {'' if c.proof_bytes is None else c.proof_bytes} | {'' if c.lemmas is None else c.lemmas} "
              f"| {r.stats.get('cpu_seconds')} | {'' if c.checker_seconds is None else c.checker_seconds} "
              f"| {c.verdict} |", flush=True)
        if solver == "glucose4" and c.proofs and c.proofs[0].files:
            last = c.proofs[0].files
    print(f"load after: {uptime()}")
    if last is not None:
        cnf, proof = Path(last["cnf"]), Path(last["proof"])
        bad = d / "tampered.drat"
        lines = proof.read_text().splitlines()
        bad.write_text("\n".join(lines[:10] + ["0"]) + "\n")
        v = ps.certify(cnf, bad)
        print(f"\ntampered: {proof.name} of '{last['claim']}' cut from {len(lines)} lines to 10 + "
              f"the empty clause -> {v.verdict.value}: {v.reason}")
    if not a.keep:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
