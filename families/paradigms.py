"""Engines every family gets from its formulations on other paradigms (data only: nothing here
imports a solver), added by the registry the way `ext:dimacs` is.

For every formulation hook of a family's engines (built-in or plug-in), one engine per paradigm,
named `<paradigm>:<formulation>` after the engine that owns the hook (`cpsat:time` and `sat:time`
share the hook `time`, so `mip:time`, `maxsat:time`, `cpmpy:time`):

    mip:F     HiGHS (highspy) on the 0-1/integer program of F (models/mip.py); optimize, count,
              feasible
    maxsat:F  RC2 (python-sat) on the weighted CNF of F (models/maxsat.py); only for a formulation
              that a `sat:` engine compiles to CNF; optimize, feasible
    cpmpy:F   a CP / pseudo-Boolean solver through CPMpy (models/cpmpy_bridge.py), option
              `solver` (exact, z3, choco, pumpkin, ortools, minizinc, gcs); optimize, count,
              feasible

One engine per paradigm with the solver as an option (rather than `exact:time`, `z3:time`, ...):
the name says how the formulation reaches a solver (the route: a direct MIP model, a weighted CNF,
the CPMpy bridge), the option which solver — as `sat:time[solver=kissat404]` does — so `engines`
stays one line per route and a configuration names the solver (`exact=cpmpy:time[solver=exact]`).

Options: the formulation's own options — those its engines share (same option, same default) —
minus every backend's solver options; an option that decides which solutions are the same
(`identity`, e.g. up_to_symmetry) is kept so that compare and lab can pass it, and counting with it
on is refused (these engines count every solution). A hook whose projection does not identify a
solution (`hook.countable = False`) makes count refused before anything runs.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.family import Engine, Family, Option
from ..core.result import InputError, Task
from .options import SAT_ENCODINGS, SAT_NON_INCREMENTAL, SAT_SOLVERS

PARADIGM_HEADS = ("mip", "maxsat", "cpmpy")
DERIVED_HEADS = ("ext", *PARADIGM_HEADS)       # engines made from another engine's hook
# options of the solvers behind the families' own engines (not the formulation's)
BACKEND_OPTIONS = {"workers", "linearization_level", "seed", "solver", "encoding", "certify",
                   "proof_dir", "cnf_encoding", "cmd"}
CPMPY_SOLVERS = ("exact", "z3", "choco", "pumpkin", "ortools", "minizinc", "gcs")


# the Python module each solver needs, and its pip package (looked up, never imported here: a
# solver imported in the parent is inherited by every worker, e.g. pychoco's GraalVM isolate
# reserves 32 GiB of address space)
MODULES = {"highs": ("highspy", "highspy"), "cpmpy": ("cpmpy", "cpmpy"), "exact": ("exact", "exact"),
           "z3": ("z3", "z3-solver"), "choco": ("pychoco", "pychoco"),
           "pumpkin": ("pumpkin_solver", "pumpkin-solver"), "ortools": ("ortools", "ortools"),
           "minizinc": ("minizinc", "minizinc (and the MiniZinc binary on PATH)"),
           "gcs": ("gcspy", "gcspy")}


def _missing(name: str) -> str | None:
    """Why solver package `name` (a MODULES key) cannot be used (not installed), else None."""
    from importlib.util import find_spec
    mod, pkg = MODULES[name]
    return None if find_spec(mod) is not None else f"{pkg} is not installed (pip install {pkg}, or " \
        "pip install 'puzzlesat[paradigms]')"


def _highs(value: str, engine: str) -> None:
    why = _missing("highs")
    if why is not None:
        raise InputError(f"engine {engine}: {why}")


def _cpmpy(value: str, engine: str) -> None:
    why = _missing("cpmpy") or _missing(value)
    if why is not None:
        raise InputError(f"engine {engine}, solver {value}: {why}")


def _uncountable(hook: str, task: Task, engine: str) -> None:
    """Count refused for a hook whose projection does not identify a solution (its function
    attribute `countable` is False; read when a run is planned, never when engines are listed)."""
    from ..core.family import resolve
    if Task(task) is not Task.COUNT:
        return
    try:
        fn = resolve(hook)
    except (ImportError, AttributeError, ValueError):
        return  # a missing hook is reported when the engine runs it
    if getattr(fn, "countable", True) is False:
        raise InputError(f"engine {engine} cannot count with the formulation {hook}: its "
                         "projection does not identify one solution (one projection stands for "
                         "several), so enumerating it would undercount; the family's own engines "
                         "count it")


def _no_identity_count(name: str):
    def check(value, task: Task, engine: str) -> None:
        if Task(task) is Task.COUNT and value is True:
            raise InputError(f"engine {engine} counts every solution: option {name}={value} (which "
                             "decides which solutions are the same) is refused with count; the "
                             "family's own engines count up to it")
    return check


PARADIGMS = {
    "mip": ("puzzlesat.models.mip:run", (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE),
            (Option("solver", "highs", "MIP solver: HiGHS through highspy (one thread, seed 0, "
                    "MIP gaps 0, feasibility tolerances 1e-9; pinned and recorded)", ("highs",),
                    available=_highs, since="0.4"),),
            "the formulation as a 0-1/integer program in HiGHS (XOR: an integer slack; half-"
            "reified Linear: big-M from the domains); optimize: its objective, else the decision "
            "calls; a gap or a time limit is FEASIBLE; count: one no-good row per solution"),
    "maxsat": ("puzzlesat.models.maxsat:run", (Task.OPTIMIZE, Task.FEASIBLE),
               (Option("oracle", "glucose4", "RC2's SAT oracle (python-sat solver; RC2 needs "
                       "assumptions: incremental ones only)",
                       tuple(s for s in SAT_SOLVERS if s not in SAT_NON_INCREMENTAL), since="0.4"),
                Option("encoding", "seqcounter", "cardinality encoding of the hard clauses "
                       "(pysat.card.EncType name)", SAT_ENCODINGS, since="0.4")),
               "RC2 (python-sat, adapt/exhaust/minz/trim 5) on the weighted CNF: the objective as "
               "soft clauses, else the decision calls; feasible: the hard clauses only; no count "
               "(blocking-clause enumeration is the sat: engines'); no interrupt: the runner's "
               "kill is the time limit"),
    "cpmpy": ("puzzlesat.models.cpmpy_bridge:run", (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE),
              (Option("solver", "exact", "solver through CPMpy: exact (pseudo-Boolean), z3 (SMT), "
                      "choco, pumpkin (CP, lazy clause generation), ortools (CP-SAT), minizinc, gcs "
                      "(need their packages; docs/paradigms.md says which answer here)",
                      CPMPY_SOLVERS, available=_cpmpy, since="0.4"),),
              "the formulation through the CPMpy bridge to a CP or pseudo-Boolean solver; "
              "optimize: its objective, else the decision calls; count: no-good per solution"),
}


def _formulations(fam: Family) -> dict[str, list[Engine]]:
    """The family's own engines that have a formulation hook, by hook (in table order)."""
    out: dict[str, list[Engine]] = {}
    for e in fam.engines:
        if e.formulation and e.name.split(":")[0] not in DERIVED_HEADS:
            out.setdefault(e.formulation, []).append(e)
    return out


