"""Calculation maze, time-indexed trail formulation (engine cpsat:time).

Source: the classic time-expanded path model (one arc per step, position one-hot per step),
with the score as a state variable updated by an enforced linear equality per arc; puzzlesat's
first maze model.

Step t either walks one directed arc a (x[t][a]) or the walk has stopped (inactive steps are a
suffix); pos[t][v] is the one-hot position, each edge is used at most once over all steps, and
s[t+1] = m_e * s[t] + c_e under x[t][a] (s[t+1] = s[t] once stopped). Maximise s[T] with
pos[T] = goal. Counting enumerates projected on the arcs: pos, act and s follow from them.
"""
from __future__ import annotations

import time
from typing import Callable

from ...core.result import Context, Outcome, Task
from ...puzzles.maze import Maze, Walk

from ..formulation import AtMostOne, Clause, ExactlyOne, Formulation, Linear, to_cpsat
from .common import affine, decision, free_part, limited, run

SOURCE = ("time-indexed trail (classic time-expanded path model; puzzlesat's first maze model): "
          "x[t][arc], pos[t][v], s[t+1] = m*s[t] + c under x[t][arc]")


def formulation(m: Maze, steps: int = 0) -> Formulation:
    """The time-indexed formulation as data (constraint groups by name, variables by key):
    ('pos', t, v), ('x', t, arc), ('act', t) Booleans and ('s', t) integer scores."""
    t0 = time.perf_counter()
    fp = free_part(m)
    f = Formulation("maze:time", SOURCE)
    edges = m.edges
    n = m.nodes
    T = len(fp.edges) if steps <= 0 else min(steps, len(fp.edges))
    arcs = [(a, b, e) for e in fp.edges for a, b in (edges[e], edges[e][::-1])]
    pos = lambda t, v: ("pos", t, v)  # noqa: E731
    x = lambda t, i: ("x", t, i)  # noqa: E731
    act = lambda t: ("act", t)  # noqa: E731
    for t in range(T + 1):
        f.int_var(("s", t), fp.low, fp.high)
    f.add("start", Clause(((pos(0, fp.v0), True),)), Linear(((1, ("s", 0)),), fp.s0, fp.s0))
    f.add("one position per step", *(ExactlyOne(tuple(pos(t, v) for v in range(n))) for t in range(T + 1)))
    f.add("goal", Clause(((pos(T, m.goal), True),)))
    out = {v: [] for v in range(n)}
    for i, (a, _, _) in enumerate(arcs):
        out[a].append(i)
    for t in range(T):
        f.add("one arc per active step",
              Linear(tuple((1, x(t, i)) for i in range(len(arcs))) + ((-1, act(t)),), 0, 0))
        if t > 0:
            f.add("stopped steps are a suffix", Clause(((act(t), False), (act(t - 1), True))))
        for v in range(n):
            # leaving v at step t needs being at v; being at v and active means leaving v
            f.add("active at v: leave v",
                  Linear(tuple((1, x(t, i)) for i in out[v]) + ((-1, pos(t, v)), (-1, act(t))),
                         -1, len(out[v])))
            f.add("stopped: stay", Linear(((1, pos(t + 1, v)), (-1, pos(t, v))), 0, 0,
                                          ((act(t), False),)))
        for i, (a, b, e) in enumerate(arcs):
            f.add("arc from here to there", Clause(((x(t, i), False), (pos(t, a), True))),
                  Clause(((x(t, i), False), (pos(t + 1, b), True))))
            mul, c = affine(m.ops[e])
            f.add("score step", Linear(((1, ("s", t + 1)), (-mul, ("s", t))), c, c, ((x(t, i), True),)))
        f.add("stopped: score stays", Linear(((1, ("s", t + 1)), (-1, ("s", t))), 0, 0,
                                             ((act(t), False),)))
    by_edge = {e: [] for e in fp.edges}
    for i, (_, _, e) in enumerate(arcs):
        by_edge[e].append(i)
    f.add("each edge once", *(AtMostOne(tuple(x(t, i) for t in range(T) for i in idx))
                               for idx in by_edge.values()))
    f.projection = tuple(x(t, i) for t in range(T) for i in range(len(arcs)))
    f.objective = ("max", ((1, ("s", T)),))
    f.build_seconds = time.perf_counter() - t0
    return f


class TimeModel:
    """The time-indexed formulation compiled to CP-SAT; `steps` <= 0: every free edge."""

    unique_aux = True  # pos, act and s follow from the arcs: CP-SAT's enumeration is exact

    def __init__(self, m: Maze, steps: int = 0):
        self.maze = m
        self.formulation = f = formulation(m, steps)
        self.cp = cp = to_cpsat(f)
        self.model = cp.model
        fp = free_part(m)
        edges = m.edges
        self.T = T = len(fp.edges) if steps <= 0 else min(steps, len(fp.edges))
        self.arcs = [(a, b, e) for e in fp.edges for a, b in (edges[e], edges[e][::-1])]
        self.x = [[cp.var(("x", t, i)) for i in range(len(self.arcs))] for t in range(T)]
        self.objective = cp.var(("s", T))

    def projection(self) -> list:
        return [x for row in self.x for x in row]

    def walks(self, value: Callable) -> list[Walk]:
        return [self.decode(value)]

    def decode(self, value: Callable) -> Walk:
        walk = list(self.maze.walked)
        for t in range(self.T):
            for i, (_, b, _) in enumerate(self.arcs):
                if value(self.x[t][i]):
                    walk.append(b)
        return tuple(walk)


def hook(m: Maze, task: Task, options: dict, bound: int | None):
    """Formulation hook of cpsat:time (export, stats, puzzlesat.model): score >= bound."""
    f = formulation(m, options["steps"])
    fp = free_part(m)
    T = len(fp.edges) if options["steps"] <= 0 else min(options["steps"], len(fp.edges))
    arcs = [(a, b, e) for e in fp.edges for a, b in (m.edges[e], m.edges[e][::-1])]

    def decode(true: set) -> Walk:
        steps = sorted((k[1], k[2]) for k in true if k[0] == "x")
        return tuple(m.walked) + tuple(arcs[i][1] for _, i in steps)

    return decision(f, ("s", T), decode, m, bound, complete=T == len(fp.edges))


def run_time(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:time. A step limit below the number of free edges can only give FEASIBLE."""
    steps = ctx.options["steps"]
    out = run(TimeModel, m, task, ctx, steps=steps)
    return limited(out, 0 < steps < len(free_part(m).edges))
