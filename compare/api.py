"""The public API (re-exported by `puzzlesat`): load, load_all, solve, compare, engines, catalogue,
check, svg, model, plugins, register_family. The command line is a client of these functions; it adds only
printing.

>>> import puzzlesat as ps
>>> inst = ps.load("peg/hoppers")                  # catalogue name, file path, or TOML text
>>> r = ps.solve(inst, "sat", time_limit=60, encoding="totalizer")
>>> r.status.value, r.objective, r.params["encoding"]
('OPTIMAL', 7, 'totalizer')
>>> c = ps.compare(inst, ["native", "cpsat", "sat[encoding=totalizer]"])
>>> c.verdict.value, [row["objective"] for row in c.table()]
('AGREE', [7, 7, 7])
>>> [e.name for e in ps.engines("peg")][:2]
['native:iddfs', 'native:bfs']
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..core.config import Config, parse as parse_config
from ..core.family import Engine
from ..core.result import Context, InputError, Outcome, Result, Status, Task
from ..families.instances import load_instance, load_instances, load_text
from ..families.registry import families, family, family_of
from .crossval import Comparison, compare_runs
from .plan import plan, plan_one
from .runner import execute


def load(spec: str | Path, *, family: str | None = None) -> Any:
    """An instance from a catalogue name (`peg/hoppers`), a file path, `FILE#LINE` (one line of
    a collection file), or TOML text. `family` names the family that reads a file or text (needed
    when two families read its suffix or kind).

    >>> load("sliding/8-hardest").rows
    3
    >>> load('kind = "sliding"\\nrows = 2\\ncols = 2\\nstart = [0, 1, 3, 2]').name
    '<text>'
    >>> load("peg/nowhere")
    Traceback (most recent call last):
    puzzlesat.InputError: unknown instance 'peg/nowhere'; `puzzlesat list peg` shows the 28 built-in ones
    """
    if isinstance(spec, Path):
        return load_instance(str(spec), family=family)[1]
    if not isinstance(spec, str):
        raise InputError(f"load: expected a catalogue name, a path or TOML text, got {type(spec).__name__}")
    if "\n" in spec or spec.lstrip().startswith("kind"):
        return load_text(spec, family=family)[1]
    return load_instance(spec, family=family)[1]


def load_all(spec: str | Path, *, family: str | None = None) -> list[Any]:
    """Every instance `spec` names: those of a collection file (one a line, in file order; each
    named `FILE#LINE`), else the one instance `load` gives.

    >>> [i.name for i in load_all("peg/hoppers")]
    ['hoppers']
    """
    if isinstance(spec, str) and ("\n" in spec or spec.lstrip().startswith("kind")):
        return [load(spec, family=family)]
    return [got.instance for got in load_instances(str(spec), family=family)]


def solve(instance: Any, engine: str | Config | Callable = "default", task: Task | str | None = None, *,
          time_limit: float | None = None, memory_limit_mb: float | None | str = "default",
          precheck: bool = True, progress: Callable[[dict], None] | None = None,
          **options: Any) -> Result:
    """Run one engine (a name, a configuration `sat:time[encoding=totalizer]`, or your own
    function `(instance, task, ctx) -> Outcome`) and return its checked Result.

    `engine` "default" is the family's native engine, and for task count the faster of it and the
    model counter `count:frontier`, chosen per instance (compare/route.py; `stats["route"]` and
    `stats["route_reason"]` say which and why).
    `task` defaults to the family's first (optimize; count for tilings); keyword options are the
    engine's options (`ps.engines(family)` lists them with their defaults); `progress(fields)`
    receives the engine's progress reports (depth, nodes, ...) as they come.

    >>> r = solve(load("sliding/8-hardest"), "native", "count")
    >>> r.status.value, r.objective, r.count, len(r.solutions)
    ('OPTIMAL', 31, 40, 40)
    >>> r.to_json()["solutions"][0]["length"]
    31
    """
    fam = family_of(instance)
    run = plan_one(fam, instance, engine, task, options=options, time_limit=time_limit,
                   memory_limit_mb=memory_limit_mb, precheck=precheck)
    return execute(run, progress=progress)


def compare(instance: Any, engines: Iterable[str | Config | Callable] | None = None,
            task: Task | str | None = None, *, time_limit: float | None = None,
            memory_limit_mb: float | None | str = "default", precheck: bool = True,
            on_result: Callable[[Result], None] | None = None,
            progress_for: Callable[[str], Callable[[dict], None] | None] | None = None,
            jobs: int = 1, **options: Any) -> Comparison:
    """Run several engines or configurations in turn and judge them: AGREE (all finished, same
    objective and count, every solution checked), DISAGREE, INCOMPLETE or UNCHECKED (a count that
    rests on one counter alone). `options` go to every
    engine that has them (`name.key` targets one: pass them as `**{"sat.encoding": ...}`).
    `on_result(result)` is called as each run finishes; `progress_for(label)` may return a
    progress callback for that run. `jobs` > 1 runs that many engines side by side (each in its
    own worker under its own limits; they share the cores, so their times are not comparable).

    >>> c = compare(load("peg/hoppers-first06"), ["native", "tot=sat[encoding=totalizer]"], "count")
    >>> c.verdict.value, [(row["config"], row["count"]) for row in c.table()]
    ('AGREE', [('native:auto', 18), ('tot', 18)])
    """
    fam = family_of(instance)
    names = list(engines) if engines is not None else default_engines(fam.name)
    runs = plan(fam, instance, names, task, options=options, time_limit=time_limit,
                memory_limit_mb=memory_limit_mb, precheck=precheck)
    return compare_runs(runs, on_result=on_result, progress_for=progress_for, jobs=jobs)


def default_engines(family_name: str) -> list[str]:
    """The engines `compare` runs when none are named: the family's defaults that exist."""
    fam = family(family_name)
    return [n for n in fam.default_engines if n in fam.engine_names()]


