"""Why a model answers as it does, over its named constraint groups: `puzzlesat lab core` (a
minimal set of groups that is still infeasible, re-checked, optionally certified) and `puzzlesat
lab ablate` (each optional group dropped in turn, side by side). The computations are
models/why.py; here they become checked runs of the runner (killable workers, time and memory
limits, the family's checker, the proof check) and tables.
"""
from __future__ import annotations

from typing import Any, Callable

from ..core.config import Config, parse as parse_config
from ..core.family import Engine, Family, Option
from ..core.result import InputError, Result, Task
from .lab import lab_runs
from .plan import plan, plan_one
from .runner import execute
from .tables import Column, Table, cell

KINDS = ("sat", "cpsat", "mip", "maxsat", "cpmpy")


def core_run(fam: Family, inst: Any, decision: Any, label: str, *, solver: str = "cadical195",
             encoding: str = "seqcounter", certify: bool = False, proof_dir: str = "",
             time_limit: Any = None, memory_limit_mb: Any = "default",
             call_limit: float | None = None, backend: str = "sat",
             cpsat_params: dict[str, Any] | None = None, work_dir: str | None = None,
             order: str = "given", within: list[str] | None = None,
             progress: Callable[[dict], None] | None = None) -> Result:
    """The group core of one decision call (a models._ext.Decision), run and checked by the
    runner: INFEASIBLE with stats['core'] (certificate with `certify`; with `call_limit` CPU
    seconds per deletion call, stats['undecided'] lists the groups whose call hit it), FEASIBLE
    with a checked solution when the call is feasible, UNKNOWN at the run's limit. `backend`:
    'sat' (one incremental `solver`) or 'cpsat' (CP-SAT solves with `cpsat_params`, one worker)
    answers the deletion calls; the re-check is `solver`'s either way ('cpsat', with a cpsat
    backend: CP-SAT on the core's CNF, LRAT when certifying, the fixed search when the
    parameters have FIXED_SEARCH). `work_dir`: a folder that
    keeps every decided call, so a rerun continues (models.why.CoreFolder). `order`: the order
    groups are tried in (models.why.ORDERS). `within`: only these groups are searched (a set
    known infeasible, e.g. an earlier core; models.why.group_core). `progress`: called with a dict as each deletion
    call starts ('testing': the groups left out, 'groups': how many stay) and ends ('last': its
    log entry), and as the re-check starts ('recheck': the core's groups)."""
    from ..models.why import ORDERS
    if order not in ORDERS:
        raise InputError(f"lab core: order '{order}': one of " + ", ".join(ORDERS))
    from ..models.why import core_engine
    if call_limit is not None and not call_limit > 0:
        raise InputError(f"lab core: the call limit must be a positive number of CPU seconds, "
                         f"not {call_limit!r}")
    if backend not in ("sat", "cpsat"):
        raise InputError(f"lab core: no core backend '{backend}' (sat, cpsat)")
    if solver == "cpsat" and backend != "cpsat":
        raise InputError("lab core: re-check solver cpsat goes with a cpsat: configuration (-e "
                         "cpsat:…); the deletion calls of a sat: one use a python-sat solver")
    eng = Engine(f"core:{label}", core_engine(decision, solver, encoding, call_limit, backend,
                                              cpsat_params, work_dir, order, within),
                 (Task.FEASIBLE,),
                 (Option("certify", False), Option("proof_dir", "")),
                 f"group core of {label}", user=True, code="puzzlesat.models.why")
    run = plan_one(fam, inst, eng, Task.FEASIBLE, options={"certify": certify, "proof_dir": proof_dir},
                   time_limit=time_limit, memory_limit_mb=memory_limit_mb, precheck=False)
    return execute(run, progress=progress)


WITNESS_PROBE = 10.0   # CPU s of CP-SAT's automatic search before each fixed-search deletion call


