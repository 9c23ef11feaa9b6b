"""SAT model of polyomino tiling: exact cover in CNF, enumerated by blocking clauses.

Formulation: the exact cover of `models.pentomino.cover.formulation`, compiled by
`models.formulation.to_cnf`: one variable per placement (a piece kind on a set of cells); for every board cell
exactly one covering placement, and for every piece kind exactly `count` placements, each as a
PySAT cardinality encoding chosen by name (`encoding=`). As in the CP-SAT model, copies of one
piece are interchangeable, so a tiling is one model of the placement variables.

Enumeration adds one blocking clause per tiling. With `blocking="placements"` (default) the
clause forbids the tiling's chosen placements together (¬x_1 ∨ … ∨ ¬x_12) — under exact cover
that excludes exactly this tiling and nothing else, and is far shorter and stronger than the
clause over every placement variable that `models._sat.enumerate_projected` adds
(`blocking="full"`). `phase="negative"` starts the solver with every placement false.
The default encoding here is pairwise (measured best on 6x10, see compare/engines/pentomino.py).
`cubes="piece"` (default) enumerates under each placement of X (in general: the piece used once
with the fewest placements) as an assumption in turn — a cube-and-conquer split that cut the
conflicts 4-6x on 3x20 — and `cubes="none"` enumerates in one go.

Search: `search="first-cell"` (the default with cadical195) connects a decision heuristic through
CaDiCaL's IPASIR-UP user-propagator interface (Fazekas et al., "IPASIR-UP: User Propagators for
CDCL", SAT 2023; PySAT's `pysat.engines.Propagator`): every decision sets true a still-open
placement at the first uncovered cell in scan order (along the short side), the branching of
the native search and of the CP-SAT fixed search, while propagation, conflict analysis, learning
and restarts stay the solver's. It propagates nothing, so it cannot change which models exist,
only the order they are found in. Measured on 6x10 up to symmetry: 2.2M conflicts and 107 s with
CaDiCaL's own heuristic, 0.51M conflicts and 35 s with first-cell decisions.
`search="solver"` keeps the solver's own heuristic (the only choice for the other solvers).
"""
from __future__ import annotations

from pysat.engines import Propagator

from .. import _sat
from .cover import X, cube_placements, formulation, scan_key
from ..formulation import to_cnf
from ...core.result import CertificateClaim, Context, InputError, Outcome, Status, Task
from ...puzzles.pentomino import Solution, Tiling, one_per_orbit, placements, symmetries
from ...puzzles.pentomino_breaking import symmetry_plan

SEARCHES = ("auto", "first-cell", "solver")
DECIDER_SOLVERS = ("cadical195",)  # the python-sat solvers with IPASIR-UP (connect_propagator)


def build(inst: Tiling, *, encoding: str = "pairwise", breaking: bool = False,
          symmetry: str = "all"):
    """(clauses, number of variables, placement variables, notes on the encoding used): the
    shared exact cover (`models.pentomino.cover.formulation`, its breaking plan for the group
    `symmetry`) compiled to CNF. Piece counts above 1 take seqcounter when `encoding` encodes
    at-most-one only (recorded in the notes)."""
    if encoding not in _sat.ENCODINGS:
        raise InputError(f"unknown encoding '{encoding}'; known: " + ", ".join(_sat.ENCODINGS))
    f = formulation(inst, breaking, symmetry)
    copies = f.groups.pop("piece copies", [])
    cnf = to_cnf(f, encoding)
    notes: dict = {"encoding": encoding}
    if copies:
        if encoding in _sat.AMO_ONLY:
            cnf.encoding = notes["count_encoding"] = "seqcounter"
        cnf.add("piece copies", *copies)
        cnf.encoding = encoding
    notes["breaking_clauses"] = len(f.groups.get("symmetry breaking", ()))
    x = [cnf.id((X, i)) for i in range(len(placements(inst)))]
    return cnf.clauses, cnf.pool.top, x, notes


