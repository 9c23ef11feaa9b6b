"""`puzzlesat generate maze`: a random calculation maze."""
from __future__ import annotations

from pathlib import Path

import click

from ..core.files import write_atomic


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
    from ..puzzles import maze as M
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
