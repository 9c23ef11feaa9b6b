"""`puzzlesat certify CNF PROOF`: check a refutation proof of a DIMACS CNF with our own checker
(puzzlesat.certify). Exit status: 0 VERIFIED, 1 REJECTED, 2 bad input (the file and line), 3 not
checked (out of memory)."""
from __future__ import annotations

import json
import sys

import click

from .display import out

FORMATS = ("drat", "drup", "lrat")  # puzzlesat.certify.FORMATS (imported when a proof is checked)


@click.command("certify")
@click.argument("cnf", type=click.Path(dir_okay=False))
@click.argument("proof", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(("auto",) + FORMATS), default="auto",
              show_default=True, help="proof format (auto: LRAT for a .lrat file, else DRAT, "
              "text or binary detected)")
@click.option("--emit-lrat", "emit", default=None, metavar="FILE",
              help="also write the LRAT of the checked DRAT/DRUP proof to FILE and check it again")
@click.option("--json", "as_json", is_flag=True, help="print the certificate as JSON")
def certify_cmd(cnf: str, proof: str, fmt: str, emit: str | None, as_json: bool) -> None:
    """Check PROOF (DRAT, DRUP or LRAT) against the DIMACS file CNF.

    Exit status: 0 VERIFIED, 1 REJECTED (the first lemma that fails), 2 bad input, 3 not checked
    (out of memory: says nothing against the proof).
    """
    from ..certify import certify
    try:
        c = certify(cnf, proof, format=fmt, lrat=emit)
    except MemoryError as e:   # this machine's limit (numba: 'Allocation failed'), not the proof's
        print(f"puzzlesat: certify: out of memory checking {proof}" + (f" ({e})" if str(e) else "")
              + ": not checked (more memory, or a higher ulimit -v, is needed)", file=sys.stderr)
        sys.exit(3)
    if as_json:
        print(json.dumps(c.to_json(), default=str))
    else:
        color = "green" if c.verified else "red"
        out.print(f"[{color}]{c.verdict.value}[/]  format={c.format}  lemmas={c.lemmas}  "
                  f"checker {c.checker_seconds} s CPU")
        if c.reason:
            out.print(f"reason: {c.reason}", markup=False)
        for k, v in c.sha256.items():
            out.print(f"sha256 {k}: {v}  {c.files.get(k, '')}", markup=False)
        if "lrat_verdict" in c.stats:
            out.print(f"emitted LRAT: {c.files.get('lrat')} ({c.stats['lrat_lemmas']} lemmas) "
                      f"{c.stats['lrat_verdict']}", markup=False)
    sys.exit(0 if c.verified else 1)