class FirstCellDecider(Propagator):
    """IPASIR-UP decision heuristic: decide true an open placement at the first uncovered cell.

    It only observes the placement variables, mirrors the solver's trail (assignments, decision
    levels, backtracks) to know which cells are covered, and never propagates or adds clauses.
    """

    def __init__(self, inst: Tiling, x: list[int]):
        super().__init__()
        key = scan_key(inst)
        cells = sorted(inst.cells, key=key)
        cid = {c: i for i, c in enumerate(cells)}
        self.full = (1 << len(cells)) - 1
        self.mask: dict[int, int] = {}
        self.anchored: list[list[int]] = [[] for _ in cells]  # per cell: placements whose first cell it is
        for v, p in zip(x, placements(inst)):
            ids = [cid[c] for c in p.cells]
            self.mask[v] = sum(1 << j for j in ids)
            self.anchored[min(ids)].append(v)
        self.covered = 0                          # cells covered by placements true on the trail
        self.assigned: set[int] = set()           # observed variables on the trail
        self.trail: list[tuple[int, int]] = []    # (variable, covered before it)
        self.levels: list[int] = []               # trail length when each decision level began
        self.fixed_covered = 0                    # root-level (permanent) assignments
        self.fixed: set[int] = set()
        self.decisions = 0

    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        v = abs(lit)
        if fixed:
            self.fixed.add(v)
            if lit > 0:
                self.fixed_covered |= self.mask[v]
            return
        self.assigned.add(v)
        self.trail.append((v, self.covered))
        if lit > 0:
            self.covered |= self.mask[v]

    def on_new_level(self) -> None:
        self.levels.append(len(self.trail))

    def on_backtrack(self, to: int) -> None:
        if to >= len(self.levels):
            return
        n = self.levels[to]
        del self.levels[to:]
        if n < len(self.trail):
            self.covered = self.trail[n][1]
            for v, _ in self.trail[n:]:
                self.assigned.discard(v)
            del self.trail[n:]

    def decide(self) -> int:
        free = self.full & ~(self.covered | self.fixed_covered)
        if not free:
            return 0
        c = (free & -free).bit_length() - 1
        for v in self.anchored[c]:
            if v not in self.assigned and v not in self.fixed:
                self.decisions += 1
                return v
        return 0  # every placement there is false: the solver's clauses see the conflict

    def check_model(self, model) -> bool:
        return True

    def propagate(self) -> list[int]:
        return []

    def provide_reason(self, lit: int) -> list[int]:
        return []

    def has_clause(self) -> bool:
        return False

    def add_clause(self) -> list[int]:
        return []


def search_mode(options: dict) -> str:
    """The search actually used for these options: 'first-cell' or 'solver'."""
    solver, search = options["solver"], options["search"]
    if search not in SEARCHES:
        raise InputError(f"unknown search '{search}'; known: " + ", ".join(SEARCHES))
    if search == "auto":
        return "first-cell" if solver in DECIDER_SOLVERS else "solver"
    if search == "first-cell" and solver not in DECIDER_SOLVERS:
        raise InputError(f"search=first-cell needs a solver with a user-propagator interface "
                         f"({', '.join(DECIDER_SOLVERS)}), not '{solver}'")
    return search


def _solve(s, name: str, ctx: Context, assume=()) -> bool | None:
    """One solver call within the time limit (None: time is up). CaDiCaL cannot be interrupted
    (its interrupt() raises in the timer thread), so it is called plainly and the time checked
    between calls; the runner's hard limit stops a call that runs past it."""
    if name.startswith("cadical"):
        if ctx.expired():
            return None
        return s.solve(assumptions=list(assume))
    return _sat.solve_limited(s, ctx, assume)


