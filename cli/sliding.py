"""`puzzlesat explore`, `puzzlesat sliding-pdb`, `puzzlesat generate sliding`."""
from __future__ import annotations

import json
from pathlib import Path

import click

from ..core.files import write_atomic
from ..core.limits import SLIDING_MAX_WALK
from ..core.result import InputError
from .display import err


def _shape(text: str) -> tuple[int, int]:
    try:
        r, c = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise InputError(f"board '{text}': expected ROWSxCOLS, e.g. 3x3") from None
    if r < 2 or c < 2:
        raise InputError(f"board '{text}': rows and cols must be at least 2")
    return r, c


def _root(text: str, rows: int, cols: int) -> list[int]:
    """The --root board: comma-separated tiles, validated like an instance's start."""
    from ..core.inputs import Source
    from ..puzzles.sliding import from_toml
    try:
        vals = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise InputError(f"--root '{text}': expected comma-separated tile numbers") from None
    from_toml({"rows": rows, "cols": cols, "start": vals}, Source("--root"))  # validates
    return vals


@click.command("explore")
@click.argument("board", default="3x3")
@click.option("--root", default=None, help="comma-separated start of the BFS (default: the goal)")
@click.option("--show", "show_far", default=10, show_default=True, help="farthest positions to print")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def explore(board: str, root: str | None, show_far: int, as_json: bool) -> None:
    """Explore a sliding puzzle's whole state space by BFS (boards up to 12 cells): distance
    histogram, radius and farthest positions. Example: puzzlesat explore 3x3"""
    from ..native_search.sliding.bfs import BFS_MAX_CELLS
    from ..native_search.sliding.bfs import explore as run
    from ..puzzles.sliding import render_board
    rows, cols = _shape(board)
    if rows * cols > BFS_MAX_CELLS:
        raise InputError(f"board '{board}': explore keeps a byte for each of the (rows*cols)! "
                         f"arrangements, so boards of at most {BFS_MAX_CELLS} cells; "
                         f"{rows}x{cols} has {rows * cols}")
    vals = None if root is None else _root(root, rows, cols)
    e = run(rows, cols, vals)
    if as_json:
        click.echo(json.dumps({"rows": rows, "cols": cols, "root": list(e.root), "positions": e.positions,
                               "radius": e.radius, "histogram": list(e.histogram),
                               "farthest": [list(p) for p in e.farthest], "seconds": round(e.seconds, 3)}))
        return
    click.echo(f"{rows}x{cols} from {list(e.root)}: {e.positions} positions, radius {e.radius}, "
               f"{len(e.farthest)} at the radius ({e.seconds:.2f} s)")
    w = len(str(max(e.histogram)))
    for d, k in enumerate(e.histogram):
        click.echo(f"  {d:3d}  {k:{w}d}")
    for p in e.farthest[:show_far]:
        click.echo(f"farthest {list(p)}:\n" + render_board(rows, cols, p))
    if len(e.farthest) > show_far:
        click.echo(f"... and {len(e.farthest) - show_far} more")


@click.command("sliding-pdb")
@click.option("--board", "board", default="4x4", show_default=True, help="board with partitions: 3x3, 4x4, 5x5")
@click.option("--partition", default=None, help="partition name (default: the board's first: 4x4 663, 5x5 6666)")
@click.option("--rebuild", is_flag=True, help="build again even if cached")
@click.option("--dual", is_flag=True, help="also the databases dual lookups read (each pattern minus a tile)")
@click.option("--fill", is_flag=True, help="with --dual: those of dual_fill (the blank's goal tile in its place)")
@click.option("--fill-max", type=click.IntRange(min=0), default=0, show_default=True,
              help="with --fill: those of dual_fill_max (fill patterns of at most this many tiles; 0: all)")
@click.option("--catalogue", default=None,
              help="a zero-aware catalogue instead (1-bit databases; zpdb-small, zpdb-large: 5x5, zpdb-small4: 4x4)")
