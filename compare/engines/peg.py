"""Peg solitaire engines; plus the `peg problems` command (every single-vacancy problem of a board)."""
from __future__ import annotations

import json
import time

import click

from puzzlesat.puzzles.core import InputError, Status, Task

from ..registry import CPSAT_OPTIONS, SAT_OPTIONS, Engine, Family, Option

ALL = (Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE)
INVARIANTS = Option("invariants", True, "add the board's GF(2) position-class parities on every "
                    "intermediate state (redundant, prunes)")

DESCEND = Option("strategy", "descend", "descend: decision calls moves<=K below the best (the resource "
                 "counts need K: descend only)", ("descend",))
MERSON_OPTIONS = (
    Option("families", "all", "Merson-region families counted: all = every maximal disjoint family "
           "of the minimal regions, one constraint each; best = one family (most regions full at "
           "the start)", ("all", "best")),
    Option("max_region", 4, "largest Merson region enumerated (holes)"),
)

FAMILY = Family(
    name="peg",
    module="puzzlesat.puzzles.peg",
    description="peg solitaire: minimum moves (a multi-jump is one move), optimal sequence counts",
    engines=(
        Engine("native:iddfs", "puzzlesat.native_search.peg:run", ALL,
               description="iterative deepening on moves, corner lower bound, failed-state table"),
        Engine("native:bfs", "puzzlesat.native_search.peg_bfs:run", (Task.OPTIMIZE, Task.FEASIBLE),
               options=(
                   Option("exhaust", False, "one-sided BFS to the end (see direction); reports the "
                          "layer sizes up to symmetry (stats `layers`) and their total", flag=True),
                   Option("direction", "forward", "with exhaust: forward = every position reachable "
                          "from the start, by moves; backward = every position that can reach the "
                          "finish, by the moves it needs", ("forward", "backward"), flag=True),
                   Option("symmetry", True, "reduce positions by the board's symmetry group"),
                   Option("bidirectional", True, "grow forward and backward layers, the smaller side first"),
               ),
               description="breadth-first search by moves over symmetry-reduced bitboard layers"),
        Engine("native:auto", "puzzlesat.native_search.peg:run_auto", ALL, aliases=("native",),
               description="native:bfs for optimize/feasible, native:iddfs for count (by measurement: "
                           "iddfs does not finish the English central game)"),
        Engine("cpsat:time", "puzzlesat.models.peg_cpsat:run", ALL, aliases=("cpsat",),
               options=(*CPSAT_OPTIONS, INVARIANTS,
                        Option("strategy", "descend", "descend: decision calls moves<=K below the best; "
                               "minimize: CP-SAT's objective", ("descend", "minimize"))),
               description="time-indexed peg states, one jump per step, clause-style move counting",
               formulation="puzzlesat.models.peg_sat:decision"),
        Engine("sat:time", "puzzlesat.models.peg_sat:run", ALL, aliases=("sat",), options=(*SAT_OPTIONS, INVARIANTS),
               validate="puzzlesat.models.peg_sat:validate",
               description="the same time-indexed model as CNF; moves<=K by a cardinality encoding",
               formulation="puzzlesat.models.peg_sat:decision"),
        Engine("cpsat:resource", "puzzlesat.models.peg_resource:run_cpsat", ALL,
               options=(*CPSAT_OPTIONS, INVARIANTS,
                        Option("strategy", "descend", "descend: decision calls moves<=K below the best; "
                               "minimize: CP-SAT's objective (the resource count needs K: descend only)",
                               ("descend",))),
               description="the time model plus the corner lower bound as a resource count on every state",
               formulation="puzzlesat.models.peg_resource:decision"),
        Engine("sat:resource", "puzzlesat.models.peg_resource:run_sat", ALL,
               options=(*SAT_OPTIONS, INVARIANTS), validate="puzzlesat.models.peg_sat:validate",
               description="the resource formulation as CNF (at-most-K in the chosen encoding)",
               formulation="puzzlesat.models.peg_resource:decision"),
        *(Engine(f"{be}:{name}", f"puzzlesat.models.peg_{name}:run_{be}", ALL,
                 options=(*(CPSAT_OPTIONS + (DESCEND,) if be == "cpsat" else SAT_OPTIONS), INVARIANTS,
                          *MERSON_OPTIONS),
                 validate="puzzlesat.models.peg_merson:validate", description=text + (
                     "" if be == "cpsat" else " (CNF; at-most-K in the chosen encoding)"),
                 formulation=f"puzzlesat.models.peg_{name}:decision")
          for name, text in (
              ("merson", "the time model plus Merson-region resource counts (board-derived) on every state"),
              ("ordered", "peg:merson plus commuting jumps in line order (symmetry breaking valid for "
                          "minimum moves; counts run over peg:merson)"))
          for be in ("cpsat", "sat")),
    ),
    extra={"commands": ["puzzlesat.compare.engines.peg:peg"]},
)


