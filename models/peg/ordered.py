"""Peg solitaire, peg:merson plus an order on commuting jumps (formulation `peg:ordered`).

Vocabulary:
  commuting pair  jumps A (step t) and B (step t+1) on disjoint holes: either order is legal and
                  gives the same position.
  swappable       a commuting pair where jump t starts a new move (t = 0 or m[t]) and jump t+2
                  starts a new move (t+2 = J or m[t+2]); B never continues A (disjoint holes).
                  Swapping such a pair never adds a move: A and B stay new moves, the jump before
                  them can only gain B as a continuation, the jump after them started a new move.

Formulation: models/peg/merson.py plus the symmetry-breaking clauses (group "commuting order")

  j[t][A] AND m[t] AND m[t+2]  ->  OR { j[t+1][B] : B >= A or B shares a hole with A }

i.e. a swappable pair is taken in increasing line order. Valid for minimisation and for every
decision `moves <= K`: swapping a violating pair gives a lexicographically smaller jump sequence
with no more moves, so the lexicographically least sequence with at most K moves satisfies every
clause (with a fixed first jump, step 0 is left alone). Not valid for counting: it keeps one
representative of each class of sequences equal up to such swaps. So the engines find the optimum
with the ordering and count over peg:merson (no ordering), and the formulation hook hands out
peg:merson for the count task.

Symmetric prefix (option `prefix`, default 2): where symmetries of the board keep the start and
the finish (`stabiliser`), every legal prefix of `prefix` jumps that is not the least of its orbit
is forbidden (group "symmetric prefix"). The lexicographically least solution with at most K moves
is the least of its own orbit, so its prefix is kept: valid for the decisions too, and together
with the commuting order. Cube-and-conquer (models/peg/cubes.py) sets it to the cube depth, so the
canonical prefixes cover every solution of the CNF. Source: partial-order reduction of planning (commutative
operators, e.g. Rintanen's ∀-step semantics / Wehrle & Helmert's symmetry-breaking clauses), applied
to peg's move count.
"""
from __future__ import annotations

from ...core.result import Context, Outcome, Task
from ...puzzles.peg import PegInstance

from ..formulation import Clause
from .merson import MAX_REGION, MersonModel, build as build_merson

SOURCE = ("peg:merson + commuting consecutive jumps in increasing line order (partial-order "
          "reduction; valid for minimum moves, not for counts)")


def stabiliser(inst: PegInstance) -> tuple[tuple[int, ...], ...]:
    """The board symmetries (hole permutations) that map the start and the finish onto themselves
    and keep a required first jump (identity first)."""
    out = []
    for s in inst.board.symmetries:
        if frozenset(s[h] for h in inst.start) != inst.start:
            continue
        if inst.finish is not None and frozenset(s[h] for h in inst.finish) != inst.finish:
            continue
        if inst.first_jump is not None and tuple(s[h] for h in inst.first_jump) != inst.first_jump:
            continue
        out.append(s)
    return tuple(out)


def noncanonical_prefixes(inst: PegInstance, length: int) -> list[tuple[int, ...]]:
    """The legal jump-line prefixes of `length` jumps from the start that are not the least of their
    orbit under `stabiliser(inst)` (each is the image of a least one, by a symmetry that keeps the
    start, the finish and the move count)."""
    lines = inst.board.lines
    index = {l: i for i, l in enumerate(lines)}
    group = stabiliser(inst)[1:]
    if not group or length == 0:
        return []
    perm = [tuple(index[(s[a], s[b], s[c])] for a, b, c in lines) for s in group]
    out: list[tuple[int, ...]] = []

    def rec(pegs: frozenset, prefix: tuple[int, ...]) -> None:
        if len(prefix) == length:
            if any(tuple(p[i] for i in prefix) < prefix for p in perm):
                out.append(prefix)
            return
        for i, (a, b, c) in enumerate(lines):
            if a in pegs and b in pegs and c not in pegs:
                if not prefix and inst.first_jump is not None and (a, c) != inst.first_jump:
                    continue
                rec(pegs - {a, b} | {c}, prefix + (i,))

    rec(inst.start, ())
    return out


PREFIX = 2  # jumps whose order under the symmetries is fixed (then the commuting order from there)


def add_order(m: MersonModel, prefix: int = PREFIX) -> None:
    """Add the symmetry clauses on the first `prefix` jumps (group 'symmetric prefix': every legal
    prefix of that length that is not the least of its orbit is forbidden; 0: none) and the
    commuting-order clauses after them (group 'commuting order') to `m.f`."""
    inst, f, J = m.inst, m.f, m.horizon
    lines = inst.board.lines
    allowed = [tuple(B for B, lb in enumerate(lines) if B >= A or set(lb) & set(la))
               for A, la in enumerate(lines)]
    first = 1 if inst.first_jump is not None else 0
    length = min(prefix, J)
    if stabiliser(inst)[1:] and length:
        # both hold for the lexicographically least solution (module docstring), so they may
        # overlap; the commuting order starts where it always did, after at most PREFIX jumps
        first = max(first, min(length, PREFIX))
        f.add("symmetric prefix", *(Clause(tuple((("j", t, l), False) for t, l in enumerate(p)))
                                    for p in noncanonical_prefixes(inst, length)))
        f.mark("symmetric prefix", "symmetry breaking")
    for t in range(first, J - 1):
        for A in range(len(lines)):
            if len(allowed[A]) == len(lines):
                continue  # every successor is allowed
            lits = [(("j", t, A), False)]
            if t >= 1:
                lits.append((("m", t), False))
            if t + 2 < J:
                lits.append((("m", t + 2), False))
            f.add("commuting order", Clause((*lits, *((("j", t + 1, B), True) for B in allowed[A]))))
    if "commuting order" in f.groups:
        f.mark("commuting order", "symmetry breaking")


def build(inst: PegInstance, invariants: bool = True, max_region: int = MAX_REGION,
          families: str = "best", prefix: int = PREFIX) -> MersonModel:
    """The ordered formulation of `inst` (moves left free; engines add `bounds(k)`); `prefix`:
    the jumps whose order under the instance's symmetries is fixed."""
    m = build_merson(inst, invariants, max_region, families)
    m.f.name, m.f.source = "peg:ordered", SOURCE
    add_order(m, prefix)
    return m


def _builders(options: dict):
    mr, fam = int(options.get("max_region", MAX_REGION)), options.get("families", "best")
    pre = int(options.get("prefix", PREFIX))
    return (lambda inst, inv: build(inst, inv, mr, fam, pre)), (lambda inst, inv: build_merson(inst, inv, mr, fam))


def run_cpsat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `cpsat:ordered`: the optimum over this formulation, counts over peg:merson."""
    from .cpsat import run
    b, cb = _builders(ctx.options)
    hook = "puzzlesat.models.peg." + ("merson" if task is Task.COUNT else "ordered") + ":decision"
    return run(inst, task, ctx, builder=b, count_builder=cb, hook=hook)


def run_sat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `sat:ordered`: the optimum over this formulation, counts over peg:merson."""
    from .sat import run
    b, cb = _builders(ctx.options)
    return run(inst, task, ctx, builder=b, count_builder=cb)


def decision(inst: PegInstance, task: Task, options: dict, bound: int | None):
    """Formulation hook of cpsat:ordered and sat:ordered (task count: peg:merson, unordered)."""
    from .sat import decision as time_decision
    b, cb = _builders(options)
    return time_decision(inst, task, options, bound, builder=cb if task is Task.COUNT else b)
