"""Calculation-maze engines, and the `puzzlesat generate maze` command."""
from pathlib import Path

import click

from puzzlesat.puzzles.core import Task, write_atomic

from ..registry import CPSAT_OPTIONS, Engine, Family, Option

TASKS = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)


def _cpsat_options(**defaults) -> tuple[Option, ...]:
    """CPSAT_OPTIONS with some defaults changed (measured per formulation)."""
    return tuple(Option(o.name, defaults[o.name], o.help + f" (here {defaults[o.name]}: measured best)",
                        o.choices) if o.name in defaults else o for o in CPSAT_OPTIONS)

FAMILY = Family(
    name="maze",
    module="puzzlesat.puzzles.maze",
    description="calculation maze (Paper Challeran): the highest score of a trail from start to goal",
    tasks=TASKS,
    default_engines=("native", "cpsat:segments"),
    extra={"generate": "puzzlesat.compare.engines.maze:generate"},
    engines=(
        Engine("native:dfs", "puzzlesat.native_search.maze:run_dfs", TASKS, aliases=("native",),
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
        Engine("native:brute", "puzzlesat.native_search.maze:run_brute", TASKS,
               options=(Option("max_trails", 10_000_000, "give up (FEASIBLE/UNKNOWN) after this many trails"),),
               description="every trail to the goal, no pruning (an oracle for tiny grids)"),
        Engine("cpsat:time", "puzzlesat.models.maze_time:run_time", TASKS, aliases=("cpsat",),
               options=(*CPSAT_OPTIONS,
                        Option("steps", 0, "maximum trail length in edges (0: every unused edge)")),
               description="time-indexed edge choice x[t][e], score s[t] = m*s[t-1] + c under the literal",
               formulation="puzzlesat.models.maze_time:hook"),
        Engine("cpsat:segments", "puzzlesat.models.maze_segments:run_segments", TASKS,
               options=(*_cpsat_options(linearization_level=2),
                        Option("segments", 0, "maximum segments (0: one more than the unused multipliers)")),
               description="multiplications split the trail into connected add-segments; order-free inside",
               formulation="puzzlesat.models.maze_segments:hook"),
    ),
)


@click.command("maze")
@click.option("--rows", "-r", type=click.IntRange(1, 64), required=True, help="intersections per column (H)")
@click.option("--cols", "-c", type=click.IntRange(1, 64), required=True, help="intersections per row (W)")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="random seed")
@click.option("--start", type=int, default=None, help="start node id (default 0, the top left)")
@click.option("--goal", type=int, default=None, help="goal node id (default the bottom right)")
@click.option("--mul-rate", type=click.FloatRange(0, 1), default=0.08, show_default=True,
              help="share of *2 / *3 edges")
@click.option("--sub-rate", type=click.FloatRange(0, 1), default=0.2, show_default=True,
              help="share of -k edges")
@click.option("--format", "fmt", type=click.Choice(["txt", "toml"]), default="txt", show_default=True,
              help="reference text format or TOML")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write to FILE instead of stdout")
def generate(rows, cols, seed, start, goal, mul_rate, sub_rate, fmt, output):
    """A random calculation maze (same arguments, same maze)."""
    from puzzlesat.puzzles import maze as M
    n = rows * cols
    for what, v in (("start", start), ("goal", goal)):
        if v is not None and not 0 <= v < n:
            raise click.BadParameter(f"node {v} is off the {rows}x{cols} grid (ids 0..{n - 1})",
                                     param_hint=f"--{what}")
    m = M.generate(rows, cols, seed, start=start, goal=goal, mul_rate=mul_rate, sub_rate=sub_rate)
    text = M.to_text(m) if fmt == "txt" else M.to_toml(m)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text, "instance")  # a missing folder: one line, exit 2
        click.echo(f"wrote {output}", err=True)