@dataclass(frozen=True)
class EngineInfo:
    """An engine as `ps.engines()` lists it: names, tasks, options with their defaults."""

    family: str
    name: str
    aliases: tuple[str, ...]
    tasks: tuple[str, ...]
    options: dict[str, Any]
    description: str
    user: bool = False
    allowed: dict[str, str] | None = None  # each option's allowed values, in words

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def engines(family_name: str | None = None) -> list[EngineInfo]:
    """Every engine (of one family, or all), user engines included.

    >>> [(e.name, e.options["encoding"]) for e in engines("peg") if e.name == "sat:time"]
    [('sat:time', 'seqcounter')]
    """
    fams = [family(family_name)] if family_name else list(families().values())
    return [EngineInfo(f.name, e.name, e.aliases, tuple(map(str, e.tasks)),
                       {o.name: o.default for o in e.options}, e.description, e.user,
                       {o.name: o.allowed() for o in e.options})
            for f in fams for e in f.all_engines()]


def catalogue(family_name: str | None = None) -> list[str]:
    """The built-in instance names (`family/name`).

    >>> "peg/triangle21" in catalogue("peg")
    True
    """
    fams = [family(family_name)] if family_name else list(families().values())
    return [f"{f.name}/{n}" for f in fams for n in f.catalogue()]