@click.option("--estimate", is_flag=True, help="with --catalogue: print what the build costs and stop")
def sliding_pdb(board: str, partition: str | None, rebuild: bool, dual: bool, fill: bool,
                fill_max: int, catalogue: str | None, estimate: bool) -> None:
    """Build (or load) a board's additive pattern databases, with a progress bar, and show where
    they are cached. Example: puzzlesat sliding-pdb --board 5x5 --dual;
    puzzlesat sliding-pdb --catalogue zpdb-small (zero-aware, an estimate first)"""
    if catalogue is not None:
        return _zpdb_catalogue(catalogue, rebuild, estimate)
    from ..native_search.sliding import pattern_db as P
    rows, cols = _shape(board)
    names = P.partitions(rows, cols)
    if not names:
        raise InputError(f"board '{board}': no pattern-database partition (boards with one: 3x3, 4x4, 5x5)")
    name = partition or names[0]
    for part in name.split("+"):
        if part not in names:
            raise InputError(f"partition '{part}' is not defined for {rows}x{cols} (there: {', '.join(names)})")
    from ..native_search.sliding.dida import needed_keys
    parts = [P.PARTITIONS[(rows, cols)][x] for x in name.split("+")]
    from ..native_search.sliding.engines import fill_of
    keys = needed_keys(rows, cols, parts, rows * cols - 1, True, dual,
                       fill_of({"dual_fill": fill, "dual_fill_max": fill_max}))
    _build_with_bar(keys, P.database, P.path, rebuild, "pattern database", "cells",
                    f"pattern databases {rows}x{cols} {name}")


def _build_with_bar(keys: list, database, path_of, rebuild: bool, what: str, cells: str, title: str) -> None:
    """Build or read each database of `keys` by `database(key, progress, rebuild=, info=)` with a
    progress bar per database, then list them (file, entries, size, built or read)."""
    import time

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    info: dict = {}
    t0 = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[what]}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        tasks = [bar.add_task(f"{what} {i + 1}/{len(keys)} {cells} {','.join(map(str, k.cells))}",
                              total=k.entries, what="") for i, k in enumerate(keys)]
        for i, k in enumerate(keys):
            def prog(level, states, _t=tasks[i], _n=k.entries, **total):  # placements= or entries=
                bar.update(_t, completed=min(states, _n), what=f"level {level}, {states:,} states")
            database(k, prog, rebuild=rebuild, info=info)
            bar.update(tasks[i], completed=k.entries)
    total = 0
    click.echo(f"{title} ({time.perf_counter() - t0:.1f} s):")
    for k in keys:
        i = info[k.filename()]
        total += i["bytes"]
        how = f"built in {i['build_seconds']:.1f} s" if i["source"] == "built" else "read from the cache"
        click.echo(f"  {path_of(k)}: {i['entries']:,} entries, {i['bytes'] / 1e6:.1f} MB, {how}")
    click.echo(f"  total {total / 1e6:.1f} MB")


def _zpdb_catalogue(name: str, rebuild: bool, only_estimate: bool) -> None:
    """`sliding-pdb --catalogue NAME`: the estimate, then each missing database built with a
    progress bar (a killed build resumes at the first missing database), then the summary."""
    from ..native_search.sliding import zpdb as Z
    if name not in Z.CATALOGUES:
        raise InputError(f"catalogue '{name}': no such zero-aware catalogue (there: {', '.join(Z.CATALOGUES)})")
    rows, cols, parts = Z.CATALOGUES[name]
    keys = Z.catalogue_keys(name)
    est = Z.estimate(keys, rebuild)
    click.echo(f"zero-aware catalogue {name} ({rows}x{cols}): {len(parts)} partitions, {len(keys)} "
               f"databases of {', '.join(sorted({str(k.k) for k in keys}))} tiles, "
               f"{sum(k.nbytes for k in keys) / 1e6:.1f} MB at 1 bit per entry, in {Z.cache_dir()}")
    if est["missing"]:
        click.echo(f"to build: {len(est['missing'])} databases, {est['entries']:,} entries, "
                   f"{est['disk_bytes'] / 1e6:.1f} MB on disk, peak memory about "
                   f"{est['peak_bytes'] / 1e6:.0f} MB (one byte per entry while one is built), "
                   f"about {est['seconds'] / 60:.1f} min of CPU (from {est['rate_source']}; the wall time "
                   "grows with the machine's load)")
    else:
        click.echo("every database is in the cache")
    if only_estimate:
        return
    _build_with_bar(keys, Z.database, Z.path, rebuild, "zero-aware database", "tiles",
                    f"zero-aware databases {name}")


@click.command("sliding")
@click.option("--rows", "-r", type=click.IntRange(2, 6), default=4, show_default=True)
@click.option("--cols", "-c", type=click.IntRange(2, 6), default=4, show_default=True)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="random seed")
@click.option("--walk", type=click.IntRange(0, SLIDING_MAX_WALK), default=None,
              help="a random walk of this many moves from the goal (default: uniform over "
                   "solvable; a walk of millions of moves is as mixed as that already)")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write to FILE instead of stdout")
def generate(rows, cols, seed, walk, output):
    """A random solvable sliding-tile position as TOML (same arguments, same position)."""
    from ..puzzles.sliding import generate as gen
    from ..puzzles.sliding import to_toml
    text = to_toml(gen(rows, cols, seed, walk))
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text, "instance")  # a missing folder: one line, exit 2
