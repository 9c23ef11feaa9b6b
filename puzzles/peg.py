"""Peg solitaire: boards as lattice holes + directions, instances, rules and the checker.

A jump moves the peg in `a` over the peg in `b` into the empty hole `c`, where b = a + d and
c = a + 2d for one of the board's directions d. A *move* is a maximal run of jumps by one peg;
"minimum moves" counts moves, not jumps.

>>> inst = catalogue()["hoppers"]()
>>> inst.board.n, len(inst.board.lines), sorted(inst.start)[:3]
(13, 32, [0, 1, 2])
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Callable, Hashable, Sequence

from ..core.limits import MAX_ART_CHARS, PEG_MAX_DIRECTIONS, PEG_MAX_HOLES, too_big
from ..core.result import CheckError, InputError
from ..core.inputs import Instance, Source, int_list, require, json_ints

# ---- vocabulary -------------------------------------------------------------------------------
Hole = int                       # 0..n-1, numbered as the board lists its coordinates
Point = tuple[int, int]          # (x, y) lattice coordinates; x grows right, y grows down
Jump = tuple[Hole, Hole, Hole]   # (from, over, to)
Solution = tuple[Jump, ...]      # an ordered jump sequence
Position = frozenset[Hole]       # the holes holding a peg

KIND = "peg"
SENSE = "min"  # objective: number of moves

DIRECTION_SETS: dict[str, tuple[Point, ...]] = {
    "orthogonal": ((1, 0), (-1, 0), (0, 1), (0, -1)),
    "orthogonal+diagonal": ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)),
    "triangular": ((2, 0), (-2, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)),
    "hoppers": ((2, 0), (-2, 0), (0, 2), (0, -2), (1, 1), (1, -1), (-1, 1), (-1, -1)),
}
HOLE_CHARS = "oO*#x@"  # characters that mark a hole in ASCII art; everything else is off-board


@dataclass(frozen=True)
class Board:
    """A board: hole coordinates and lattice directions; everything else is derived from them."""

    name: str
    coords: tuple[Point, ...]
    directions: tuple[Point, ...]

    @property
    def n(self) -> int:
        return len(self.coords)

    @cached_property
    def index(self) -> dict[Point, Hole]:
        return {p: i for i, p in enumerate(self.coords)}

    @cached_property
    def lines(self) -> tuple[Jump, ...]:
        """Every jump line (a, b, c), ordered by a, then by direction order."""
        out = []
        for a, (x, y) in enumerate(self.coords):
            for dx, dy in self.directions:
                b = self.index.get((x + dx, y + dy))
                c = self.index.get((x + 2 * dx, y + 2 * dy))
                if b is not None and c is not None:
                    out.append((a, b, c))
        return tuple(out)

    @cached_property
    def jump_table(self) -> dict[Hole, list[tuple[Hole, Hole]]]:
        """For each hole, the (over, to) pairs of the lines starting there."""
        t: dict[Hole, list[tuple[Hole, Hole]]] = {h: [] for h in range(self.n)}
        for a, b, c in self.lines:
            t[a].append((b, c))
        return t

    @cached_property
    def corners(self) -> frozenset[Hole]:
        """Holes that are never the middle of a jump line: a peg there can only leave by jumping."""
        middles = {b for _, b, _ in self.lines}
        return frozenset(h for h in range(self.n) if h not in middles)

    @cached_property
    def symmetries(self) -> tuple[tuple[Hole, ...], ...]:
        """The board's symmetry group as hole permutations (identity first), derived geometrically:
        affine maps sending the direction set onto itself and the hole set onto itself."""
        return _symmetries(self)

    @cached_property
    def invariants(self) -> tuple[int, ...]:
        """A basis (as hole bitmasks) of the GF(2) weightings w with w(a)+w(b)+w(c)=0 on every
        line: Σ w·peg mod 2 never changes under a jump (the position class)."""
        return _null_space_gf2(self.n, [(1 << a) | (1 << b) | (1 << c) for a, b, c in self.lines])


@dataclass(frozen=True)
class PegInstance(Instance):
    """A peg solitaire problem: start pegs, the required finish (None: one peg anywhere)."""

    name: str
    board: Board
    start: Position
    finish: Position | None = None
    first_jump: tuple[Hole, Hole] | None = None  # (from, to) of the first jump
    known_min_moves: int | None = None            # published optimum, for reports
    source: str = ""

    @property
    def jumps_needed(self) -> int:
        """Every jump removes one peg: the fixed number of jumps of any solution."""
        return len(self.start) - (1 if self.finish is None else len(self.finish))

    @property
    def solved_at_start(self) -> bool:
        """The empty sequence solves it: the start is the finish and no first jump is required (a
        required first jump on an instance that needs no jump makes it INFEASIBLE: every jump
        removes a peg, and the empty sequence has no first jump)."""
        done = len(self.start) == 1 if self.finish is None else self.start == self.finish
        return done and self.first_jump is None

    def _repr_svg_(self) -> str:
        return svg(self)


# ---- the independent checker ------------------------------------------------------------------
def check(inst: PegInstance, solution: Solution) -> int:
    """Replay `solution` by the rules; raise CheckError on any violation; return its move count."""
    coords, dirs = inst.board.coords, set(inst.board.directions)
    pegs = set(inst.start)
    n = len(coords)
    for i, jump in enumerate(solution):
        if len(jump) != 3 or not all(isinstance(h, int) and 0 <= h < n for h in jump):
            raise CheckError(f"jump {i}: {jump!r} is not three hole ids of this board")
        a, b, c = jump
        (ax, ay), (bx, by), (cx, cy) = coords[a], coords[b], coords[c]
        if (bx - ax, by - ay) != (cx - bx, cy - by) or (bx - ax, by - ay) not in dirs:
            raise CheckError(f"jump {i}: {a}->{c} over {b} is not a line of the board")
        if a not in pegs or b not in pegs or c in pegs:
            raise CheckError(f"jump {i}: {a}->{c} over {b} needs pegs in {a}, {b} and {c} empty")
        pegs -= {a, b}
        pegs.add(c)
    if inst.first_jump is not None and not solution:
        raise CheckError(f"the first jump must be {inst.first_jump[0]}->{inst.first_jump[1]}; "
                         "the sequence is empty")
    if inst.first_jump is not None and (solution[0][0], solution[0][2]) != inst.first_jump:
        raise CheckError(f"first jump is {solution[0][0]}->{solution[0][2]}, "
                         f"required {inst.first_jump[0]}->{inst.first_jump[1]}")
    if inst.finish is not None and pegs != set(inst.finish):
        raise CheckError(f"ends with pegs {sorted(pegs)}, required {sorted(inst.finish)}")
    if inst.finish is None and len(pegs) != 1:
        raise CheckError(f"ends with {len(pegs)} pegs, required one")
    if not solution:
        return 0
    return 1 + sum(1 for j, k in zip(solution, solution[1:]) if k[0] != j[2])


def moves(solution: Sequence[Jump]) -> int:
    """Number of moves of a jump sequence (a move = a maximal run of jumps by one peg)."""
    if not solution:
        return 0
    return 1 + sum(1 for j, k in zip(solution, solution[1:]) if k[0] != j[2])


def solution_json(inst: PegInstance, solution: Solution) -> dict:
    return {"jumps": [list(j) for j in solution], "moves": moves(solution)}


def solution_from_json(inst: PegInstance, data: dict) -> Solution:
    """The jump sequence of `{"jumps": [[from, over, to], ...]}`; CheckError when malformed."""
    jumps = data.get("jumps")
    if not isinstance(jumps, list):
        raise CheckError('peg solution JSON needs "jumps": [[from, over, to], ...]')
    out = []
    for i, j in enumerate(jumps):
        t = json_ints(j, f"jump {i}")
        if len(t) != 3:
            raise CheckError(f"jump {i}: expected [from, over, to], got {j!r}")
        out.append(t)
    return tuple(out)


def svg(inst, solution=None) -> str:
    """The instance (and a checked solution) drawn as an SVG document (puzzles/draw/peg.py)."""
    from .draw.peg import draw
    return draw(inst, solution)


def solution_key(inst: PegInstance, solution: Solution, up_to_symmetry: bool = False) -> Hashable:
    """A solution is its ordered jump sequence."""
    return tuple(tuple(j) for j in solution)


def infeasible_reason(inst: PegInstance) -> str | None:
    """A position-class invariant (derived from the board) that separates start and finish."""
    start = _mask(inst.start)
    if inst.first_jump is not None and inst.jumps_needed <= 0:
        return ("a first jump is required, but the start needs no jump (every jump removes a peg, "
                "so no sequence that starts with a jump ends at the finish)")
    if inst.first_jump is not None:
        a, c = inst.first_jump
        line = next((l for l in inst.board.lines if l[0] == a and l[2] == c), None)
        if line is None:
            return f"first_jump {a}->{c} is not a jump line of the board"
        if not (a in inst.start and line[1] in inst.start and c not in inst.start):
            return f"first_jump {a}->{c} is not possible from the start position"
        start ^= (1 << a) | (1 << line[1]) | (1 << c)
    finishes = [_mask(inst.finish)] if inst.finish is not None else [1 << h for h in range(inst.board.n)]
    for fin in finishes:
        if all(_parity(w & start) == _parity(w & fin) for w in inst.board.invariants):
            return None
    what = "the finish" if inst.finish is not None else "any single-peg finish"
    return (f"position class: start and {what} differ in a GF(2) invariant of the board's jump "
            "lines (every jump flips three holes of a line, so these parities never change)")


def start_lower_bound(inst: PegInstance) -> int:
    """Moves needed from the start: a peg on a never-jumped-over hole must jump out itself (one move
    each) unless the finish keeps it there; with "one peg anywhere", one of them may stay."""
    need = inst.board.corners if inst.finish is None else inst.board.corners - inst.finish
    k = len(inst.start & need)
    if inst.finish is None:
        k = max(0, k - 1)
    return max(k, 1 if inst.jumps_needed > 0 else 0)


def hole_label(board: Board, h: Hole) -> str:
    """A hole's name: on square-grid boards (orthogonal directions) the chess-like name, column
    a, b, … from the leftmost hole and row 1, 2, … from the top (french37: centre d4); else its id."""
    if set(board.directions) <= set(DIRECTION_SETS["orthogonal+diagonal"]):
        x0 = min(x for x, _ in board.coords)
        y0 = min(y for _, y in board.coords)
        x, y = board.coords[h]
        if x - x0 < 26:
            return f"{chr(ord('a') + x - x0)}{y - y0 + 1}"
    return str(h)


def parse_hole(board: Board, text: str) -> Hole:
    """A hole given as its id or its label (hole_label); InputError otherwise."""
    t = text.strip()
    if t.isdigit() and int(t) < board.n:
        return int(t)
    for h in range(board.n):
        if hole_label(board, h) == t.lower():
            return h
    raise InputError(f"hole '{text}': not a hole of board {board.name} (ids 0..{board.n - 1}"
                     + (", or names like " + hole_label(board, 0) if hole_label(board, 0) != "0" else "")
                     + ")")


# ---- describe / render ------------------------------------------------------------------------
def describe(inst: PegInstance) -> dict:
    b = inst.board
    return {"kind": KIND, "name": inst.name, "board": b.name, "holes": b.n, "jump_lines": len(b.lines),
            "symmetries": len(b.symmetries), "pegs": len(inst.start),
            "finish": sorted(inst.finish) if inst.finish is not None else "one peg anywhere",
            "first_jump": list(inst.first_jump) if inst.first_jump else None,
            "jumps": inst.jumps_needed, "corner_holes": sorted(b.corners),
            "known_min_moves": inst.known_min_moves, "source": inst.source}


def render(inst: PegInstance, solution: Solution | None = None) -> str:
    """The start position ('x' peg, 'o' empty), then the finish, or the positions after each move."""
    frames = [("start", set(inst.start))]
    if solution:
        pegs = set(inst.start)
        for i, (a, b, c) in enumerate(solution):
            pegs -= {a, b}
            pegs.add(c)
            if i + 1 == len(solution) or solution[i + 1][0] != c:
                frames.append((f"move {len(frames)}", set(pegs)))
    elif inst.finish is not None:
        frames.append(("finish", set(inst.finish)))
    return "\n\n".join(f"{title}:\n{render_position(inst.board, pegs)}" for title, pegs in frames)


def render_position(board: Board, pegs: set[Hole]) -> str:
    xs = [x for x, _ in board.coords]
    ys = [y for _, y in board.coords]
    x0, y0 = min(xs), min(ys)
    grid = [[" "] * ((max(xs) - x0) * 2 + 1) for _ in range(max(ys) - y0 + 1)]
    for h, (x, y) in enumerate(board.coords):
        grid[y - y0][(x - x0) * 2] = "x" if h in pegs else "o"
    return "\n".join("".join(r).rstrip() for r in grid)


# ---- boards -----------------------------------------------------------------------------------
def _cross(extra: Sequence[Point] = ()) -> list[Point]:
    """The 7x7 cross (the 33-hole English board) plus `extra` grid points, row by row."""
    return [(x, y) for y in range(7) for x in range(7) if 2 <= x <= 4 or 2 <= y <= 4 or (x, y) in extra]


def triangle(n: int) -> Board:
    """The triangular board of side n (n(n+1)/2 holes): row r = 0..n-1 has holes x = -r, -r+2, …, r
    at y = r, numbered row by row; named `triangle{n}`. InputError beyond side TRIANGLE_MAX (14:
    105 holes; the bitboard engines take sides up to 10, 55 holes)."""
    if not 1 <= n <= TRIANGLE_MAX:
        raise InputError(f"triangle({n}): the side must be 1..{TRIANGLE_MAX}")
    return Board(f"triangle{n}", tuple((x, r) for r in range(n) for x in range(-r, r + 1, 2)),
                 DIRECTION_SETS["triangular"])


TRIANGLE_NAME = re.compile(r"triangle(?:\((\d+)\)|(\d+))")
# the largest side (105 holes; side 15 would fit in 128 holes, but its name triangle15 is the
# 15-hole board's, as triangle21 is the 21-hole board's)
TRIANGLE_MAX = 14
TRIANGLE_SIDES = range(4, TRIANGLE_MAX + 1)  # triangle4 … triangle14; triangle(n) for n = 1..14


def named_boards() -> dict[str, Callable[[], Board]]:
    """The built-in boards by name; `triangle(n)` / `triangleN` (N ≤ 14) are also accepted
    by board()."""
    hoppers = [(0, 0), (2, 0), (4, 0), (1, 1), (3, 1), (0, 2), (2, 2), (4, 2), (1, 3), (3, 3), (0, 4),
               (2, 4), (4, 4)]
    tri21 = [(-1, -3), (1, -3), (0, -2), (-1, -1), (1, -1), (-2, 0), (0, 0), (2, 0), (-3, 1), (-1, 1),
             (1, 1), (3, 1), (-6, 2), (-4, 2), (-2, 2), (0, 2), (2, 2), (4, 2), (6, 2), (-5, 3), (5, 3)]
    tri15 = [(x, r) for r in range(5) for x in range(-r, r + 1, 2)]
    french = [(1, 1), (5, 1), (1, 5), (5, 5)]
    diamond = [(x, y) for y in range(-4, 5) for x in range(-4, 5) if abs(x) + abs(y) <= 4]
    return {
        "hoppers": lambda: Board("hoppers", tuple(hoppers), DIRECTION_SETS["hoppers"]),
        "triangle21": lambda: Board("triangle21", tuple(tri21), DIRECTION_SETS["triangular"]),
        "triangle15": lambda: Board("triangle15", tuple(tri15), DIRECTION_SETS["triangular"]),
        "english33": lambda: Board("english33", tuple(_cross()), DIRECTION_SETS["orthogonal"]),
        "french37": lambda: Board("french37", tuple(_cross(french)), DIRECTION_SETS["orthogonal"]),
        "diamond41": lambda: Board("diamond41", tuple(diamond), DIRECTION_SETS["orthogonal"]),
        **{f"triangle{k}": (lambda k=k: triangle(k)) for k in TRIANGLE_SIDES},
    }


def board(name: str) -> Board:
    """A built-in board by name; InputError naming the known ones."""
    nb = named_boards()
    if name in nb:
        return nb[name]()
    m = TRIANGLE_NAME.fullmatch(name)
    if m and (m.group(1) is not None or int(m.group(2)) <= TRIANGLE_MAX):
        return triangle(int(m.group(1) or m.group(2)))
    raise InputError(f"unknown board '{name}'; known: " + ", ".join(nb)
                     + f", triangle(n) for n = 1..{TRIANGLE_MAX}")


# ---- catalogue --------------------------------------------------------------------------------
def catalogue() -> dict[str, Callable[[], PegInstance]]:
    """Built-in instances: the central games, the published first-jump counts, IPC-2011 p01-p20."""
    def central(bname: str, centre: int, known: int | None = None, first=None, name=None, src=""):
        def make() -> PegInstance:
            b = board(bname)
            return PegInstance(name or bname, b, frozenset(range(b.n)) - {centre}, frozenset({centre}),
                               first, known, src)
        return make

    hir = "M. Hiroi, Puzzle DE Programming"
    cat: dict[str, Callable[[], PegInstance]] = {
        "hoppers": central("hoppers", 6, 7, src=hir + ", Hoppers (2022)"),
        "hoppers-first06": central("hoppers", 6, 7, (0, 6), "hoppers-first06",
                                   hir + ": 18 sequences with first jump 0->6"),
        "triangle21": central("triangle21", 6, 12, src=hir + ", 変形三角盤 (2000, rev. 2022)"),
        "triangle21-first146": central("triangle21", 6, 12, (14, 6), "triangle21-first146",
                                       hir + ": 96 sequences with first jump 14->6"),
        "english33": central("english33", 16, 18, src="Bergholt (1912); minimal: J. Beasley (1964)"),
        "french37": central("french37", 18, None, src="central game: impossible (position classes)"),
        "diamond41": central("diamond41", 20, None),
    }

    def tri15() -> PegInstance:
        b = board("triangle15")
        return PegInstance("triangle15", b, frozenset(range(1, b.n)), None, None, None,
                           "15-hole triangle, top hole empty, one peg left anywhere")
    cat["triangle15"] = tri15

    data = json.loads(resources.files(__package__).joinpath("data/peg/ipc2011_pegsol.json").read_text())
    for key, d in data.items():
        def ipc(key=key, d=d) -> PegInstance:
            return PegInstance(f"ipc-{key}", board(d["board"]), frozenset(d["start_full"]),
                               frozenset(d["goal_full"]), None, d["min_moves"],
                               f"IPC-2011 pegsol {key} ({d['name']}); verified by "
                               + ", ".join(d["verified_by"]))
        cat[f"ipc-{key}"] = ipc
    return cat


# ---- TOML -------------------------------------------------------------------------------------
def from_toml(data: dict, src: Source) -> PegInstance:
    """A PegInstance from a parsed TOML table (see README: Peg solitaire instances)."""
    known = {"kind", "name", "board", "empty", "full", "finish", "first_jump", "known_min_moves",
             "source"}
    for k in data:
        if k not in known:
            raise src.error(f"unknown key '{k}' (known: {', '.join(sorted(known))})", field=k)
    b = _board_from_toml(data.get("board"), src)
    n = b.n

    def holes(key: str) -> frozenset[Hole] | None:
        if key not in data:
            return None
        hs = int_list(data, key, src)
        bad = [h for h in hs if not 0 <= h < n]
        if bad:
            raise src.error(f"hole {bad[0]} out of range 0..{n - 1} of board {b.name}", field=key)
        if len(set(hs)) != len(hs):
            raise src.error("a hole is listed twice", field=key)
        return frozenset(hs)

    empty, full = holes("empty"), holes("full")
    if (empty is None) == (full is None):
        raise src.error("give exactly one of 'empty' (holes empty at the start) or 'full'",
                        field="empty")
    start = frozenset(range(n)) - empty if empty is not None else full
    finish = holes("finish")
    first = None
    if "first_jump" in data:
        fj = int_list(data, "first_jump", src)
        if len(fj) != 2 or not all(0 <= h < n for h in fj):
            raise src.error(f"expected [from, to] with holes in 0..{n - 1}", field="first_jump")
        if not any(l[0] == fj[0] and l[2] == fj[1] for l in b.lines):
            raise src.error(f"{fj[0]}->{fj[1]} is not a jump line of board {b.name}", field="first_jump")
        first = (fj[0], fj[1])
    if not start:
        raise src.error("the start position has no pegs", field="empty" if empty is not None else "full")
    if finish is not None:
        if not finish:
            raise src.error("the finish must keep at least one peg", field="finish")
        if len(finish) > len(start):
            raise src.error(f"unreachable by peg count: the finish has {len(finish)} pegs, the start "
                            f"only {len(start)} (jumps only remove pegs)", field="finish")
        if len(finish) == len(start) and finish != start:
            raise src.error("unreachable by peg count: as many pegs as the start but other holes",
                            field="finish")
    name = require(data, "name", str, src, default=Path(src.name).stem)
    known_min = require(data, "known_min_moves", int, src, default=None)
    if known_min is not None and not 0 <= known_min <= len(start):
        raise src.error(f"expected a number of moves in 0..{len(start)}", field="known_min_moves")
    source = require(data, "source", str, src, default=str(src.name))
    return PegInstance(name, b, start, finish, first, known_min, source)


def to_toml(inst: PegInstance) -> str:
    """The instance as TOML text that from_toml reads back to an equal instance (the board as a
    table of holes and directions; `known_min_moves` and `source` kept)."""
    q, b = json.dumps, inst.board
    out = ['kind = "peg"', f"name = {q(inst.name)}", f"full = {sorted(inst.start)}"]
    if inst.finish is not None:
        out.append(f"finish = {sorted(inst.finish)}")
    if inst.first_jump is not None:
        out.append(f"first_jump = {list(inst.first_jump)}")
    if inst.known_min_moves is not None:
        out.append(f"known_min_moves = {inst.known_min_moves}")
    out += [f"source = {q(inst.source)}", "[board]", f"name = {q(b.name)}",
            f"holes = {[list(p) for p in b.coords]}", f"directions = {[list(d) for d in b.directions]}"]
    return "\n".join(out) + "\n"


def _board_from_toml(spec, src: Source) -> Board:
    if isinstance(spec, str):
        try:
            return board(spec)
        except InputError as e:
            raise src.error(e.message, field="board") from None
    if not isinstance(spec, dict):
        raise src.error("expected a board name or a table with holes/art and directions", field="board")
    dirs_raw = spec.get("directions", "orthogonal")
    if isinstance(dirs_raw, str):
        if dirs_raw not in DIRECTION_SETS:
            raise src.error(f"unknown direction set '{dirs_raw}'; known: {', '.join(DIRECTION_SETS)} "
                            "or a list of [dx, dy]", field="board.directions")
        dirs = DIRECTION_SETS[dirs_raw]
    else:
        if not (isinstance(dirs_raw, list) and dirs_raw and all(
                isinstance(d, list) and len(d) == 2 and all(type(v) is int for v in d) and d != [0, 0]
                for d in dirs_raw)):
            raise src.error("expected a list of non-zero [dx, dy] integer pairs", field="board.directions")
        dirs = tuple(dict.fromkeys((d[0], d[1]) for d in dirs_raw))
    if len(dirs) > PEG_MAX_DIRECTIONS:
        raise src.error(too_big("directions", len(dirs), PEG_MAX_DIRECTIONS), field="board.directions")
    if ("holes" in spec) == ("art" in spec):
        raise src.error("give exactly one of 'holes' (a list of [x, y]) or 'art'", field="board")
    if "holes" in spec:
        hs = spec["holes"]
        if isinstance(hs, list) and len(hs) > PEG_MAX_HOLES:
            raise src.error(too_big("holes", len(hs), PEG_MAX_HOLES), field="board.holes")
        if not (isinstance(hs, list) and all(isinstance(p, list) and len(p) == 2 and
                                             all(type(v) is int for v in p) for p in hs)):
            raise src.error("expected a list of [x, y] integer pairs", field="board.holes")
        pts = [(p[0], p[1]) for p in hs]
    else:
        art = spec["art"]
        if not isinstance(art, str):
            raise src.error("expected a string", field="board.art")
        if len(art) > MAX_ART_CHARS:
            raise src.error(too_big("board art", len(art), MAX_ART_CHARS, " characters"),
                            field="board.art")
        lines = art.split("\n")
        if lines and not lines[0].strip():
            lines = lines[1:]
        pts = [(x, y) for y, row in enumerate(lines) for x, ch in enumerate(row) if ch in HOLE_CHARS]
    if not pts:
        raise src.error("the board has no holes", field="board")
    if len(set(pts)) != len(pts):
        raise src.error("a hole is listed twice", field="board.holes")
    if len(pts) > PEG_MAX_HOLES:
        raise src.error(f"{len(pts)} holes: at most {PEG_MAX_HOLES} are supported", field="board")
    bname = spec.get("name", "custom")
    return Board(str(bname), tuple(pts), tuple(dirs))


SUFFIXES: dict = {}


# ---- derivations ------------------------------------------------------------------------------
def _mask(holes) -> int:
    m = 0
    for h in holes:
        m |= 1 << h
    return m


def _parity(x: int) -> int:
    return bin(x).count("1") & 1


def _null_space_gf2(n: int, rows: list[int]) -> tuple[int, ...]:
    """Basis of {w : popcount(w & r) even for every row r} over GF(2), as bitmasks of n bits."""
    pivots: dict[int, int] = {}  # pivot column -> reduced row
    for r in rows:
        for col, pr in pivots.items():
            if r >> col & 1:
                r ^= pr
        if r:
            col = r.bit_length() - 1
            for c2 in list(pivots):
                if pivots[c2] >> col & 1:
                    pivots[c2] ^= r
            pivots[col] = r
    basis = []
    for free in range(n):
        if free in pivots:
            continue
        w = 1 << free
        for col, pr in pivots.items():
            if pr >> free & 1:
                w |= 1 << col
        basis.append(w)
    return tuple(basis)


def _symmetries(b: Board) -> tuple[tuple[Hole, ...], ...]:
    dirs = list(b.directions)
    pts = b.coords
    # a basis of the plane among the directions
    basis = next(((d1, d2) for d1 in dirs for d2 in dirs if d1[0] * d2[1] - d1[1] * d2[0] != 0), None)
    if basis is None:
        return (tuple(range(b.n)),)
    (a1, a2), (b1, b2) = basis
    det = Fraction(a1 * b2 - a2 * b1)
    cx = Fraction(sum(x for x, _ in pts), len(pts))
    cy = Fraction(sum(y for _, y in pts), len(pts))
    dset = set(dirs)
    perms = []
    for e1 in dirs:
        for e2 in dirs:
            # linear M with M·d1 = e1, M·d2 = e2:  M = [e1 e2] · [d1 d2]^-1
            inv = ((b2 / det, -b1 / det), (-a2 / det, a1 / det))  # rows of [d1 d2]^-1
            m = ((e1[0] * inv[0][0] + e2[0] * inv[1][0], e1[0] * inv[0][1] + e2[0] * inv[1][1]),
                 (e1[1] * inv[0][0] + e2[1] * inv[1][0], e1[1] * inv[0][1] + e2[1] * inv[1][1]))
            if abs(m[0][0] * m[1][1] - m[0][1] * m[1][0]) != 1:
                continue

            def ap(p, m=m):
                return (m[0][0] * p[0] + m[0][1] * p[1], m[1][0] * p[0] + m[1][1] * p[1])
            if {ap(d) for d in dirs} != dset:
                continue
            perm = []
            for p in pts:
                q = ap((p[0] - cx, p[1] - cy))
                q = (q[0] + cx, q[1] + cy)
                if q[0].denominator != 1 or q[1].denominator != 1:
                    break
                h = b.index.get((int(q[0]), int(q[1])))
                if h is None:
                    break
                perm.append(h)
            else:
                perms.append(tuple(perm))
    ident = tuple(range(b.n))
    uniq = sorted(set(perms), key=lambda p: (p != ident, p))
    return tuple(uniq)