def core_cpsat_params(options: dict[str, Any], decision: Any, label: str,
                      witness_probe: float | None = None) -> dict[str, Any]:
    """The pinned CP-SAT parameters of lab core's deletion calls for a cpsat: configuration's
    `options`, as its own decision calls use them: one worker (models._cpsat.params), its
    `search` option (fixed: FIXED_SEARCH over decision.search_order, true first; auto:
    AUTOMATIC_SEARCH) and its `presolve` option (cp_model_presolve), when the engine has them.
    With search=fixed, `witness_probe` CPU seconds (default WITNESS_PROBE; 0: none) of the
    automatic search go first in each call (models.why.CpsatCalls)."""
    from ..models import _cpsat
    from ..models.why import PROBE
    extra: dict[str, Any] = {}
    search = options.get("search")
    if witness_probe is not None and (isinstance(witness_probe, bool) or not witness_probe >= 0):
        raise InputError(f"lab core: witness probe {witness_probe!r}: CPU seconds, 0 or more")
    if witness_probe and search != "fixed":
        raise InputError(f"lab core: {label}: a witness probe goes before a fixed search "
                         "(search=fixed); without one the deletion calls are CP-SAT's automatic "
                         "search already")
    if search == "fixed":
        probe = WITNESS_PROBE if witness_probe is None else float(witness_probe)
        if probe > 0:
            extra[PROBE] = probe
    if search is not None:
        if search not in ("auto", "fixed"):
            raise InputError(f"lab core: {label}: option search={search!r}: auto or fixed")
        if search == "fixed" and not decision.search_order:
            raise InputError(f"lab core: {label}: search=fixed, but its formulation names no "
                             "search order")
        extra["search_branching"] = "FIXED_SEARCH" if search == "fixed" else "AUTOMATIC_SEARCH"
    if "presolve" in options:
        extra["cp_model_presolve"] = bool(options["presolve"])
    return _cpsat.params(options, **extra)


def core_table(res: Result, decision: Any) -> Table:
    """One row per group of the decision call: its size, whether it is in the core (necessary, or
    undecided at the call limit), the search's last call without it alone (answer, CPU seconds;
    a group dropped together with others, or by a failed-assumption core, has none) and what the
    re-check found without it."""
    st = res.stats
    core = set(st.get("core") or ())
    necessary = set(st.get("necessary") or ())
    without = st.get("without_each") or {}
    calls = {e["without"]: e for e in st.get("log") or () if isinstance(e.get("without"), str)}
    t = Table("lab core", [Column("group"), Column("role"), Column("constraints", "int"),
                           Column("clauses", "int"), Column("in core"),
                           Column("search without it"), Column("CPU s", "float"),
                           Column("core without it")],
              key={"instance": f"{res.family}/{res.instance}", "call": decision.bound_text,
                   "answer": res.status.value},
              notes=[n for n in (res.reason,) if n])
    opt = decision.formulation.optional
    known = st.get("status") == "INFEASIBLE"
    dropped = set(st.get("dropped") or ())
    left_out = set(st.get("left_out") or ())
    for g in st.get("groups") or decision.formulation.groups:
        if g in necessary:
            inside = "yes"
        elif g in core:
            inside = "yes (undecided)"
        elif g in left_out:
            inside = "no (left out: within)"
        else:
            inside = "no" if known or g in dropped else "?"
        t.add(cell(g), cell(opt.get(g, "")), cell(st.get("group_sizes", {}).get(g), "int"),
              cell(st.get("group_clauses", {}).get(g), "int"), cell(inside),
              cell(calls[g]["answer"] if g in calls else ""),
              cell(calls[g]["cpu_seconds"] if g in calls else None, "float"),
              cell(without.get(g, "")))
    t.params = {"solver": st.get("solver"), "encoding": st.get("encoding"),
                "solver calls": st.get("calls"), "search CPU s": st.get("search_cpu_seconds"),
                "core re-check": st.get("core_recheck"),
                "re-check CPU s": st.get("recheck_cpu_seconds"), "seconds": round(res.seconds, 3)}
    if st.get("call_limit") is not None:
        t.params["call limit (CPU s)"] = st["call_limit"]
    if st.get("left_out"):
        t.params["left out (within)"] = ", ".join(st["left_out"])
    if res.certificate:
        t.params["certificate"] = str(res.certificate.verdict)
    return t