class Model:
    """A CP-SAT or SAT formulation as data, ready to extend and solve (what `ps.model` returns).

    `formulation` holds the variables by domain key and the constraints by group (the bound of
    the decision call included, e.g. group 'move counting' = "moves <= 12"); `add(group, ...)`
    appends constraints (`puzzlesat.engine.Clause`, `ExactlyOne`, `AtMost`, `Xor`, `Linear`, ...);
    `cnf()` / `cpsat()` compile it; `solve()` runs it through the same worker, limits and checker
    as every engine; `stats()` counts it per group.
    """

    def __init__(self, instance: Any, config: Config, engine: Engine, options: dict[str, Any],
                 decision: Any):
        self.instance, self.config, self.engine, self.options = instance, config, engine, options
        self.decision = decision
        self.formulation = decision.formulation
        self.backend = "cpsat" if engine.name.startswith("cpsat") else "sat"

    def __repr__(self) -> str:
        f = self.formulation
        return (f"<Model {self.config.name} on {getattr(self.instance, 'name', '?')}: "
                f"{self.decision.bound_text}; {sum(map(len, f.groups.values()))} constraints in "
                f"{len(f.groups)} groups>")

    def add(self, group: str, *constraints: Any) -> "Model":
        """Append constraints to `group` of the formulation; returns the model."""
        self.formulation.add(group, *constraints)
        return self

    def cnf(self, encoding: str | None = None):
        """The formulation as CNF (`puzzlesat.models.formulation.Cnf`: clauses, pool, var_map)."""
        from ..models.formulation import to_cnf
        return to_cnf(self.formulation, encoding or self.options.get("encoding", "seqcounter"))

    def cpsat(self):
        """The formulation as a CpModel with its variables by key (`CpData`)."""
        from ..models.formulation import to_cpsat
        return to_cpsat(self.formulation)

    def stats(self) -> dict[str, Any]:
        """Variables, clauses/constraints and literals, per group (groups sum to the totals)."""
        return (self.cnf() if self.backend == "sat" else self.cpsat()).stats()

    def solve(self, *, time_limit: float | None = None, memory_limit_mb: float | None | str = "default"
              ) -> Result:
        """One solution of this (decision) model, found by the model's backend and checked by the
        family's checker: FEASIBLE with it, INFEASIBLE, or UNKNOWN at the time limit.

        >>> from puzzlesat.engine import Clause
        >>> inst = load("peg/hoppers")
        >>> m = model(inst, "sat:time", bound=7)
        >>> m.solve().status.value
        'FEASIBLE'
        >>> l = inst.board.lines.index((0, 3, 6))              # jump 0 over 3 into 6, first
        >>> r = m.add("my first jump", Clause(((("j", 0, l), True),))).solve()
        >>> r.status.value, r.solutions[0][0]
        ('FEASIBLE', (0, 3, 6))
        >>> model(load("peg/hoppers"), "cpsat:time", bound=6).solve().status.value
        'INFEASIBLE'
        """
        fam = family_of(self.instance)
        eng = Engine(f"model:{self.config.name}", self._run, (Task.FEASIBLE,), (),
                     f"ps.model of {self.config.name}", user=True)
        run = plan_one(fam, self.instance, eng, Task.FEASIBLE, time_limit=time_limit,
                       memory_limit_mb=memory_limit_mb, precheck=False)
        return execute(run)

    def core(self, *, time_limit: float | None = None, memory_limit_mb: float | None | str = "default",
             certify: bool = False, proof_dir: str = "", solver: str | None = None,
             call_limit: float | None = None, work_dir: str | None = None,
             order: str = "given", witness_probe: float | None = None,
             within: list[str] | None = None,
             progress: Callable[[dict], None] | None = None) -> Result:
        """For an infeasible decision call: a minimal set of constraint groups that is still
        infeasible (deletion over one selector per group, models/why.py), re-checked by a fresh
        solve of those groups alone and, for each of them, a checked model of the others;
        `certify`: the re-check's DRAT proof checked by puzzlesat.certify. `call_limit`: CPU
        seconds per deletion call; a group whose call hits it stays in the core as undecided
        (`stats['undecided']`, `stats['minimal']` False). The deletion calls run on the model's
        backend (a cpsat: configuration: CP-SAT with its pinned parameters, one worker, its
        `search` and `presolve` options honoured); `solver` is the re-check's ('cpsat': CP-SAT on
        the core's CNF, LRAT proof with `certify`, the fixed search with search=fixed). `work_dir`: every decided call is kept there, so a rerun (or a longer
        `call_limit`) continues; `order`: 'given' or 'largest' groups first (which minimal core
        is found); `witness_probe`: with a cpsat: configuration's search=fixed, CPU seconds of
        CP-SAT's automatic search that go first in each deletion call (default
        compare.why.WITNESS_PROBE; 0: none), since the fixed search finds models badly;
        `within`: only these groups are searched, a set known infeasible such as an earlier
        core (its undecided groups then cost one call each, not the calls that found it);
        `progress`: called with a dict as each deletion call starts and ends and as
        the re-check starts (compare.why.core_run). INFEASIBLE with `stats['core']`;
        FEASIBLE with a checked solution when the call is feasible; UNKNOWN at the time limit.

        >>> r = model(load("sliding/8-easy"), "sat:time", bound=1).core()  # optimum 2: 1 is too few
        >>> r.status.value, r.stats["core"], r.stats["core_recheck"]
        ('INFEASIBLE', ['manhattan bound'], 'UNSAT')
        """
        from .why import core_run
        return core_run(family_of(self.instance), self.instance, self.decision, self.config.name,
                        certify=certify, proof_dir=proof_dir, time_limit=time_limit,
                        memory_limit_mb=memory_limit_mb, call_limit=call_limit, work_dir=work_dir,
                        order=order, within=within, progress=progress,
                        **self._core_search(solver, witness_probe))

    def core_status(self, work_dir: str, *, solver: str | None = None,
                    call_limit: float | None = None, order: str = "given",
                    witness_probe: float | None = None,
                    within: list[str] | None = None) -> dict[str, Any]:
        """Where the `core()` run in `work_dir` (the same call limit, order, witness probe,
        `within` and re-check solver)
        stands, from its records alone: 'status' RUNNING with 'next_call', or RECHECK once every
        deletion call is recorded; 'necessary', 'undecided', 'dropped' and 'log' so far. No
        solver runs and nothing is written, so it can be asked while the run goes on.

        >>> import tempfile
        >>> m, w = model(load("sliding/8-easy"), "sat:time", bound=1), tempfile.mkdtemp()
        >>> m.core(work_dir=w).stats["core"]
        ['manhattan bound']
        >>> s = m.core_status(w)
        >>> s["status"], s["core"], s["work_dir"]["reused_calls"] == s["calls"]
        ('RECHECK', ['manhattan bound'], True)
        """
        from ..models.why import ORDERS, core_status
        if order not in ORDERS:
            raise InputError(f"lab core: order '{order}': one of " + ", ".join(ORDERS))
        return core_status(self.decision, self.instance, work_dir, call_limit=call_limit,
                           order=order, within=within, **self._core_search(solver, witness_probe))

    def _core_search(self, solver: str | None, witness_probe: float | None = None) -> dict[str, Any]:
        """What identifies a core search of this model besides its folder and limits: the
        re-check `solver` (default: the configuration's, else cadical195), the encoding, the
        backend and its pinned CP-SAT parameters, the witness probe among them (core() and
        core_status() alike)."""
        from .why import core_cpsat_params
        if witness_probe and self.backend != "cpsat":
            raise InputError(f"lab core: {self.config.name}: a witness probe goes before CP-SAT's "
                             "fixed search (a cpsat: configuration with search=fixed)")
        sat = self.options.get("solver") if self.backend == "sat" else None
        return {"solver": solver or sat or "cadical195",
                "encoding": self.options.get("encoding", "seqcounter"), "backend": self.backend,
                "cpsat_params": (core_cpsat_params(self.options, self.decision, self.config.name,
                                                   witness_probe)
                                 if self.backend == "cpsat" else None)}

    def _run(self, inst: Any, task: Task, ctx: Context) -> Outcome:
        from ..models import _cpsat, _sat
        f, stats = self.formulation, {"bound": self.decision.bound_text}
        if self.backend == "sat":
            cnf = self.cnf()
            stats.update(vars=cnf.pool.top, clauses=len(cnf.clauses))
            with _sat.new_solver(self.options.get("solver", "cadical195"), cnf.clauses) as s:
                res = _sat.solve_limited(s, ctx)
                m = s.get_model() if res else None
            if res is None:
                return Outcome(Status.UNKNOWN, stats=stats, reason="time limit")
            if not res:
                return Outcome(Status.INFEASIBLE, stats=stats)
            true = cnf.keys_true(m, f.projection)
        else:
            cp = self.cpsat()
            proto = cp.model.Proto()
            stats.update(vars=len(proto.variables), constraints=len(proto.constraints))
            st, solver = _cpsat.solve(cp.model, {"num_workers": 1, "linearization_level": 0,
                                                 "random_seed": 0}, ctx)
            if st not in (Status.OPTIMAL, Status.FEASIBLE):
                return Outcome(st, stats=stats)
            true = {k for k in f.projection if solver.value(cp.vars[k])}
        return Outcome(Status.FEASIBLE, solutions=(self.decision.decode(true),), stats=stats)