def run(inst: Tiling, task: Task, ctx: Context) -> Outcome:
    """Engine sat:cover — tasks feasible and count (options up_to_symmetry, symmetry,
    symmetry_breaking, solver, encoding, blocking, phase, cubes, search)."""
    o = ctx.options
    up = o["up_to_symmetry"] and task is Task.COUNT
    # one tiling wanted: the breaking clauses keep a tiling of every orbit (uncertified only: a
    # certified INFEASIBLE is proved on the plain cover)
    brk = bool(o["up_to_symmetry"] and o["symmetry_breaking"]
               and (up or (task is Task.FEASIBLE and not o.get("certify"))))
    group = o.get("symmetry", "all")
    clauses, nvars, x, notes = build(inst, encoding=o["encoding"], breaking=brk, symmetry=group)
    pls = placements(inst)
    var_index = {v: i for i, v in enumerate(x)}
    blocking, phase = o["blocking"], o["phase"]
    search = search_mode(o)
    params = {"solver": o["solver"], **notes, "blocking": blocking,
              "phase": phase, "search": search, "symmetry_breaking_applied": brk}
    if up:
        params["group_order"] = len(symmetries(inst, group))

    from ..prooflog import ProofLog, blocking as block_clause
    log = ProofLog(ctx, o["solver"], f"pentomino-{getattr(inst, 'name', 'instance')}")
    trues: list = []  # each tiling's true placement variables (certify)

    def solution(true_vars) -> Solution:
        return tuple(sorted(pls[var_index[v]].as_placement(inst) for v in true_vars))

    with _sat.new_solver(params["solver"], clauses) as s:
        decider = None
        if search == "first-cell":
            decider = FirstCellDecider(inst, x)
            s.connect_propagator(decider)
            for v in x:
                s.observe(v)
        if phase == "negative":
            try:
                s.set_phases([-v for v in x])
            except NotImplementedError:
                params["phase"] = "default (solver cannot set phases)"
        sols: list[Solution] = []
        status = Status.OPTIMAL
        try:
            if task is Task.FEASIBLE:
                res = _solve(s, params["solver"], ctx)
                if res is None:
                    raise TimeoutError
                if res:
                    model = s.get_model()
                    sols.append(solution(_sat.true_in(model, x)))
                    ctx.found(sols[0])
                status = Status.FEASIBLE if sols else Status.INFEASIBLE
            else:
                cubes = ([None if i is None else x[i] for i in cube_placements(inst, brk, group)]
                         if o["cubes"] == "piece" else [None])
                cube_count = len(cubes)
                for cube in cubes:
                    assume = [] if cube is None else [cube]
                    if blocking == "full":
                        for true in _sat.enumerate_projected(s, x, ctx, assumptions=assume):
                            trues.append(true)
                            sols.append(solution(true))
                            ctx.found(sols[-1])
                    else:
                        while True:
                            res = _solve(s, params["solver"], ctx, assume)
                            if res is None:
                                raise TimeoutError
                            if not res:
                                break
                            model = s.get_model()
                            true = _sat.true_in(model, x)
                            trues.append(true)
                            sols.append(solution(true))
                            ctx.found(sols[-1])
                            if len(sols) % 64 == 0:
                                ctx.progress(solutions=len(sols))
                            s.add_clause([-v for v in true])
                    if cube is not None:
                        s.add_clause([-cube])  # every tiling with this placement is blocked
        except TimeoutError:
            status = Status.UNKNOWN
        stats = _sat.stats(s, nvars, len(clauses))
        if task is Task.COUNT:
            stats["cubes"] = cube_count
        if decider is not None:
            stats["first_cell_decisions"] = decider.decisions
            s.disconnect_propagator()
    cert = None
    if log.on and status is not Status.UNKNOWN and not sols and task is Task.FEASIBLE:
        log.refute(clauses, "no tiling", nvars)  # the enumeration's solver logs no proof
        cert = log.certificate("no tiling", "the CNF states the tiling (exact cover of the "
                               "board's cells by the pieces' placements; cross-validated)")
    elif log.on and status is Status.OPTIMAL:
        if up:
            cert = _orbit_certificate(inst, o, log, clauses, nvars, x, trues, brk, group, ctx)
            if cert is None:
                status = Status.UNKNOWN  # the full enumeration hit the time limit
        else:
            log.refute(clauses + [block_clause(t, x) for t in trues],
                       f"no tiling beyond the {len(trues)} blocked (blocking clauses over the "
                       f"{len(x)} placement variables, which define a tiling)", nvars)
            cert = log.certificate(f"exactly {len(trues)} tilings" if trues else "no tiling",
                                   "the CNF states the tiling (exact cover of the board's cells by "
                                   "the pieces' placements; cross-validated against the native "
                                   "search)", blocking=len(trues))
    if up and log.on and cert is not None:
        params["certify_full_enumeration"] = cert.extra["enumeration"]
    if task is Task.FEASIBLE:
        return Outcome(status, solutions=tuple(sols), stats=stats, params=params, certificate=cert)
    if up and not (brk and symmetry_plan(inst, group).leaves_exact()):
        kept = one_per_orbit(inst, sols, group)
        stats["canonical_dedup"] = len(sols) - len(kept)
        sols = kept
    if status is Status.OPTIMAL and not sols:
        return Outcome(Status.INFEASIBLE, count=0, stats=stats, params=params, certificate=cert)
    if status is Status.OPTIMAL:
        return Outcome(Status.OPTIMAL, count=len(sols), solutions=tuple(sols), stats=stats,
                       params=params, certificate=cert)
    return Outcome(status, solutions=tuple(sols), stats=stats, params=params)