def ablation_runs(fam: Family, inst: Any, config: str | Config, task: Task | str | None = None, *,
                  time_limit: Any = None, memory_limit_mb: Any = "default",
                  options: dict[str, Any] | None = None) -> tuple[list, dict[str, str]]:
    """The runs of an ablation (every option checked before any run): the configuration's
    formulation with all its groups, then without each optional group in turn, then without all
    of them, each on the decision engine of the configuration's kind; and the roles by group."""
    from ..models._ext import call_hook
    cfg = config if isinstance(config, Config) else parse_config(config)
    eng = fam.engine(cfg.engine)
    kind = eng.name.split(":")[0]
    if not eng.formulation or kind not in KINDS:
        raise InputError(f"lab ablate: engine {eng.name} has no formulation hook on a backend "
                         "the ablation runs (" + ", ".join(KINDS) + "); engines with one: "
                         + ", ".join(e.name for e in fam.engines if e.formulation
                                     and e.name.split(':')[0] in KINDS))
    task = Task(task) if task is not None else fam.tasks[0]
    opts = eng.resolve_options({**(options or {}), **cfg.opts}, task)
    switches = [o.name for o in eng.options if o.identity and opts.get(o.name) is True]
    if task is Task.COUNT and switches:
        raise InputError(f"lab ablate: counting with {', '.join(switches)} needs the family's own "
                         "orbit counting; the ablation's decision engine counts every solution "
                         "(ablate the task feasible, or count without it)")
    d = call_hook(eng.formulation, inst, task, opts, None)
    roles = {g: r for g, r in d.formulation.optional.items() if g in d.formulation.groups}
    if task is not Task.FEASIBLE:  # a bound's own optional groups (peg: the resource bounds)
        dk = call_hook(eng.formulation, inst, task, opts, d.upper if d.upper is not None else d.bound)
        roles.update({g: r for g, r in dk.formulation.optional.items() if g in dk.formulation.groups})
    if not roles:
        raise InputError(f"lab ablate: the formulation of {eng.name} on {getattr(inst, 'name', '?')} "
                         "marks no optional group (Formulation.mark): nothing to drop")
    from ..models.why import ablation_engine
    variants: list[tuple[str, tuple[str, ...]]] = [("all groups", ())]
    variants += [(f"without {g}", (g,)) for g in roles]
    if len(roles) > 1:
        variants.append(("without all optional", tuple(roles)))
    hook_opt = Option("formulation", eng.formulation)
    own = tuple(o for o in eng.options if o.name not in ("certify", "proof_dir", "cnf_encoding"))
    engines = [Engine(f"{kind}:{label}", ablation_engine(kind, drop), (task,), (*own, hook_opt),
                      f"{eng.name} {label}", user=True, code="puzzlesat.models.why")
               for label, drop in variants]
    given = {k: v for k, v in opts.items() if eng.option(k) is not None and k in
             {o.name for o in own}}
    runs = plan(fam, inst, engines, task, options=given, time_limit=time_limit,
                memory_limit_mb=memory_limit_mb, precheck=False)
    return runs, roles


def ablate(fam: Family, inst: Any, config: str | Config, task: Task | str | None = None, *,
           repeat: int = 1, time_limit: Any = None, memory_limit_mb: Any = "default",
           options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ablation report (a lab report: every run checked, the verdict across variants, the
    best marked) plus `roles` (group -> role) and `config`."""
    runs, roles = ablation_runs(fam, inst, config, task, time_limit=time_limit,
                                memory_limit_mb=memory_limit_mb, options=options)
    rep = lab_runs(runs, repeat=repeat)
    rep["roles"] = roles
    rep["ablated"] = str(config)
    return rep
