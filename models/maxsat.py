"""MaxSAT backend: python-sat's RC2 (Ignatiev, Morgado & Marques-Silva, JSAT 2019) on the weighted
CNF of a formulation, and the `maxsat:<formulation>` engines (the driver: models/paradigm.py).

Formulation: the formulation's CNF (models/formulation.py `to_cnf`, cardinality constraints in the
engine's `encoding`) as hard clauses; the objective offset + sum(c * x) as soft unit clauses —
minimising, (not x) of weight c for c > 0 and (x) of weight -c for c < 0 (maximising: the signs
swapped) — so that the cost of a model is the objective minus a constant. RC2 answers with an
optimum (core-guided: it proves the optimum as it finds it, so there is no FEASIBLE on the way).

Feasible: RC2 with the hard clauses only (no soft clause: RC2 is then one call of its SAT oracle).
Count: refused — enumeration by blocking clauses is what the `sat:` engines do; MaxSAT adds
nothing to it.

Limits: RC2 calls its oracle without a time limit (python-sat's RC2 uses `solve`, not
`solve_limited`), so the time limit is the runner's kill of the worker (UNKNOWN, as for
cadical195). Parameters pinned and recorded: the oracle, adapt (at-most-one detection), exhaust
(core exhaustion), minz (core minimisation), trim, stratification (when the weights differ).
"""
from __future__ import annotations

from typing import Any

from ..core.result import Context, InputError, Outcome, Status, Task

from .formulation import Formulation, to_cnf
from .paradigm import Answer, Backend, run as drive

# RC2's own recommended configuration (its command line's -a -x -m -t 5 ... minus -v; the MaxSAT
# Evaluation 2018/2019 entries ran RC2 with adapt, exhaust, minz and trim)
PARAMS = {"oracle": "glucose4", "adapt": True, "exhaust": True, "minz": True, "trim": 5}


class Rc2Model:
    """The formulation's weighted CNF, solved by RC2 once per `solve`."""

    def __init__(self, f: Formulation, objective: tuple | None, encoding: str, params: dict):
        if not f.is_cnf():
            raise InputError(f"formulation {f.name} has integer variables or Linear constraints: "
                             "it has no CNF, so MaxSAT cannot take it (the mip: and cpmpy: engines can)")
        self.cnf = to_cnf(f, encoding)
        self.objective = objective
        self.params = params
        self.soft: list[tuple[int, int]] = []   # (literal, weight)
        self.const = 0                           # objective = const + cost
        if objective is not None:
            sense, terms, offset = objective
            sign = 1 if sense == "min" else -1
            self.const = offset * sign
            for c, k in terms:
                if k in f.ints:
                    raise InputError(f"formulation {f.name}: objective over an integer variable")
                c *= sign
                v = self.cnf.id(k)
                if c > 0:
                    self.soft.append((-v, c))
                elif c < 0:
                    self.soft.append((v, -c))
                    self.const += c
            self.sign = sign
        self.blocks: list[list[int]] = []
        self.calls = 0
        self.oracle_calls = 0

    def solve(self, ctx: Context) -> Answer:
        from pysat.examples.rc2 import RC2, RC2Stratified
        from pysat.formula import WCNF
        if ctx.expired():
            return Answer(Status.UNKNOWN, reason="time limit")
        w = WCNF()
        for c in self.cnf.clauses:
            w.append(c)
        for c in self.blocks:
            w.append(c)
        for lit, weight in self.soft:
            w.append([lit], weight=weight)
        p = self.params
        strat = len({wt for _, wt in self.soft}) > 1
        cls = RC2Stratified if strat else RC2
        self.stratified = strat
        if not self.soft:  # RC2 needs a soft clause to start: one over a fresh variable, weight 1
            w.append([self.cnf.pool.top + 1], weight=1)
        with cls(w, solver=p["oracle"], adapt=p["adapt"], exhaust=p["exhaust"], minz=p["minz"],
                 trim=p["trim"]) as rc2:
            model = rc2.compute()
            self.calls += 1
            self.oracle_calls += getattr(rc2, "oracle_calls", 0) or 0
            cost = rc2.cost
        if model is None:
            return Answer(Status.INFEASIBLE)
        true = self.cnf.keys_true(model, self.cnf.formulation.projection)
        value = None
        if self.objective is not None:
            value = self.sign * (self.const + cost)
        return Answer(Status.OPTIMAL, true, value)

    def block(self, true: set) -> None:
        proj = self.cnf.projection_ids()
        ids = {self.cnf.id(k) for k in true}
        self.blocks.append([-v if v in ids else v for v in proj])

    def stats(self) -> dict[str, Any]:
        return {"vars": self.cnf.pool.top, "clauses": len(self.cnf.clauses) + len(self.blocks),
                "soft": len(self.soft), "stratified": getattr(self, "stratified", False),
                "solver_calls": self.calls}


def backend(options: dict[str, Any]) -> Backend:
    """RC2 with the pinned parameters and the engine's oracle and encoding."""
    import pysat
    params = dict(PARAMS, oracle=options.get("oracle", PARAMS["oracle"]))
    enc = options.get("encoding", "seqcounter")
    return Backend(f"RC2 (python-sat {getattr(pysat, '__version__', '?')})",
                   lambda f, obj: Rc2Model(f, obj, enc, params),
                   {"solver": "rc2", "encoding": enc, **params}, count=False)


def run(inst: Any, task: Task, ctx: Context) -> Outcome:
    """Engine `maxsat:<formulation>`: RC2 on the weighted CNF (optimize: the objective as soft
    clauses, else the hook's decision calls; feasible: the hard clauses only)."""
    return drive(inst, task, ctx, backend(ctx.options))
