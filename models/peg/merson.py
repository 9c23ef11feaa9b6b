"""Peg solitaire, the time model plus Merson-region resource counts (formulation `peg:merson`).

Vocabulary:
  Merson region  a hole set R such that every jump line (a, b, c) with b in R has a or c in R.
                 While R is full, a jump that empties a hole of R must start in R (a jump over
                 b in R lands in c, which is empty, so c is outside R and a is inside). Every
                 never-jumped-over hole (a corner) is a one-hole Merson region.
  family         disjoint minimal Merson regions, derived from the board, the start and the finish
                 (`merson_family`): connected regions of at most `max_region` holes, chosen by a
                 small CP-SAT set packing that maximises first the regions full at the start that
                 must be emptied, then the number of regions.

Formulation: models/peg/time_indexed.py plus, per state, the resource count of J. M. Beasley's Merson
regions (Beasley, "The Ins and Outs of Peg Solitaire", 1985, ch. 4; the 18-move proof for the
English central game, 1964). A region R full after step t that is not full in the finish must be
emptied later; the first jump that does so starts in R and starts a new move — unless it is jump
t+1 continuing jump t, which is possible only when jump t landed in R (any later jump that landed
in R would find it full). Distinct regions need distinct new moves (a jump starts in one hole).
So with

  r[t][i] <-> (R_i full after step t+1) AND NOT (jump t ends in R_i)        (t = 0..J-2)
  m[1..t] + sum_i r[t][i] <= K - 1

for `moves <= K` (added with the bound, group "move counting"; the r literals: group "merson
regions"). With the one-corner regions only
this is peg:resource; the larger regions (2x2 blocks of the English board, for example) add the
pegs that no corner count sees. For the finish "one peg anywhere" a region is never full at the end
except a one-hole region holding the last peg, and that is excluded for t <= J-2 as in
peg:resource. Implied by the rules: no solution with at most K moves is cut (tests: with and
without, the same optimum and count on random small boards). Nothing from a native search is fed in.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...core.result import Context, Outcome, Task
from ...puzzles.peg import Board, Hole, PegInstance

from ..formulation import AtMost, Clause
from .time_indexed import Key, TimeModel, build as build_time

Region = frozenset  # of holes
SOURCE = ("time model (peg.time_indexed) + Merson-region resource counts on every state (J. M. Beasley, "
          "The Ins and Outs of Peg Solitaire, 1985)")
MAX_REGION = 4  # largest region enumerated (holes); measured: size 5 adds no region on the boards here


def is_merson(board: Board, region: frozenset[Hole]) -> bool:
    """Every jump line over a hole of `region` starts or ends in `region`."""
    return all(a in region or c in region for a, b, c in board.lines if b in region)


@lru_cache(maxsize=64)
def minimal_regions(board: Board, max_region: int = MAX_REGION) -> tuple[Region, ...]:
    """The connected Merson regions of at most `max_region` holes with no Merson proper subset
    (neighbours: holes one direction step apart), sorted by size then holes."""
    nb: dict[Hole, set[Hole]] = {h: set() for h in range(board.n)}
    for a, b, _ in board.lines:
        nb[a].add(b)
        nb[b].add(a)
    for h, (x, y) in enumerate(board.coords):  # direction neighbours even without a full line
        for dx, dy in board.directions:
            o = board.index.get((x + dx, y + dy))
            if o is not None:
                nb[h].add(o)
                nb[o].add(h)
    seen: set[frozenset] = set()
    frontier = [frozenset({h}) for h in range(board.n)]
    found: list[Region] = []
    for size in range(1, max_region + 1):
        nxt = []
        for r in frontier:
            if r in seen:
                continue
            seen.add(r)
            if is_merson(board, r):
                if not any(m <= r for m in found):
                    found.append(r)
                continue  # a superset of a Merson region is never minimal
            if size < max_region:
                nxt.extend(r | {o} for h in r for o in nb[h] if o not in r)
        frontier = nxt
    return tuple(sorted(found, key=lambda r: (len(r), sorted(r))))


def merson_family(inst: PegInstance, max_region: int = MAX_REGION) -> tuple[Region, ...]:
    """Disjoint minimal Merson regions that can matter for `inst` (not inside a fixed finish),
    chosen to maximise the regions full at the start, then the number of regions (CP-SAT set
    packing, one worker, deterministic)."""
    from ortools.sat.python import cp_model
    fin = inst.finish
    cands = [r for r in minimal_regions(inst.board, max_region) if not (fin is not None and r <= fin)]
    if not cands:
        return ()
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"r{i}") for i in range(len(cands))]
    for h in range(inst.board.n):
        on = [x[i] for i, r in enumerate(cands) if h in r]
        if len(on) > 1:
            m.add_at_most_one(on)
    big = len(cands) + 1
    m.maximize(sum((big if r <= inst.start else 0) * x[i] + x[i] for i, r in enumerate(cands)))
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.random_seed = 0
    st = s.solve(m)
    assert st == cp_model.OPTIMAL, "set packing of Merson regions not solved"
    return tuple(r for i, r in enumerate(cands) if s.value(x[i]))


def maximal_packings(regions) -> tuple[tuple[int, ...], ...]:
    """Every maximal set of pairwise disjoint regions (indices into `regions`, ascending): the
    regions that meet no other one are in all of them; the rest by a plain branching enumeration
    (the boards here have at most a few hundred)."""
    regs = list(regions)
    always = tuple(i for i, r in enumerate(regs) if not any(j != i and r & o for j, o in enumerate(regs)))
    rest = [i for i in range(len(regs)) if i not in always]
    out = []

    def rec(k: int, chosen: tuple[int, ...], used: frozenset) -> None:
        if k == len(rest):
            if all(j in chosen or regs[j] & used for j in rest):
                out.append(tuple(sorted(always + chosen)))
            return
        i = rest[k]
        if not regs[i] & used:
            rec(k + 1, chosen + (i,), used | regs[i])
        rec(k + 1, chosen, used)

    rec(0, (), frozenset())
    return tuple(sorted(out))


def start_count(inst: PegInstance, regions) -> int:
    """Regions full at the start: each needs a move that starts in it (a lower bound on moves)."""
    return sum(1 for r in regions if r <= inst.start)


FAMILIES = ("best", "all")


@dataclass(frozen=True)
class MersonModel(TimeModel):
    """The time model with Merson regions, the disjoint families counted together (`packings`,
    indices into `regions`) and, per step t, the region literals r[t][i]."""

    regions: tuple[Region, ...] = ()
    packings: tuple[tuple[int, ...], ...] = ()
    region_keys: tuple[tuple[Key, ...], ...] = ()  # r[t][i], t = 0..J-2

    def bounds(self, k: int) -> tuple:
        out = [self.bound(k)]
        for t, rs in enumerate(self.region_keys):
            for pk in self.packings:
                if pk:
                    out.append(AtMost(tuple(self.move_vars[:t]) + tuple(rs[i] for i in pk), k - 1))
        return tuple(out)


def add_regions(tm: TimeModel, regions) -> tuple[tuple[Key, ...], ...]:
    """Add the region literals r[t][i] (group 'merson regions') to `tm.f`; their keys per step."""
    f, J = tm.f, tm.horizon
    keys = []
    for t in range(max(J - 1, 0)):
        rs = []
        for i, reg in enumerate(regions):
            r = ("r", t, i)
            full = [("p", t + 1, h) for h in sorted(reg)]
            ends = [("e", t, h) for h in sorted(reg)]
            f.add("merson regions",
                  *(Clause(((r, False), (p, True))) for p in full),
                  *(Clause(((r, False), (e, False))) for e in ends),
                  Clause(((r, True), *((p, False) for p in full), *((e, True) for e in ends))))
            rs.append(r)
        keys.append(tuple(rs))
    return tuple(keys)


def build(inst: PegInstance, invariants: bool = True, max_region: int = MAX_REGION,
          families: str = "best") -> MersonModel:
    """The Merson formulation of `inst` (moves left free; engines add `bounds(k)`): `families`
    'best' counts one disjoint family (`merson_family`), 'all' counts every maximal disjoint
    family of the minimal regions, each in its own constraint."""
    tm = build_time(inst, invariants)
    tm.f.name, tm.f.source = "peg:merson", SOURCE
    if families == "best":
        regions = merson_family(inst, max_region)
        packings = (tuple(range(len(regions))),)
    else:
        fin = inst.finish
        regions = tuple(r for r in minimal_regions(inst.board, max_region)
                        if not (fin is not None and r <= fin))
        packings = maximal_packings(regions)
    keys = add_regions(tm, regions)
    return MersonModel(tm.inst, tm.horizon, tm.f, tm.move_vars, tm.jump_vars, regions, packings, keys)


def _builder(options: dict):
    mr, fam = int(options.get("max_region", MAX_REGION)), options.get("families", "best")
    return lambda inst, invariants: build(inst, invariants, mr, fam)


def validate(inst: PegInstance, options: dict) -> None:
    """Refuse (InputError) a region size below 1, and a SAT encoding that cannot state at-most-K."""
    from ...core.result import InputError
    if int(options["max_region"]) < 1:
        raise InputError(f"option max_region={options['max_region']}: must be at least 1")
    if "encoding" in options:
        from .sat import validate as sat_validate
        sat_validate(inst, options)


def run_cpsat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `cpsat:merson`: cpsat:time's search over this formulation."""
    from .cpsat import run
    return run(inst, task, ctx, builder=_builder(ctx.options), hook="puzzlesat.models.peg.merson:decision")


def run_sat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `sat:merson`: sat:time's search over this formulation."""
    from .sat import run
    return run(inst, task, ctx, builder=_builder(ctx.options))


def decision(inst: PegInstance, task: Task, options: dict, bound: int | None):
    """Formulation hook of cpsat:merson and sat:merson."""
    from .sat import decision as time_decision
    return time_decision(inst, task, options, bound, builder=_builder(options))
