"""CP / pseudo-Boolean backends through CPMpy (Guns et al., "CPMpy: Constraint Programming in
Python", ModRef 2021; one model, many solvers), and the `cpmpy:<formulation>` engines (the
driver: models/paradigm.py). The solver is the engine's `solver` option.

Formulation: each key a CPMpy variable (Booleans `boolvar`, integers `intvar` with the declared
domain); Clause -> any(literals); ExactlyOne / AtMostOne / AtMost / AtLeast -> a sum compared with
its bound (pseudo-Boolean solvers keep it as one constraint; CP solvers propagate it as a linear
sum); Xor -> CPMpy's Xor; Linear -> a weighted sum in [lo, hi], half-reified as
all(enforce).implies(...). CPMpy transforms the model to what each solver takes (Exact: linear
pseudo-Boolean constraints; Z3: SMT terms; Choco, Pumpkin: CP constraints).

Solvers (SOLVERS, each measured here: docs/paradigms.md): exact, z3, choco, pumpkin, ortools;
minizinc and gcs answer when installed (gcspy does not build here: its build clones pybind11
from the network). Every solver's parameters that change results are pinned and recorded
(PINNED); its version is recorded. Status: CPMpy's ExitStatus OPTIMAL -> OPTIMAL (objective) or a
solution (no objective); FEASIBLE -> FEASIBLE (a limit stopped the proof); UNSATISFIABLE ->
INFEASIBLE; UNKNOWN / NOT_RUN -> UNKNOWN. Time limits are passed to the solver and, as for
every engine, enforced by the runner's kill of the worker.
"""
from __future__ import annotations

from typing import Any, Hashable

from ..core.result import Context, InputError, Outcome, Status, Task

from .formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Formulation, Linear, Xor)
from .paradigm import Answer, Backend, no_good, run as drive

Key = Hashable

# solver name -> the Python module it needs (the pip package in PACKAGES)
SOLVERS = {"exact": "exact", "z3": "z3", "choco": "pychoco", "pumpkin": "pumpkin_solver",
           "ortools": "ortools", "minizinc": "minizinc", "gcs": "gcspy"}
PACKAGES = {"exact": "exact", "z3": "z3-solver", "choco": "pychoco", "pumpkin": "pumpkin-solver",
            "ortools": "ortools", "minizinc": "minizinc (and the MiniZinc binary)", "gcs": "gcspy"}
CHOCO_ADDRESS_SPACE = 36 << 30   # pychoco reserves 32 GiB at import (measured: VmSize 33.7 GB)
# parameters pinned per solver (passed to CPMpy's solve; recorded)
PINNED: dict[str, dict[str, Any]] = {
    "ortools": {"num_workers": 1, "random_seed": 0, "linearization_level": 0},
    "z3": {"random_seed": 0},
    "exact": {},
    "choco": {},
    "pumpkin": {},
    "minizinc": {"random_seed": 0},
    "gcs": {},
}


def available(solver: str) -> str | None:
    """None when CPMpy and `solver`'s package are installed, else why not. Looks the packages up
    without importing them: this runs in the parent process before the run (plan), and a solver's
    import there would be inherited by every worker (pychoco's GraalVM isolate alone reserves
    32 GiB of address space, past any memory cap)."""
    from importlib.util import find_spec
    if find_spec("cpmpy") is None:
        return "cpmpy is not installed: pip install 'puzzlesat[paradigms]' or pip install cpmpy"
    if solver not in SOLVERS:
        return f"unknown CPMpy solver '{solver}'; known: " + ", ".join(SOLVERS)
    if find_spec(SOLVERS[solver]) is None:
        return f"CPMpy solver '{solver}' is not installed: pip install {PACKAGES[solver]}"
    return None


def usable(solver: str) -> str | None:
    """In the worker: None when CPMpy can run `solver` (its own probe), else why not."""
    why = available(solver)
    if why is not None:
        return why
    if solver == "choco":
        import resource
        cap = resource.getrlimit(resource.RLIMIT_AS)[0]
        if cap != resource.RLIM_INFINITY and cap < CHOCO_ADDRESS_SPACE:
            return ("CPMpy solver 'choco': pychoco's GraalVM isolate reserves 32 GiB of address "
                    f"space when it loads, more than this run's memory cap ({cap >> 20} MB): give "
                    f"--memory-limit {CHOCO_ADDRESS_SPACE >> 20} or more (the cap is on address "
                    "space; choco's resident memory stays small)")
    from cpmpy.solvers.utils import SolverLookup
    try:
        ok = SolverLookup.lookup(solver).supported()
    except Exception as e:  # noqa: BLE001 - a solver's own probe failing is "not usable"
        return f"CPMpy solver '{solver}' is not usable here: {type(e).__name__}: {e}"
    return None if ok else (f"CPMpy solver '{solver}' is not usable here (CPMpy: not supported; it "
                            f"needs {PACKAGES[solver]}" + (", MiniZinc >= 2.8.2" if solver == "minizinc"
                                                           else "") + ")")


