"""Calculation-maze engines (the built-in table): native DFS and brute force, two CP-SAT models."""
from __future__ import annotations

from ..core.family import Engine, Family, Option
from ..core.result import Task
from .options import CPSAT_OPTIONS

TASKS = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)


def _cpsat_options(**defaults) -> tuple[Option, ...]:
    """CPSAT_OPTIONS with some defaults changed (measured per formulation)."""
    return tuple(Option(o.name, defaults[o.name], o.help + f" (here {defaults[o.name]}: measured best)",
                        o.choices) if o.name in defaults else o for o in CPSAT_OPTIONS)

FAMILY = Family(
    name="maze",
    puzzle="puzzlesat.puzzles.maze",
    description="calculation maze (Paper Challeran): the highest score of a trail from start to goal",
    tasks=TASKS,
    default_engines=("native", "cpsat:segments"),
    generate="puzzlesat.cli.maze:generate",
    engines=(
        Engine("native:dfs", "puzzlesat.native_search.maze.search:run_dfs", TASKS, aliases=("native",),
               options=(
                   Option("tt_bits", 20, "dominance table of 2^tt_bits states (vertex, used edges); 0: off"),
                   Option("refine", True, "bound over live edges (dead-end peeling) minus a parity loss"),
                   Option("two_step", True, "refined bound and table only on the goal's colour (every 2nd edge)"),
                   Option("probe", True, "search first with high lower bounds, lowered until one succeeds"),
                   Option("growth", 2.0, "factor by which the probes' gap below the upper bound grows"),
                   Option("warm", 300_000, "vertices of plain branch and bound before the probes"),
                   Option("chunk", 2_000_000, "vertices per kernel call (progress and time-limit checks)"),
               ),
               description="trail DFS: dead-vertex rule, goal stop, corrected op bound, dominance table"),
        Engine("native:brute", "puzzlesat.native_search.maze.search:run_brute", TASKS,
               options=(Option("max_trails", 10_000_000, "give up (FEASIBLE/UNKNOWN) after this many trails"),),
               description="every trail to the goal, no pruning (an oracle for tiny grids)"),
        Engine("cpsat:time", "puzzlesat.models.maze.time_indexed:run_time", TASKS, aliases=("cpsat",),
               options=(*CPSAT_OPTIONS,
                        Option("steps", 0, "maximum trail length in edges (0: every unused edge)")),
               description="time-indexed edge choice x[t][e], score s[t] = m*s[t-1] + c under the literal",
               formulation="puzzlesat.models.maze.time_indexed:hook"),
        Engine("cpsat:segments", "puzzlesat.models.maze.segments:run_segments", TASKS,
               options=(*_cpsat_options(linearization_level=2),
                        Option("segments", 0, "maximum segments (0: one more than the unused multipliers)")),
               description="multiplications split the trail into connected add-segments; order-free inside",
               formulation="puzzlesat.models.maze.segments:hook"),
    ),
)
