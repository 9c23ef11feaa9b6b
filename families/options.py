"""Options shared by the engine tables: every CP-SAT engine's and every SAT engine's, and the
external-program option of `ext:dimacs`. Data only: nothing here imports a solver (the solver
names are the ones python-sat ships; tests/test_layers.py checks them against the installed
python-sat).
"""
from __future__ import annotations

from ..core.family import Option
from ..core.procs import find_program, split_command
from ..core.result import InputError, Task

def _workers(value: int, engine: str) -> None:
    if value < 1:
        raise InputError(f"option workers={value} of engine {engine}: must be at least 1 (CP-SAT "
                         "num_workers; 1 is the default)")


CPSAT_OPTIONS = (
    Option("workers", 1, "CP-SAT num_workers (enumeration always uses 1: more workers drop solutions)",
           check=_workers),
    Option("linearization_level", 0, "CP-SAT linearization_level (0 measured far better here)"),
    Option("seed", 0, "CP-SAT random_seed"),
)

# every solver python-sat 1.9 builds, the default first (cadical195 ignores interrupt(): the
# runner's worker kill stops it)
SAT_SOLVERS = ("cadical195", "cadical103", "cadical153", "cadical300", "ergo", "glucose3",
               "glucose4", "glucose42", "gluecard3", "gluecard4", "kissat404", "lingeling",
               "maplechrono", "maplecm", "maplesat", "mergesat3", "minicard", "minisat22",
               "minisatep")
# one solve per solver: they ignore assumptions and abort on a clause added after a solve
SAT_NON_INCREMENTAL = ("kissat404",)
SAT_ENCODINGS = ("seqcounter", "totalizer", "mtotalizer", "kmtotalizer", "sortnetwrk", "cardnetwrk",
                 "pairwise", "ladder", "bitwise")


def _incremental_to_count(solver: str, task: Task, engine: str) -> None:
    if task is Task.COUNT and solver in SAT_NON_INCREMENTAL:
        raise InputError(f"engine {engine}: SAT solver '{solver}' is not incremental; counting "
                         "adds blocking clauses between calls: choose one of "
                         + ", ".join(s for s in SAT_SOLVERS if s not in SAT_NON_INCREMENTAL))


# python-sat solvers that log proofs (with_proof=True; models/proofs.py)
PROOF_SOLVERS = ("cadical195", "glucose4", "lingeling")


def _proof_dir(value: str, engine: str) -> None:
    import os
    if value and not os.path.isdir(value):
        raise InputError(f"option proof_dir={value!r} of engine {engine}: no such folder")


CERTIFY_OPTIONS = (
    Option("certify", False, "write the CNF and the solver's proof of every UNSAT call into a run "
           "folder; the runner checks each proof (puzzlesat.certify) and the result carries the "
           "certificate (solvers: " + ", ".join(PROOF_SOLVERS) + ")", flag=True, since="0.3"),
    Option("proof_dir", "", "with certify: the folder in which the run folder is made (default: "
           "the system's temporary folder)", check=_proof_dir, since="0.3"),
)

CPSAT_CERTIFY_OPTIONS = (
    Option("certify", False, "certified answer: CP-SAT solves the CNF form of the engine's "
           "formulation (pure clauses: presolve off, one worker) with LRAT output instead of its "
           "CpModel; the runner checks every refutation (puzzlesat.certify)", flag=True, since="0.3"),
    Option("proof_dir", "", "with certify: the folder in which the run folder is made (default: "
           "the system's temporary folder)", check=_proof_dir, since="0.3"),
    Option("cnf_encoding", "seqcounter", "with certify: the cardinality encoding of the CNF that "
           "CP-SAT solves (pysat.card.EncType name)", SAT_ENCODINGS, since="0.3"),
)

SAT_OPTIONS = (
    Option("solver", "cadical195", "python-sat solver", SAT_SOLVERS,
           task_check=_incremental_to_count),
    Option("encoding", "seqcounter", "cardinality encoding (pysat.card.EncType name); pairwise, "
           "ladder and bitwise encode at-most-one only", SAT_ENCODINGS),
    *CERTIFY_OPTIONS,
)


def _cmd_syntax(cmd: str, engine: str) -> None:
    split_command(cmd, f"option cmd of engine {engine}")


def _cmd_present(cmd: str, engine: str) -> None:
    try:
        find_program(cmd, f"option cmd of engine {engine}")
    except InputError as e:
        raise InputError(e.message + ("" if "PATH" not in e.message else
                                      " (install a DIMACS solver, e.g. apt-get install cadical)")) from None


def cmd_option(default: str = "cadical -q") -> Option:
    """ext:dimacs's `cmd`: its syntax checked at resolution, its program when the engine runs."""
    return Option("cmd", default, "external DIMACS solver command ({cnf}, {model}: file placeholders; "
                  "else the CNF path is appended)", check=_cmd_syntax, available=_cmd_present)
