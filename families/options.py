"""Options shared by the engine tables: every CP-SAT engine's and every SAT engine's, and the
external-program option of `ext:dimacs`. Data only: nothing here imports a solver (the solver
names are the ones python-sat ships; tests/test_layers.py checks them against the installed
python-sat).
"""
from __future__ import annotations

from ..core.family import Option
from ..core.procs import find_program, split_command
from ..core.result import InputError, Task

CPSAT_OPTIONS = (
    Option("workers", 1, "CP-SAT num_workers (enumeration always uses 1: more workers drop solutions)"),
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


SAT_OPTIONS = (
    Option("solver", "cadical195", "python-sat solver", SAT_SOLVERS,
           task_check=_incremental_to_count),
    Option("encoding", "seqcounter", "cardinality encoding (pysat.card.EncType name); pairwise, "
           "ladder and bitwise encode at-most-one only", SAT_ENCODINGS),
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