def _model_options(engines: list[Engine]) -> tuple[Option, ...]:
    """The options every engine of one hook shares (equal records), minus the backends' own."""
    first, rest = engines[0], engines[1:]
    out = []
    for o in first.options:
        if o.name in BACKEND_OPTIONS:
            continue
        if all(e.option(o.name) == o for e in rest):
            # a switch that makes solutions the same (up_to_symmetry): refused with count
            switch = o.identity and isinstance(o.default, bool)
            out.append(replace(o, task_check=_no_identity_count(o.name)) if switch else o)
    return tuple(out)


def paradigm_engines(fam: Family) -> tuple[Engine, ...]:
    """The mip:, maxsat: and cpmpy: engines of every formulation hook of `fam` (module doc)."""
    out = []
    names = {e.name for e in fam.engines} | {a for e in fam.engines for a in e.aliases}
    for hook, engines in _formulations(fam).items():
        form = engines[0].name.split(":", 1)[1] if ":" in engines[0].name else engines[0].name
        cnf = any(e.name.split(":")[0] == "sat" for e in engines)
        tasks = {t for e in engines for t in e.tasks}
        model_opts = _model_options(engines)
        for head, (target, ptasks, popts, text) in PARADIGMS.items():
            name = f"{head}:{form}"
            if name in names or (head == "maxsat" and not cnf):
                continue
            ts = tuple(t for t in fam.tasks if t in tasks and t in ptasks)
            if not ts:
                continue
            hook_opt = Option("formulation", hook, f"the formulation hook (that of "
                              f"{', '.join(e.name for e in engines)})", (hook,),
                              task_check=_uncountable)
            out.append(Engine(name, target, ts, (*popts, *model_opts, hook_opt),
                              f"{text} [{form}: {engines[0].description}]", formulation=hook,
                              user=any(e.user for e in engines),
                              code=next((e.code for e in engines if e.user), "")))
            names.add(name)
    return tuple(out)


def with_paradigms(fam: Family) -> Family:
    """`fam` plus its paradigm engines (none when it has no formulation hook)."""
    extra = paradigm_engines(fam)
    return replace(fam, engines=(*fam.engines, *extra)) if extra else fam
