"""Calculation maze, time-indexed trail formulation (engine cpsat:time).

Source: the classic time-expanded path model (one arc per step, position one-hot per step),
with the score as a state variable updated by an enforced linear equality per arc; puzzlesat's
first maze model (issue 5).

Step t either walks one directed arc a (x[t][a]) or the walk has stopped (inactive steps are a
suffix); pos[t][v] is the one-hot position, each edge is used at most once over all steps, and
s[t+1] = m_e * s[t] + c_e under x[t][a] (s[t+1] = s[t] once stopped). Maximise s[T] with
pos[T] = goal. Counting enumerates projected on the arcs: pos, act and s follow from them.
"""
from __future__ import annotations

from typing import Callable

from ortools.sat.python import cp_model

from puzzlesat.puzzles.core import Context, Outcome, Task
from puzzlesat.puzzles.maze import Maze, Walk

from .maze_common import affine, free_part, limited, run

FORMULATION = "time-indexed trail: x[t][arc], pos[t][v], s[t+1] = m*s[t] + c under x[t][arc]"


class TimeModel:
    """The time-indexed formulation (see the module docstring); `steps` <= 0: every free edge."""

    unique_aux = True  # pos, act and s follow from the arcs: CP-SAT's enumeration is exact

    def __init__(self, m: Maze, steps: int = 0):
        fp = free_part(m)
        self.maze = m
        self.model = md = cp_model.CpModel()
        edges = m.edges
        n = m.nodes
        T = len(fp.edges) if steps <= 0 else min(steps, len(fp.edges))
        self.T = T
        self.arcs = [(a, b, e) for e in fp.edges for a, b in (edges[e], edges[e][::-1])]
        self.pos = [[md.new_bool_var(f"pos[{t}][{v}]") for v in range(n)] for t in range(T + 1)]
        self.x = [[md.new_bool_var(f"x[{t}][{i}]") for i in range(len(self.arcs))] for t in range(T)]
        self.act = [md.new_bool_var(f"act[{t}]") for t in range(T)]
        self.s = [md.new_int_var(fp.low, fp.high, f"s[{t}]") for t in range(T + 1)]
        md.add(self.pos[0][fp.v0] == 1)
        md.add(self.s[0] == fp.s0)
        for t in range(T + 1):
            md.add_exactly_one(self.pos[t])
        md.add(self.pos[T][m.goal] == 1)
        out = {v: [] for v in range(n)}
        for i, (a, b, e) in enumerate(self.arcs):
            out[a].append(i)
        for t in range(T):
            md.add(sum(self.x[t]) == self.act[t])
            if t > 0:
                md.add_implication(self.act[t], self.act[t - 1])
            for v in range(n):
                # leaving v at step t needs being at v; being at v and active means leaving v
                md.add(sum(self.x[t][i] for i in out[v]) >= self.pos[t][v] + self.act[t] - 1)
                md.add(self.pos[t + 1][v] == self.pos[t][v]).only_enforce_if(~self.act[t])
            for i, (a, b, e) in enumerate(self.arcs):
                md.add_implication(self.x[t][i], self.pos[t][a])
                md.add_implication(self.x[t][i], self.pos[t + 1][b])
                mul, c = affine(m.ops[e])
                md.add(self.s[t + 1] == mul * self.s[t] + c).only_enforce_if(self.x[t][i])
            md.add(self.s[t + 1] == self.s[t]).only_enforce_if(~self.act[t])
        by_edge = {e: [] for e in fp.edges}
        for i, (a, b, e) in enumerate(self.arcs):
            by_edge[e].append(i)
        for e, idx in by_edge.items():
            md.add(sum(self.x[t][i] for t in range(T) for i in idx) <= 1)
        self.objective = self.s[T]

    def projection(self) -> list:
        return [x for row in self.x for x in row]

    def walks(self, value: Callable) -> list[Walk]:
        return [self.decode(value)]

    def decode(self, value: Callable) -> Walk:
        walk = list(self.maze.walked)
        for t in range(self.T):
            for i, (a, b, e) in enumerate(self.arcs):
                if value(self.x[t][i]):
                    walk.append(b)
        return tuple(walk)


def run_time(m: Maze, task: Task, ctx: Context) -> Outcome:
    """Engine cpsat:time. A step limit below the number of free edges can only give FEASIBLE."""
    steps = ctx.options["steps"]
    out = run(TimeModel, m, task, ctx, steps=steps)
    return limited(out, 0 < steps < len(free_part(m).edges))
