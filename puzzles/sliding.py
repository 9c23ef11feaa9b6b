"""Sliding-tile puzzles (8-puzzle, 15-puzzle, any r×c board): rules, instances, checker.

An r×c board holds tiles 1..rc-1 and one blank (0), listed row-major. A move slides a tile that is
next to the blank into it; a solution is the list of tiles moved, in order, and its objective is
its length. A start reaches the goal iff the permutation-parity invariant agrees.

>>> inst = catalogue()["8-hardest"]()
>>> infeasible_reason(inst) is None, manhattan(inst)
(True, 21)
>>> check(parse_inline(2, 2, [1, 2, 0, 3]), (3,))
1
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Callable

from ..core.limits import SLIDING_MAX_CELLS, SLIDING_MAX_WALK
from ..core.result import CheckError, InputError
from ..core.inputs import Instance, Source, int_list, require, json_ints

Cell = int                 # a board cell, row-major index r*cols + c
Tile = int                 # 1..rows*cols-1; 0 is the blank
Board = tuple[int, ...]    # the tile in each cell, row-major
Solution = tuple[int, ...]  # the tiles moved, in order

KIND = "sliding"
SENSE = "min"
SUFFIXES: dict = {}
MAX_CELLS = SLIDING_MAX_CELLS  # 6x6: far beyond what any engine solves, and still a few bits per cell


@dataclass(frozen=True)
class Sliding(Instance):
    """A sliding-tile instance: board shape, start and goal arrangement (row-major, 0 = blank)."""

    name: str
    rows: int
    cols: int
    start: Board
    goal: Board
    optimal: int | None = None   # published optimal length, when the literature gives one
    note: str = ""

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def _repr_svg_(self) -> str:
        return svg(self)


def default_goal(rows: int, cols: int) -> Board:
    """Tiles in row-major order, blank last."""
    return tuple(range(1, rows * cols)) + (0,)


def neighbours(rows: int, cols: int, cell: Cell) -> list[Cell]:
    """Cells orthogonally next to `cell`."""
    r, c = divmod(cell, cols)
    out = []
    if r > 0:
        out.append(cell - cols)
    if r < rows - 1:
        out.append(cell + cols)
    if c > 0:
        out.append(cell - 1)
    if c < cols - 1:
        out.append(cell + 1)
    return out


# ---------------------------------------------------------------- solvability

def _inversions(board: Board) -> int:
    tiles = [t for t in board if t != 0]
    return sum(1 for i in range(len(tiles)) for j in range(i + 1, len(tiles)) if tiles[i] > tiles[j])


def parity_invariant(rows: int, cols: int, board: Board) -> int:
    """The invariant that no move changes: inversions (+ the blank's row from the bottom, for even
    widths) modulo 2."""
    inv = _inversions(board)
    if cols % 2 == 1:
        return inv % 2
    blank_row_from_bottom = rows - board.index(0) // cols
    return (inv + blank_row_from_bottom) % 2


def solvable(inst: Sliding) -> bool:
    """True iff the start can reach the goal (the two parity invariants agree)."""
    return parity_invariant(inst.rows, inst.cols, inst.start) == parity_invariant(inst.rows, inst.cols, inst.goal)


def infeasible_reason(inst: Sliding) -> str | None:
    """The parity explanation when the start cannot reach the goal, else None."""
    if solvable(inst):
        return None
    rule = ("inversions of the tiles" if inst.cols % 2 == 1 else
            "inversions of the tiles + the blank's row counted from the bottom")
    s = parity_invariant(inst.rows, inst.cols, inst.start)
    g = parity_invariant(inst.rows, inst.cols, inst.goal)
    return (f"parity: {rule} is {'odd' if s else 'even'} for the start and {'odd' if g else 'even'} "
            f"for the goal (width {inst.cols}); every move keeps it, so the goal is unreachable")


def manhattan(inst: Sliding, board: Board | None = None) -> int:
    """Sum over tiles of the grid distance to their goal cell (a lower bound on the moves)."""
    board = inst.start if board is None else board
    where = {t: i for i, t in enumerate(inst.goal)}
    total = 0
    for i, t in enumerate(board):
        if t:
            g = where[t]
            total += abs(i // inst.cols - g // inst.cols) + abs(i % inst.cols - g % inst.cols)
    return total


# ---------------------------------------------------------------- checker (shares no solver code)

def check(inst: Sliding, solution) -> int:
    """Replay the tiles moved; CheckError unless every move is legal and the goal is reached.
    Returns the number of moves."""
    try:
        moves = [int(t) for t in solution]
    except (TypeError, ValueError):
        raise CheckError(f"a solution is a list of tiles, got {solution!r}") from None
    board = list(inst.start)
    cols = inst.cols
    for i, t in enumerate(moves):
        if not 1 <= t < inst.cells:
            raise CheckError(f"move {i + 1}: no tile {t} on a {inst.rows}x{cols} board")
        b, p = board.index(0), board.index(t)
        if abs(b // cols - p // cols) + abs(b % cols - p % cols) != 1:
            raise CheckError(f"move {i + 1}: tile {t} is not next to the blank")
        board[b], board[p] = t, 0
    if tuple(board) != inst.goal:
        raise CheckError(f"after {len(moves)} moves the board is {board}, not the goal {list(inst.goal)}")
    return len(moves)


def check_infeasible(inst: Sliding) -> tuple[str, str | None]:
    """("invariant:parity", None) when the parity invariant separates start and goal (the claim
    "no plan" is VERIFIED), else (..., why it does not). Recomputed here, apart from the solvers
    and from `infeasible_reason` (which counts inversions): the permutation `p` taking the start to
    the goal, blank included, by its cycles; each move swaps the blank with a neighbour, so it
    flips the sign of `p` and the parity of the blank's grid distance to its goal cell at once,
    and sign(p) * (-1)^distance never changes (Johnson and Story, "Notes on the '15' puzzle",
    American Journal of Mathematics 2(4), 1879; the blank-row rule on even widths is this
    invariant in another form). Start and goal differ in it exactly when it is -1 (at the goal
    it is +1)."""
    fmt = "invariant:parity"
    start, goal, cols = list(inst.start), list(inst.goal), inst.cols
    if sorted(start) != sorted(goal) or sorted(start) != list(range(len(start))):
        return fmt, "start and goal are not permutations of the same tiles"
    where = {t: i for i, t in enumerate(goal)}
    p = [where[t] for t in start]      # the tile at cell i belongs at cell p[i]
    seen, cycles = [False] * len(p), 0
    for i in range(len(p)):
        if not seen[i]:
            cycles += 1
            while not seen[i]:
                seen[i], i = True, p[i]
    sign = (-1) ** ((len(p) - cycles) % 2)
    b0, b1 = start.index(0), goal.index(0)
    dist = abs(b0 // cols - b1 // cols) + abs(b0 % cols - b1 % cols)
    value = sign * (-1) ** (dist % 2)
    if value == 1:
        return fmt, (f"the start is in the goal's parity class (permutation sign {sign:+d}, blank "
                     f"distance {dist}): parity does not rule it out")
    return fmt, None


def solution_json(inst: Sliding, solution) -> dict:
    """{"moves": [tiles moved in order], "length": n}."""
    return {"moves": [int(t) for t in solution], "length": len(solution)}


def solution_from_json(inst: Sliding, data: dict) -> tuple[int, ...]:
    """The tiles moved, in order, of `{"moves": [tile, ...]}`; CheckError when malformed."""
    if not isinstance(data.get("moves"), list):
        raise CheckError('sliding solution JSON needs "moves": [tile, tile, ...]')
    return json_ints(data["moves"], "moves")


def svg(inst, solution=None) -> str:
    """The instance (and a checked solution) drawn as an SVG document (puzzles/draw/sliding.py)."""
    from .draw.sliding import draw
    return draw(inst, solution)


def solution_key(inst: Sliding, solution, up_to_symmetry: bool = False):
    """A solution is its move list (no symmetry reduction: the goal breaks it)."""
    return tuple(int(t) for t in solution)


def describe(inst: Sliding) -> dict:
    """Shape, start, goal, lower bound and solvability, for `show` and reports."""
    d = {"name": inst.name, "kind": KIND, "rows": inst.rows, "cols": inst.cols,
         "start": list(inst.start), "goal": list(inst.goal), "manhattan": manhattan(inst),
         "solvable": solvable(inst)}
    if inst.optimal is not None:
        d["published_optimal"] = inst.optimal
    if inst.note:
        d["note"] = inst.note
    return d


def render_board(rows: int, cols: int, board: Board) -> str:
    """The board as text, blank shown as '.'."""
    w = len(str(rows * cols - 1))
    return "\n".join(" ".join(("." if board[r * cols + c] == 0 else str(board[r * cols + c])).rjust(w)
                              for c in range(cols)) for r in range(rows))


def render(inst: Sliding, solution=None) -> str:
    """Start and goal side by side; with a solution, the moves too."""
    a = render_board(inst.rows, inst.cols, inst.start).splitlines()
    b = render_board(inst.rows, inst.cols, inst.goal).splitlines()
    width = max(len(x) for x in a)
    lines = ["start".ljust(width) + "    goal"]
    lines += [x.ljust(width) + "    " + y for x, y in zip(a, b)]
    if solution is not None:
        lines.append(f"{len(solution)} moves: " + " ".join(map(str, solution)))
    return "\n".join(lines)


# ---------------------------------------------------------------- input

def _board(rows: int, cols: int, v: tuple[int, ...], key: str, src: Source) -> Board:
    n = rows * cols
    if len(v) != n:
        raise src.error(f"has {len(v)} entries, a {rows}x{cols} board has {n} cells", field=key)
    if sorted(v) != list(range(n)):
        missing = sorted(set(range(n)) - set(v))
        extra = sorted(t for t in set(v) if v.count(t) > 1 or not 0 <= t < n)
        raise src.error(f"must hold each of 0..{n - 1} exactly once (0 = blank); "
                        f"missing {missing}, wrong or repeated {extra}", field=key)
    return tuple(v)


KNOWN_KEYS = {"kind", "name", "rows", "cols", "start", "goal", "optimal", "note"}


def from_toml(data: dict, src: Source) -> Sliding:
    """An instance from TOML: rows, cols, start, optional goal (default: row-major, blank last)."""
    for k in data:
        if k not in KNOWN_KEYS:
            raise src.error(f"unknown key '{k}' (known: {', '.join(sorted(KNOWN_KEYS))})", field=k)
    rows = require(data, "rows", int, src)
    cols = require(data, "cols", int, src)
    for key, v in (("rows", rows), ("cols", cols)):
        if v < 2:
            raise src.error(f"must be at least 2, got {v}", field=key)
    if rows * cols > MAX_CELLS:
        raise src.error(f"{rows}x{cols} has {rows * cols} cells; at most {MAX_CELLS} are supported",
                        field="cols")
    start = _board(rows, cols, int_list(data, "start", src), "start", src)
    goal = data.get("goal")
    goal = default_goal(rows, cols) if goal is None else _board(rows, cols, int_list(data, "goal", src),
                                                                "goal", src)
    optimal = require(data, "optimal", int, src, default=None)
    name = require(data, "name", str, src, default=Path(src.name).stem)
    note = require(data, "note", str, src, default="")
    return Sliding(name, rows, cols, start, goal, optimal, note)


def parse_inline(rows: int, cols: int, start, goal=None, name: str = "inline") -> Sliding:
    """An instance from Python values, validated like a file."""
    data = {"rows": rows, "cols": cols, "start": list(start)}
    if goal is not None:
        data["goal"] = list(goal)
    return from_toml(data, Source(name))


# ---------------------------------------------------------------- random instances

def generate(rows: int, cols: int, seed: int = 0, walk: int | None = None, name: str | None = None) -> Sliding:
    """A random solvable position for the default goal: uniform over the solvable half (swap the
    first two tiles when the parity is wrong), or, with `walk`, the end of a random walk of that
    many moves that never steps straight back (so at most `walk` moves from the goal).

    >>> inst = generate(3, 3, seed=1)
    >>> solvable(inst), sorted(inst.start) == list(range(9))
    (True, True)
    """
    import random
    if rows < 2 or cols < 2 or rows * cols > MAX_CELLS:
        raise InputError(f"a {rows}x{cols} board: rows and cols must be at least 2 and "
                         f"rows*cols at most {MAX_CELLS}")
    if walk is not None and (isinstance(walk, bool) or not isinstance(walk, int)
                             or not 0 <= walk <= SLIDING_MAX_WALK):
        raise InputError(f"walk {walk!r}: a number of moves from 0 to {SLIDING_MAX_WALK:,} (a walk "
                         "of millions of moves is as mixed as the default, uniform position)")
    rng = random.Random(seed)
    goal = default_goal(rows, cols)
    if walk is None:
        b = list(goal)
        rng.shuffle(b)
        if not solvable(Sliding("", rows, cols, tuple(b), goal)):
            i, j = [k for k, t in enumerate(b) if t != 0][:2]
            b[i], b[j] = b[j], b[i]
    else:
        b, prev = list(goal), None
        for _ in range(walk):
            z = b.index(0)
            c = rng.choice([x for x in neighbours(rows, cols, z) if x != prev])
            b[z], b[c] = b[c], 0
            prev = z
    what = f"walk{walk}" if walk is not None else "random"
    return Sliding(name or f"{rows}x{cols}-{what}-s{seed}", rows, cols, tuple(b), goal)


def to_toml(inst: Sliding) -> str:
    """The instance as a TOML file that from_toml reads back."""
    lines = ['kind = "sliding"', f"name = {json.dumps(inst.name)}", f"rows = {inst.rows}",
             f"cols = {inst.cols}", f"start = {list(inst.start)}   # row-major, 0 = blank",
             f"goal = {list(inst.goal)}"]
    if inst.optimal is not None:
        lines.append(f"optimal = {inst.optimal}")
    if inst.note:
        lines.append(f"note = {json.dumps(inst.note)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- catalogue

@cache
def korf100() -> tuple[dict, ...]:
    """Korf's 100 random 15-puzzle instances (blank-first goal) with optimal lengths."""
    text = resources.files(__package__).joinpath("data/sliding/korf100.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return tuple(data["instances"])


KORF_GOAL: Board = tuple(range(16))  # Korf's goal: blank first, then 1..15
KF24_GOAL: Board = tuple(range(25))  # Korf & Felner's 24-puzzle goal: blank first, then 1..24


@cache
def korf_felner24() -> tuple[dict, ...]:
    """Korf & Felner's 50 random 24-puzzle instances (blank-first goal) with optimal lengths."""
    text = resources.files(__package__).joinpath("data/sliding/korf_felner24.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["instances"])

@cache
def clausecker_unsolved24() -> tuple[dict, ...]:
    """The 14 random 24-puzzles of Clausecker's 400 left unsolved after three weeks (blank-first goal)."""
    text = resources.files(__package__).joinpath("data/sliding/clausecker_unsolved24.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["instances"])

# Easy 15-puzzle positions: random walks from the default goal (seeds 43, 2, 4, 8, 23, 6 of the
# generator in bench/sliding.py). Their optimal lengths and numbers of optimal solutions were found
# by native IDA* (pattern databases and, separately, Manhattan + linear conflicts) and, up to 30
# moves, confirmed by bidirectional BFS: name -> (start, optimal length, optimal solutions).
EASY15: dict[str, tuple[Board, int, int]] = {
    "15-easy-10": ((0, 1, 3, 4, 5, 2, 8, 12, 9, 6, 10, 7, 13, 14, 11, 15), 10, 1),
    "15-easy-20": ((1, 2, 4, 7, 5, 6, 3, 8, 9, 10, 14, 12, 11, 0, 13, 15), 20, 2),
    "15-easy-26": ((1, 9, 2, 4, 5, 6, 8, 15, 13, 10, 3, 11, 14, 12, 7, 0), 26, 6),
    "15-easy-30": ((1, 7, 5, 8, 4, 11, 2, 6, 0, 9, 3, 12, 13, 10, 14, 15), 30, 2),
    "15-easy-36": ((5, 1, 0, 4, 14, 15, 2, 3, 11, 7, 13, 8, 9, 10, 12, 6), 36, 12),
    "15-easy-40": ((0, 1, 8, 11, 5, 13, 14, 2, 7, 10, 4, 3, 6, 9, 12, 15), 40, 1),
}


def catalogue() -> dict[str, Callable[[], Sliding]]:
    """Built-in instances: the 8-puzzle's two antipodes and goal, easy 15-puzzles, Korf's 100,
    Korf & Felner's 50 24-puzzles, Clausecker's 14 unsolved random 24-puzzles."""
    g3 = default_goal(3, 3)
    out: dict[str, Callable[[], Sliding]] = {
        "8-hardest": lambda: Sliding("8-hardest", 3, 3, (8, 6, 7, 2, 5, 4, 3, 0, 1), g3, 31,
                                     "one of the two 8-puzzle positions farthest from the goal"),
        "8-hardest-2": lambda: Sliding("8-hardest-2", 3, 3, (6, 4, 7, 8, 5, 0, 3, 2, 1), g3, 31,
                                       "the other 31-move 8-puzzle antipode"),
        "8-goal": lambda: Sliding("8-goal", 3, 3, g3, g3, 0,
                                  "the 8-puzzle goal itself: the root for exploring its state space"),
        "8-easy": lambda: Sliding("8-easy", 3, 3, (1, 2, 3, 4, 0, 6, 7, 5, 8), g3, 2),
        "8-unsolvable": lambda: Sliding("8-unsolvable", 3, 3, (2, 1, 3, 4, 5, 6, 7, 8, 0), g3,
                                        None, "two tiles swapped: odd inversions, unreachable"),
    }
    for short, (start, opt, nopt) in EASY15.items():
        out[short] = (lambda s=short, st=start, o=opt, k=nopt: Sliding(
            s, 4, 4, st, default_goal(4, 4), o, f"{k} optimal solutions; random walk"))
    for rec in korf100():
        i = rec["id"]
        out[f"korf-{i:03d}"] = (lambda r=rec, i=i: Sliding(
            f"korf-{i:03d}", 4, 4, tuple(r["tiles"]), KORF_GOAL, r["optimal_length"],
            f"Korf (1985) instance #{i}; goal blank-first as published"))
    for rec in korf_felner24():
        i = rec["id"]
        out[f"kf24-{i:02d}"] = (lambda r=rec, i=i: Sliding(
            f"kf24-{i:02d}", 5, 5, tuple(r["tiles"]), KF24_GOAL, r["optimal_length"],
            f"Korf & Felner (2002) 24-puzzle instance #{i}; goal blank-first as published"))
    for rec in clausecker_unsolved24():
        i = rec["id"]
        out[f"c24u-{i:02d}"] = (lambda r=rec, i=i: Sliding(
            f"c24u-{i:02d}", 5, 5, tuple(r["tiles"]), KF24_GOAL, None,
            f"Clausecker's random 24-puzzle left unsolved #{i} (no published optimum); goal blank-first"))
    return out


__all__ = ["KIND", "SENSE", "SUFFIXES", "Sliding", "catalogue", "from_toml", "check", "solution_json",
           "solution_key", "describe", "render", "infeasible_reason", "solvable", "manhattan",
           "default_goal", "neighbours", "parse_inline", "korf100", "korf_felner24", "clausecker_unsolved24", "generate", "to_toml", "InputError"]
