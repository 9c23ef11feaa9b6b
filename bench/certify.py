"""Certified refutations: proof size, lemmas, solve seconds and check seconds side by side.

Run: /work/venv-certify/bin/python bench/certify.py [--php 8,9] [--random 200:4.26]
        [--solvers cadical195,glucose4,lingeling] [--peg-solvers cadical195,glucose4] [--cpsat]
        [--no-peg] [--keep DIR]

Instances (each UNSAT):
    php(n)          pigeonhole PHP(n+1, n) (python-sat's genhard.PHP)
    random n:r      uniform random 3-SAT, n variables, round(r*n) clauses, the first seed in 0..99
                    whose CNF the solver refutes
    peg/triangle21  "moves <= 11" of the peg model (the optimum is 12), exported with
                    `puzzlesat export peg/triangle21 -e sat --bound 11 --format dimacs`
Per (instance, solver): solve CPU seconds (the solver with proof logging on), proof bytes,
lemmas, core lemmas (those the check needed), check CPU seconds (parsing + checking, our
checker), check/solve, then the LRAT the checker emits (its size and our LRAT check's seconds),
and the verdict. `--cpsat` adds CP-SAT's LRAT (presolve off, one worker) with its own check's
status. Last: a tampered proof (a literal flipped in a lemma the check needed) and its REJECTED
reason. The numba kernels are compiled before any timing. CPU seconds: time.process_time (the
solver runs in this process); the machine load (uptime) is printed before and after.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from puzzlesat.certify import Verdict, certify
from puzzlesat.models.proofs import prove
from puzzlesat.certify.parse import parse_drat


def uptime() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def write_cnf(path: Path, nvars: int, clauses) -> Path:
    with open(path, "w") as f:
        f.write(f"p cnf {nvars} {len(clauses)}\n")
        for c in clauses:
            f.write(" ".join(map(str, c)) + " 0\n")
    return path


def php_cnf(d: Path, n: int) -> Path:
    from pysat.examples.genhard import PHP
    f = PHP(n)
    return write_cnf(d / f"php{n}.cnf", f.nv, f.clauses)


def random_cnf(d: Path, n: int, ratio: float, seed: int) -> Path:
    rnd = random.Random(seed)
    cls = [[v if rnd.random() < .5 else -v for v in rnd.sample(range(1, n + 1), 3)]
           for _ in range(round(ratio * n))]
    return write_cnf(d / f"r3sat-{n}-{ratio}-s{seed}.cnf", n, cls)


def peg_cnf(d: Path) -> Path:
    out = d / "triangle21-le11.cnf"
    subprocess.run([sys.executable, "-m", "puzzlesat", "export", "peg/triangle21", "-e", "sat",
                    "--bound", "11", "--format", "dimacs", "-o", str(out)], check=True,
                   capture_output=True)
    return out


def warm(d: Path) -> None:
    """Compile (or load) every kernel on a tiny proof so that no timing includes numba."""
    f = php_cnf(d, 3)
    for s in ("cadical195", "glucose4"):
        r = prove(f, d / f"warm-{s}.drat", solver=s)
        r.certify(lrat=d / "warm.lrat")
    certify(f, d / "warm.lrat")


ROW = "{:<30} {:<10} {:>9} {:>9} {:>9} {:>8} {:>8} {:>6} {:>9} {:>8}  {}"


def bench(cnf: Path, solver: str, label: str, rows: list) -> tuple | None:
    run = prove(cnf, solver=solver)
    if run.status != "UNSAT":
        return None
    lrat = cnf.with_suffix(f".{solver}.checked.lrat") if run.format == "drat" else None
    c = run.certify(lrat=lrat) if lrat else run.certify()
    size = run.proof.stat().st_size
    extra = ""
    if lrat and c.verified:
        extra = (f"LRAT {lrat.stat().st_size / 1e6:.1f} MB, {c.stats['lrat_lemmas']} lemmas, "
                 f"checked in {c.stats['lrat_check_seconds']:.2f} s: {c.stats['lrat_verdict']}")
    if run.producer_check:
        extra = f"CP-SAT's own check: {run.producer_check}"
    check = c.checker_seconds
    row = ROW.format(label, solver, f"{size / 1e6:.2f}", c.lemmas, c.stats.get("core_lemmas", "-"),
                     f"{run.solve_seconds:.2f}", f"{check:.2f}",
                     f"{check / max(run.solve_seconds, 1e-3):.1f}x", c.verdict.value,
                     "bin" if c.stats.get("binary") else "text", extra)
    print(row, flush=True)
    rows.append(row)
    return run, c


def tamper(run, d: Path) -> None:
    """Flip one literal of a lemma the check needed; print what the checker says."""
    print("\n== a tampered proof")
    p = parse_drat(run.proof)
    lrat = d / "tamper-source.lrat"
    certify(run.cnf, run.proof, lrat=lrat)
    used = set()
    for line in lrat.read_text().splitlines():
        t = line.split()
        if t[1] != "d" and t[1] != "0":
            used.add(tuple(sorted(map(int, t[1:t.index("0")]))))
    steps = []
    for s in range(len(p.steps)):
        steps.append((bool(p.delete[s]), p.steps.clause(s)))
    idx = [i for i, (dl, c) in enumerate(steps) if not dl and len(c) > 1 and tuple(sorted(c)) in used]
    for i in idx[len(idx) // 2:]:
        c = list(steps[i][1])
        c[-1] = -c[-1]
        bad = d / "tampered.drat"
        with open(bad, "w") as f:
            for j, (dl, cl) in enumerate(steps):
                cl = c if j == i else cl
                f.write(("d " if dl else "") + " ".join(map(str, cl)) + " 0\n")
        v = certify(run.cnf, bad)
        print(f"{run.cnf.name}, {run.solver}'s proof, lemma {sum(1 for _ in filter(lambda s: not s[0], steps[:i + 1]))} "
              f"{steps[i][1][:6]}... -> last literal flipped: {v.verdict.value}: {v.reason}")
        if v.verdict is Verdict.REJECTED:
            return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--php", default="8,9", help="pigeonhole sizes n (PHP(n+1, n))")
    ap.add_argument("--random", default="200:4.26", help="n:ratio of random 3-SAT, comma-separated")
    ap.add_argument("--solvers", default="cadical195,glucose4,lingeling")
    ap.add_argument("--cpsat", action="store_true", help="also CP-SAT's LRAT (php <= 8, random)")
    ap.add_argument("--no-peg", action="store_true")
    ap.add_argument("--peg-solvers", default="cadical195,glucose4",
                    help="solvers for triangle21 (lingeling needs over 10 minutes there)")
    ap.add_argument("--keep", help="folder to keep the CNFs and proofs in (default: a temporary one)")
    a = ap.parse_args()
    tmp = None if a.keep else tempfile.TemporaryDirectory(prefix="bench-certify-")
    d = Path(a.keep or tmp.name)
    d.mkdir(parents=True, exist_ok=True)
    print(f"load before (1, 5, 15 min): {uptime()}, cpus: {os.cpu_count()}")
    warm(d)
    solvers = [s for s in a.solvers.split(",") if s]
    instances = [(f"PHP({n + 1},{n})", php_cnf(d, n)) for n in map(int, filter(None, a.php.split(",")))]
    for spec in (s for s in a.random.split(",") if s):
        n, r = spec.split(":")
        for seed in range(100):
            f = random_cnf(d, int(n), float(r), seed)
            if prove(f, solver="cadical195").status == "UNSAT":
                instances.append((f"random 3-SAT n={n} r={r} s{seed}", f))
                break
    if not a.no_peg:
        instances.append(("peg/triangle21 moves<=11", peg_cnf(d)))
    print(ROW.format("instance", "solver", "proof MB", "lemmas", "core", "solve s", "check s",
                     "ratio", "verdict", "proof", ""))
    rows: list = []
    first = None
    for label, f in instances:
        for s in (a.peg_solvers.split(",") if "triangle21" in label else solvers):
            out = bench(f, s, label, rows)
            if out and first is None and out[0].format == "drat":
                first = out[0]
        if a.cpsat and "triangle21" not in label and not label.startswith("PHP(10"):
            bench(f, "cpsat", label, rows)
    if first is not None:
        tamper(first, d)
    print(f"\nload after (1, 5, 15 min): {uptime()}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
