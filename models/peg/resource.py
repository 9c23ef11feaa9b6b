"""Peg solitaire, the time model plus corner-resource constraints (formulation `peg:resource`).

Formulation: models/peg/time_indexed.py (one jump per step, new-move literals m[t]) plus a redundant
resource count derived from the board, the corner lower bound stated on every state:
a peg on a never-jumped-over hole C (not kept by the finish) can only leave by jumping, and the
jump that takes it out starts a new move, unless that peg is the one that has just landed there.
So after step t the pegs on C, less the one jump t put there, each need their own new-move
literal at a later step:

  q[t][h] <-> p[t+1][h] AND NOT e[t][h]                       (h in C, t = 0..J-2)
  sum_{t' <= t} m[t'] + sum_{h in C} q[t][h] <= K - 1

given `moves <= K` (group "corner resource", added with the bound, as at-most-K constraints so that
both backends take it). With the finish "one peg anywhere" no slack is needed either: a corner peg
present after step t <= J-2 that never left would survive beside the peg the last jump lands. Implied by the rules: no solution with at most K moves is cut (tests:
with and without, the same optimum and count on random small boards). Source: the corner bound
used by native:iddfs, as a per-state resource constraint in the manner of planning
"resource" invariants; no native search result is fed in.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core.result import Context, Outcome, Task
from ...puzzles.peg import PegInstance

from ..formulation import AtMost, Clause
from .time_indexed import Key, TimeModel, build as build_time

SOURCE = "time model (peg.time_indexed) + the corner lower bound as a per-state resource count"


@dataclass(frozen=True)
class ResourceModel(TimeModel):
    """The time model with, per step t, the corner-peg literals q[t][·] (for the resource count)."""

    corner_keys: tuple[tuple[Key, ...], ...] = ()  # q[t][h] for h in C, t = 0..J-2

    def bounds(self, k: int) -> tuple:
        out = [self.bound(k)]
        for t, qs in enumerate(self.corner_keys):
            if qs:
                out.append(AtMost(tuple(self.move_vars[:t]) + qs, k - 1))
        return tuple(out)


def build(inst: PegInstance, invariants: bool = True) -> ResourceModel:
    """The resource formulation of `inst` (moves left free; engines add `bounds(k)`)."""
    tm = build_time(inst, invariants)
    f = tm.f
    f.name, f.source = "peg:resource", SOURCE
    corners = sorted(inst.board.corners - (inst.finish or frozenset()))
    J = tm.horizon
    keys = []
    for t in range(max(J - 1, 0)):
        qs = []
        for h in corners:
            q, p, e = ("q", t, h), ("p", t + 1, h), ("e", t, h)
            f.add("corner resource", Clause(((q, False), (p, True))), Clause(((q, False), (e, False))),
                  Clause(((q, True), (p, False), (e, True))))
            qs.append(q)
        keys.append(tuple(qs))
    # move_vars = m[1..J-1]: m[1..t] are the first t of them
    return ResourceModel(tm.inst, tm.horizon, f, tm.move_vars, tm.jump_vars, tuple(keys))


def run_cpsat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `cpsat:resource`: cpsat:time's search over this formulation."""
    from .cpsat import run
    return run(inst, task, ctx, builder=build, hook="puzzlesat.models.peg.resource:decision")


def run_sat(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `sat:resource`: sat:time's search over this formulation."""
    from .sat import run
    return run(inst, task, ctx, builder=build)


def decision(inst: PegInstance, task: Task, options: dict, bound: int | None):
    """Formulation hook of cpsat:resource and sat:resource."""
    from .sat import decision as time_decision
    return time_decision(inst, task, options, bound, builder=build)