def _orbit_certificate(inst: Tiling, o: dict, log, clauses, nvars: int, x: list[int], trues: list,
                       brk: bool, group: str, ctx: Context) -> CertificateClaim | None:
    """The certificate of an orbit count: every tiling (the CNF without symmetry breaking,
    enumerated afresh when the count used breaking), a proof that the CNF with one blocking clause
    per tiling is UNSAT, and the tilings themselves, from which the runner derives the orbit count
    with the family's solution_key (no solver involved). None: the time limit stopped it."""
    from ..prooflog import blocking as block_clause
    pls = placements(inst)
    if brk:  # the breaking clauses cut orbits: the full count needs the plain exact cover
        clauses, nvars, x, _ = build(inst, encoding=o["encoding"], breaking=False, symmetry=group)
        how = ("a second enumeration, of the CNF without symmetry-breaking clauses (the count "
               "itself used them)")
        with _sat.new_solver(o["solver"], clauses) as s:
            try:
                trues = list(_sat.enumerate_projected(s, x, ctx))
            except TimeoutError:
                return None
    else:
        how = "the count's own enumeration (no symmetry-breaking clauses)"
    index = {v: i for i, v in enumerate(x)}
    tilings = [tuple(sorted(pls[index[v]].as_placement(inst) for v in t)) for t in trues]
    log.refute(clauses + [block_clause(t, x) for t in trues],
               f"no tiling beyond the {len(trues)} blocked (blocking clauses over the {len(x)} "
               "placement variables, which define a tiling; no symmetry-breaking clauses)", nvars)
    return log.certificate(
        f"exactly {len(trues)} tilings, in the orbits of the group '{group}' counted from them",
        "the CNF states the tiling (exact cover of the board's cells by the pieces' placements; "
        "cross-validated against the native search); the orbit count is the number of distinct "
        "solution_key(up_to_symmetry=True) values (the family's canonical form under the group) "
        "over the N tilings, each checked by the family's checker, computed by the runner",
        blocking=len(trues), enumeration=how,
        orbits={"identity": {"up_to_symmetry": True, "symmetry": group}, "enumeration": how,
                "solutions": [{"placements": [[n, [list(c) for c in cells]] for n, cells in t]}
                              for t in tilings]})