def version(solver: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as v
    name = PACKAGES.get(solver, solver).split()[0]
    try:
        return v(name)
    except PackageNotFoundError:
        return "?"


def to_cpmpy(f: Formulation) -> tuple[list, dict[Key, Any]]:
    """(constraints, variable by key) of the formulation in CPMpy."""
    import cpmpy as cp
    from cpmpy.expressions.core import Operator
    keys = f.bool_keys()
    var: dict[Key, Any] = {}
    if keys:
        bv = cp.boolvar(shape=len(keys), name="b")
        bv = [bv] if len(keys) == 1 else list(bv)
        var.update(zip(keys, bv))
    for i, (k, (lb, ub)) in enumerate(f.ints.items()):
        var[k] = cp.intvar(lb, ub, name=f"i{i}")

    def lit(k, p):
        return var[k] if p else ~var[k]

    def wsum(terms):
        if all(c == 1 for c, _ in terms):
            return cp.sum([var[k] for _, k in terms])
        return Operator("wsum", [[c for c, _ in terms], [var[k] for _, k in terms]])

    cons: list = []
    for _, c in f.constraints():
        if isinstance(c, Clause):
            cons.append(cp.any([lit(k, p) for k, p in c.lits]) if c.lits else cp.BoolVal(False))
        elif isinstance(c, ExactlyOne):
            cons.append(cp.sum([var[k] for k in c.keys]) == 1)
        elif isinstance(c, AtMostOne):
            cons.append(cp.sum([var[k] for k in c.keys]) <= 1)
        elif isinstance(c, AtMost):
            cons.append(cp.sum([var[k] for k in c.keys]) <= c.k)
        elif isinstance(c, AtLeast):
            cons.append(cp.sum([var[k] for k in c.keys]) >= c.k)
        elif isinstance(c, Xor):
            x = cp.Xor([var[k] for k in c.keys])
            cons.append(x if c.parity else ~x)
        elif isinstance(c, Linear):
            s = wsum(c.terms)
            body = [s >= c.lo, s <= c.hi] if c.lo != c.hi else [s == c.lo]
            if c.enforce:
                cond = cp.all([lit(k, p) for k, p in c.enforce])
                cons += [cond.implies(b) for b in body]
            else:
                cons += body
        else:
            raise InputError(f"formulation {f.name}: {type(c).__name__} has no CPMpy form")
    return cons, var


class CpmpyModel:
    """The formulation in one CPMpy solver object (incremental: a no-good is added to it)."""

    def __init__(self, f: Formulation, objective: tuple | None, solver: str):
        import cpmpy as cp
        self.f, self.solver_name = f, solver
        cons, self.var = to_cpmpy(f, )
        self.objective = objective
        model = cp.Model(cons)
        if objective is not None:
            sense, terms, offset = objective
            expr = cp.sum([c * self.var[k] for c, k in terms]) + offset
            model = cp.Model(cons, minimize=expr) if sense == "min" else cp.Model(cons, maximize=expr)
        try:
            self.s = cp.SolverLookup.get(solver, model)
        except ImportError as e:  # e.g. MiniZinc older than CPMpy needs (Debian 12: 2.6.4 < 2.8.2)
            raise InputError(f"CPMpy solver '{solver}' cannot start here: {e}") from None
        self.size = {"vars": len(self.var), "constraints": len(cons)}
        self.calls = 0
        self.proj = [(k, self.var[k]) for k in f.projection]

    def solve(self, ctx: Context) -> Answer:
        from cpmpy.solvers.solver_interface import ExitStatus
        rem = ctx.remaining()
        if rem is not None and rem <= 0:
            return Answer(Status.UNKNOWN, reason="time limit")
        kw = dict(PINNED.get(self.solver_name, {}))
        if rem is not None:
            kw["time_limit"] = max(rem, 0.01)
        found = self.s.solve(**kw)
        self.calls += 1
        st = self.s.status().exitstatus
        if st == ExitStatus.UNSATISFIABLE:
            return Answer(Status.INFEASIBLE)
        if found and st in (ExitStatus.OPTIMAL, ExitStatus.FEASIBLE):
            true = {k for k, v in self.proj if v.value()}
            value = None
            if self.objective is not None:  # recomputed from the solution: solvers may drop a
                _, terms, offset = self.objective  # constant objective's offset (Exact: measured)
                value = offset + sum(c * int(self.var[k].value()) for c, k in terms)
            proved = st == ExitStatus.OPTIMAL or self.objective is None
            return Answer(Status.OPTIMAL if proved else Status.FEASIBLE, true, value,
                          None if proved else "time limit")
        return Answer(Status.UNKNOWN, reason="time limit" if rem is not None and ctx.expired()
                      else f"{self.solver_name}: {st.name}")

    def block(self, true: set) -> None:
        import cpmpy as cp
        self.s += cp.any([v if pol else ~v for (k, pol), (_, v) in
                          zip(no_good(true, (k for k, _ in self.proj)), self.proj)])

    def stats(self) -> dict[str, Any]:
        return {**self.size, "solver_calls": self.calls}


def backend(options: dict[str, Any]) -> Backend:
    solver = options.get("solver", "exact")
    why = usable(solver)
    if why is not None:
        raise InputError(why)
    import cpmpy
    return Backend(f"{solver} via CPMpy {cpmpy.__version__}", lambda f, obj: CpmpyModel(f, obj, solver),
                   {"solver": solver, "solver_version": version(solver), "cpmpy": cpmpy.__version__,
                    **PINNED.get(solver, {})})


def run(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine `cpmpy:<formulation>`: the formulation hook's model in the CPMpy solver `solver`
    (optimize: its objective when it has one, else the hook's decision calls; count: no-good
    enumeration over the projection, exact)."""
    return drive(inst, task, ctx, backend(ctx.options))