def model(instance: Any, config: str | Config, task: Task | str | None = None, *,
          bound: int | None = None, **options: Any) -> Model:
    """The formulation of a CP-SAT or SAT engine (a configuration) for `instance` as data: the
    decision call for `task` with `bound` (default: the family's known optimum or a proved lower
    bound; feasible: no bound), ready to extend with constraints and solve.

    >>> m = model(load("peg/hoppers"), "sat:time[encoding=totalizer]", bound=7)
    >>> m.decision.bound_text, sorted(m.formulation.groups)[:3]
    ('moves <= 7', ['frame axioms', 'jump effects', 'jump end'])
    >>> st = m.stats(); st["clauses"] == sum(g["clauses"] for g in st["groups"].values())
    True
    """
    from ..models._ext import call_hook
    fam = family_of(instance)
    cfg = config if isinstance(config, Config) else parse_config(config)
    eng = fam.engine(cfg.engine)
    if eng.formulation is None:
        raise InputError(f"engine {eng.name} of {fam.name} has no formulation as data "
                         "(ps.model takes the CP-SAT and SAT engines that have one; see ps.engines)")
    t = Task(task) if task is not None else fam.tasks[0]
    opts = eng.resolve_options({**cfg.opts, **options}, t)
    return Model(instance, cfg, eng, opts, call_hook(eng.formulation, instance, t, opts, bound))


def svg(instance: Any, solution: Any = None) -> str:
    """The instance (and a solution, in the family's type or JSON form) drawn as SVG text.

    >>> svg(load("sliding/8-easy")).startswith("<svg")
    True
    """
    fam = family_of(instance)
    return fam.svg(instance, None if solution is None else fam.solution_from_json(instance, solution))


def check(instance: Any, solution: Any) -> Any:
    """Run the family's independent checker on a solution (its own type or its JSON form): the
    recomputed objective (None where there is none), or CheckError.

    >>> check(load("sliding/8-easy"), {"moves": []})
    Traceback (most recent call last):
    puzzlesat.CheckError: after 0 moves the board is [1, 2, 3, 4, 0, 6, 7, 5, 8], not the goal [1, 2, 3, 4, 5, 6, 7, 8, 0]
    """
    fam = family_of(instance)
    return fam.check(instance, fam.solution_from_json(instance, solution))
