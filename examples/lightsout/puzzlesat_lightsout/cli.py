"""`puzzlesat generate lightsout`: a random Lights Out board as TOML."""
from __future__ import annotations

from pathlib import Path

import click

from puzzlesat import InputError

from .puzzle import MAX_SIDE, generate as gen, to_toml


@click.command("lightsout")
@click.option("--rows", "-r", type=click.IntRange(1, MAX_SIDE), default=5, show_default=True)
@click.option("--cols", "-c", type=click.IntRange(1, MAX_SIDE), default=5, show_default=True)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="random seed")
@click.option("--how", type=click.Choice(["uniform", "pressed"]), default="uniform", show_default=True,
              help="uniform: each light on with probability 1/2 (may be unsolvable); pressed: each "
                   "cell pressed with probability 1/2 from the dark board (solvable)")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write to FILE instead of stdout")
def generate(rows, cols, seed, how, output):
    """A random Lights Out board as TOML (same arguments, same board)."""
    text = to_toml(gen(rows, cols, seed, how))
    if output is None:
        click.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot write ({e.strerror})", file=output) from None