def _holes(b, given: tuple[str, ...], keywords: tuple[str, ...]):
    """A --vacate/--finish value: a keyword alone, or hole ids/labels (comma or space separated)."""
    from puzzlesat.puzzles.peg import parse_hole
    words = [w for g in given for w in g.replace(",", " ").split()]
    if not words:
        return keywords[0]
    if len(words) == 1 and words[0].lower() in keywords:
        return words[0].lower()
    bad = [w for w in words if w.lower() in keywords]
    if bad:
        raise InputError(f"'{bad[0]}' cannot be mixed with hole names")
    return [parse_hole(b, w) for w in words]


@click.command("problems")
@click.argument("board_name", metavar="BOARD")
@click.option("--vacate", multiple=True, metavar="all|HOLE...",
              help="the start's empty hole: all (default) or hole ids/names, e.g. --vacate c1,d4")
@click.option("--finish", multiple=True, metavar="all|same|HOLE...",
              help="the survivor's hole: all (default), same (= the vacated hole) or hole ids/names")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="seconds per problem (a problem cut short is UNKNOWN)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def problems(board_name: str, vacate, finish, time_limit, as_json) -> None:
    """Every single-vacancy -> single-survivor problem of BOARD, one per symmetry orbit: impossible
    by position class at once, else the minimum moves by native:bfs (bidirectional), with one
    optimal jump sequence that the checker replayed. Example: puzzlesat peg problems triangle6

    BOARD is a board name (english33, french37, diamond41, triangle4 ... triangle10, triangle(n),
    hoppers, triangle15, triangle21). Holes are ids, or on square grids names like d4 (column a..,
    row 1.. from the top left)."""
    from puzzlesat.native_search.peg_problems import minimum, problems as solve_all
    from puzzlesat.puzzles.peg import board, hole_label
    b = board(board_name)
    vs = _holes(b, vacate, ("all",))
    fs = _holes(b, finish, ("all", "same"))
    rows = []
    t0 = time.perf_counter()
    if not as_json:
        click.echo(f"{b.name}: {b.n} holes, {len(b.symmetries)} symmetries; one problem per orbit")
        click.echo(f"{'vacate':>6} {'finish':>6} {'moves':>10}  {'proof':<15} {'orbit':>5} {'seconds':>8}")
    for r in solve_all(b, vs, fs, time_limit):
        rows.append(r)
        if not as_json:
            moves = str(r.min_moves) if r.min_moves is not None else (
                "impossible" if r.status is Status.INFEASIBLE else str(r.status))
            click.echo(f"{hole_label(b, r.vacate):>6} {hole_label(b, r.finish):>6} {moves:>10}  "
                       f"{r.proof:<15} {r.orbit_size:>5} {r.seconds:8.2f}")
    m = minimum(rows)
    unsettled = [r for r in rows if r.status not in (Status.OPTIMAL, Status.INFEASIBLE)]
    if as_json:
        click.echo(json.dumps({"board": b.name, "problems": [r.json(b) for r in rows], "minimum": m,
                               "complete": not unsettled,
                               "seconds": round(time.perf_counter() - t0, 3)}))
        return
    solvable = [r for r in rows if r.min_moves is not None]
    click.echo(f"{len(rows)} problems: {len(solvable)} solvable, "
               f"{sum(r.status is Status.INFEASIBLE for r in rows)} impossible"
               + (f", {len(unsettled)} not settled (the minimum is then only an upper bound)"
                  if unsettled else ""))
    click.echo(f"minimum: {m if m is not None else 'none solvable'}"
               f"  ({time.perf_counter() - t0:.1f} s)")
    best = next((r for r in rows if r.min_moves == m and m is not None), None)
    if best is not None:
        click.echo(f"one optimal sequence ({hole_label(b, best.vacate)} -> {hole_label(b, best.finish)}): "
                   + " ".join(f"{a}-{c}" for a, _, c in best.solution))


@click.group("peg")
def peg() -> None:
    """Peg solitaire research commands (problems)."""


peg.add_command(problems)
