"""`puzzlesat export` and `puzzlesat stats`: a formulation for other solvers, and its size."""
from __future__ import annotations

import json
import sys

import click

from ..compare.export import FORMATS, export, model_stats
from ..core.config import parse as parse_config
from ..core.result import InputError, Task
from ..families.instances import load_instance
from .display import out
from .options import family_option


@click.command("export")
@click.argument("instance")
@click.option("--engine", "-e", "config", required=True, help="configuration, e.g. 'sat:time[encoding=totalizer]'")
@click.option("--task", type=click.Choice([t.value for t in Task]), default=None,
              help="default: the family's first task (optimize; count for tilings)")
@click.option("--bound", type=int, default=None, help="objective bound of the decision version "
              "(peg: moves <= K; default: the known optimum, else a proved lower bound)")
@click.option("--format", "fmt", required=True, help="dimacs, wcnf, opb (SAT engines); cpsat-txt, "
              "cpsat-pb, lp, mps (CP-SAT engines; lp/mps only for a linear model)")
@click.option("-o", "--output", required=True, help="output file (FILE.map.json is written beside it)")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--proof", default=None, metavar="FILE", help="with --format dimacs: also solve the "
              "CNF with a proof-logging solver; for UNSAT its proof is written to FILE and checked "
              "(puzzlesat.certify)")
@click.option("--proof-solver", default="cadical195", show_default=True,
              help="with --proof: cadical195 (binary DRAT), glucose4, lingeling (text DRUP), "
                   "cpsat (LRAT) or ext:CMD (e.g. ext:cadical)")
@family_option
def export_cmd(instance, config, task, bound, fmt, output, as_json, proof, proof_solver,
               family_name) -> None:
    """Write the model of one configuration on INSTANCE to a file, with a variable map."""
    cfg = parse_config(config)
    if fmt not in FORMATS:
        raise InputError(f"unknown export format '{fmt}'; known: " + ", ".join(FORMATS))
    if proof is not None:
        from ..models.proofs import proof_capable
        if fmt != "dimacs":
            raise InputError(f"--proof needs --format dimacs (a refutation of a CNF), not {fmt}")
        reason = proof_capable(proof_solver)
        if reason:
            raise InputError(reason)
    fam, inst = load_instance(instance, family=family_name)
    s = export(fam, inst, cfg, fmt, output, task or fam.tasks[0], bound)
    if proof is not None:
        from ..models.proofs import prove
        run = prove(output, proof, solver=proof_solver)
        s["proof"] = {"solver": proof_solver, "answer": run.status, "solve_seconds": run.solve_seconds,
                      "file": str(run.proof) if run.proof else None}
        if run.proof is not None:
            c = run.certify()
            s["proof"].update(verdict=c.verdict.value, reason=c.reason, lemmas=c.lemmas,
                              checker_seconds=c.checker_seconds, sha256=c.sha256)
    if as_json:
        print(json.dumps(s))
    else:
        size = ", ".join(f"{s[k]} {k.replace('_', ' ')}" for k in ("vars", "clauses", "constraints") if k in s)
        print(f"{s['instance']} {s['config']} ({s['bound_text']}): {fmt} {size} -> {s['file']} (+ .map.json)")
        if proof is not None:
            p = s["proof"]
            if p["file"] is None:
                print(f"{proof_solver}: {p['answer']} in {p['solve_seconds']} s CPU: satisfiable, "
                      "no refutation (no proof written)")
            else:
                print(f"{proof_solver}: UNSAT in {p['solve_seconds']} s CPU; proof -> {p['file']}: "
                      f"{p['verdict']} ({p['lemmas']} lemmas, checked in {p['checker_seconds']} s CPU)"
                      + (f": {p['reason']}" if p["reason"] else ""))
    if s.get("note"):
        print(f"puzzlesat: note: {s['note']}", file=sys.stderr)


@click.command("stats")
@click.argument("instance")
@click.option("--engine", "-e", "config", required=True, help="configuration, e.g. 'sat:time[encoding=totalizer]'")
@click.option("--task", type=click.Choice([t.value for t in Task]), default=None,
              help="default: the family's first task (optimize; count for tilings)")
@click.option("--bound", type=int, default=None, help="objective bound of the decision version (default: "
              "the known optimum, else a proved lower bound)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@family_option
def stats_cmd(instance, config, task, bound, as_json, family_name) -> None:
    """Model statistics of one configuration on INSTANCE, per constraint group of its formulation."""
    from rich.table import Table
    cfg = parse_config(config)
    fam, inst = load_instance(instance, family=family_name)
    s = model_stats(fam, inst, cfg, task or fam.tasks[0], bound)
    if as_json:
        print(json.dumps(s))
        return
    cnf = s["format"] == "cnf"
    t = Table(title=f"{s['instance']}  {s['config']}  {s['bound_text']}  ({s['formulation']}"
                    + (f", encoding {s['encoding']}" if cnf else "") + ")", title_justify="left")
    cols = ("constraints", "clauses", "literals", "aux_vars") if cnf else ("constraints", "literals")
    t.add_column("group")
    for c in cols:
        t.add_column(c.replace("_", " "), justify="right")
    for g, row in s["groups"].items():
        t.add_row(g, *(f"{row[c]:,}" for c in cols))
    tot = {"constraints": sum(r["constraints"] for r in s["groups"].values()),
           "clauses": s.get("clauses"), "literals": s["literals"],
           "aux_vars": sum(r.get("aux_vars", 0) for r in s["groups"].values())}
    if not cnf:
        tot["constraints"] = s["constraints"]
    t.add_row("[bold]total[/]", *(f"{tot[c]:,}" for c in cols))
    con = out
    con.print(t)
    vars_line = (f"variables: {s['vars']:,} ({s['keyed_vars']:,} keyed + "
                 f"{s['vars'] - s['keyed_vars']:,} auxiliary)" if cnf else f"variables: {s['vars']:,}")
    con.print(vars_line, markup=False)
    sec = s["seconds"]
    con.print(f"build: {sec['total']:.3f} s (formulation {sec['hook']:.3f} s, "
              f"{'CNF' if cnf else 'CP-SAT'} compile {sec['compile']:.3f} s); linear: "
              f"{'yes' if s['linear'] else 'no'}", markup=False)
