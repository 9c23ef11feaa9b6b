"""Pentomino and polyomino tiling: boards, pieces, placements, the board's symmetry group,
canonical forms, a symmetry-breaking plan and the independent checker (SPEC §2).

A tiling covers every board cell exactly once with the instance's pieces, each used its number of
times. A tiling *is* its set of placements (piece name + cells): copies of one piece are
interchangeable, so swapping two copies is not a new tiling. Counting "up to symmetry" counts the
orbits of the tilings under the board's symmetry group (rotations and reflections of the plane that
map the board's cell set onto itself), derived from the shape, never hand-listed.

>>> inst = catalogue()["6x10"]()
>>> len(inst.cells), sum(len(p.orientations) for p in inst.pieces), len(symmetries(inst))
(60, 63, 4)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Callable, Hashable, Sequence

from .core import CheckError, Instance, Source, load_toml, require

# ---- vocabulary -------------------------------------------------------------------------------
Cell = tuple[int, int]                     # (row, col); row grows downwards
Shape = frozenset[Cell]                    # a set of cells, normalised: min row = min col = 0
Placement = tuple[str, tuple[Cell, ...]]   # (piece name, its cells sorted)
Solution = tuple[Placement, ...]           # a tiling: its placements, sorted
SymMap = dict[Cell, Cell]                  # one board symmetry as a cell -> cell map

KIND = "pentomino"
SENSE = None  # no objective: tasks are feasible and count

# The 12 free pentominoes (SPEC §2), in any one orientation: '#' = a cell.
PENTOMINOES: dict[str, str] = {
    "F": ".##\n##.\n.#.",
    "I": "#####",
    "L": "####\n#...",
    "N": "##..\n.###",
    "P": "##\n##\n#.",
    "T": "###\n.#.\n.#.",
    "U": "#.#\n###",
    "V": "#..\n#..\n###",
    "W": "#..\n##.\n.##",
    "X": ".#.\n###\n.#.",
    "Y": "####\n.#..",
    "Z": "##.\n.#.\n.##",
}
BOARD_CELL = "."        # in board art: a cell to cover; any other character is not part of the board
SHAPE_CELL = "#"        # in piece shapes: a cell; '.' or ' ' = empty
OFF_BOARD = " "         # in solution grids: a position inside the bounding box that is not a cell
# The 8 linear isometries of the square lattice as (a, b, c, d): (r, c) -> (a r + b c, c r + d c).
ISOMETRIES: tuple[tuple[int, int, int, int], ...] = (
    (1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),   # rotations by 0, 90, 180, 270
    (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0),   # the four reflections
)


def _apply(m: tuple[int, int, int, int], cell: Cell) -> Cell:
    a, b, c, d = m
    return (a * cell[0] + b * cell[1], c * cell[0] + d * cell[1])


def normalise(cells) -> Shape:
    """`cells` translated so that the smallest row and column are 0."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def orientations_of(shape: Shape) -> tuple[Shape, ...]:
    """The distinct fixed orientations (rotations and reflections) of a shape, in a stable order."""
    seen: dict[Shape, None] = {}
    for m in ISOMETRIES:
        seen.setdefault(normalise([_apply(m, x) for x in shape]), None)
    return tuple(seen)


def connected(cells) -> bool:
    """True when the cells form one edge-connected region."""
    cells = set(cells)
    if not cells:
        return False
    todo = [next(iter(cells))]
    seen = {todo[0]}
    while todo:
        r, c = todo.pop()
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


@dataclass(frozen=True)
class Piece:
    """A polyomino used `count` times; its fixed orientations are derived from `shape`."""

    name: str       # one character: the letter shown in solution grids
    shape: Shape
    count: int = 1

    @cached_property
    def orientations(self) -> tuple[Shape, ...]:
        return orientations_of(self.shape)

    @property
    def size(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Tiling(Instance):
    """A tiling problem: the board's cells (normalised to start at row 0, column 0) and the pieces."""

    name: str
    cells: frozenset[Cell]
    pieces: tuple[Piece, ...]
    source: str = ""

    @cached_property
    def height(self) -> int:
        return 1 + max(r for r, _ in self.cells)

    @cached_property
    def width(self) -> int:
        return 1 + max(c for _, c in self.cells)

    @cached_property
    def piece(self) -> dict[str, Piece]:
        return {p.name: p for p in self.pieces}

    def _repr_svg_(self) -> str:
        from .draw import svg
        return svg(self)


# ---- placements, symmetry, canonical forms ---------------------------------------------------
@dataclass(frozen=True)
class Place:
    """One placement of a piece on the board: `piece` indexes Tiling.pieces."""

    piece: int
    cells: tuple[Cell, ...]  # sorted

    def as_placement(self, inst: Tiling) -> Placement:
        return (inst.pieces[self.piece].name, self.cells)


@cache
def placements(inst: Tiling) -> tuple[Place, ...]:
    """Every placement of every piece on the board (piece order, then orientation, then offset)."""
    out = []
    board = inst.cells
    for i, p in enumerate(inst.pieces):
        for o in p.orientations:
            h = 1 + max(r for r, _ in o)
            w = 1 + max(c for _, c in o)
            for dr in range(inst.height - h + 1):
                for dc in range(inst.width - w + 1):
                    cells = [(r + dr, c + dc) for r, c in o]
                    if all(x in board for x in cells):
                        out.append(Place(i, tuple(sorted(cells))))
    return tuple(out)


@cache
def symmetries(inst: Tiling) -> tuple[SymMap, ...]:
    """The board's symmetry group as cell maps, identity first: every lattice isometry that maps
    the cell set onto itself (after translating the image back to row 0, column 0)."""
    out: list[SymMap] = []
    for m in ISOMETRIES:
        img = {x: _apply(m, x) for x in inst.cells}
        r0 = min(r for r, _ in img.values())
        c0 = min(c for _, c in img.values())
        mp = {x: (r - r0, c - c0) for x, (r, c) in img.items()}
        if set(mp.values()) == inst.cells:
            out.append(mp)
    return tuple(out)


def transform(sol: Solution, g: SymMap) -> Solution:
    """The image of a tiling under a board symmetry."""
    return tuple(sorted((name, tuple(sorted(g[x] for x in cells))) for name, cells in sol))


def canonical(inst: Tiling, sol: Solution, group: Sequence[SymMap] | None = None) -> Solution:
    """The smallest image of `sol` under the group (default: the board's whole group)."""
    return min(transform(sol, g) for g in (symmetries(inst) if group is None else group))


def one_per_orbit(inst: Tiling, sols: Sequence[Solution]) -> list[Solution]:
    """The first of `sols` in each orbit of the board's group, in order."""
    seen: set = set()
    kept = []
    for sol in sols:
        k = canonical(inst, sol)
        if k not in seen:
            seen.add(k)
            kept.append(sol)
    return kept


def as_solution(placed: Sequence[Placement]) -> Solution:
    """A tiling in its normal form: placements with sorted cells, sorted."""
    return tuple(sorted((name, tuple(sorted(tuple(x) for x in cells))) for name, cells in placed))


# ---- symmetry breaking ------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanNode:
    """One node of the symmetry-breaking plan (exact orbit counting, derived from the group).

    Among the tilings that contain every placement of `fixed` (placement indices), whose
    stabiliser in the board's group is `group`, keep only those in which `piece` (a piece used
    once) lies on an allowed placement: the smallest placement of each `group`-orbit of its
    placements. `free` are the kept placements whose stabiliser in `group` is trivial (each such
    orbit of tilings is counted exactly once); each kept placement with a non-trivial stabiliser
    becomes a child node that fixes it and breaks the remaining symmetry with another piece.
    `forbidden` lists the placements of `piece` (compatible with `fixed`) that are not kept.
    When no piece used once is left, `piece` is -1 and `residual` > 1 says how many symmetries
    remain: those tilings must be deduplicated by canonical form.
    """

    fixed: tuple[int, ...]
    piece: int
    free: tuple[int, ...]
    forbidden: tuple[int, ...]
    children: tuple["PlanNode", ...]
    residual: int = 1

    def leaves_exact(self) -> bool:
        """True when every branch ends with a trivial residual group (no deduplication needed)."""
        return self.residual == 1 and all(ch.leaves_exact() for ch in self.children)

    def nodes(self):
        """This node and all its descendants, depth first."""
        yield self
        for ch in self.children:
            yield from ch.nodes()


@cache
def symmetry_plan(inst: Tiling) -> PlanNode:
    """The plan: keep one placement of X (in general: the piece used once whose placements form
    the fewest orbits) per orbit of the group; where the kept placement is itself fixed by a
    non-trivial symmetry, restrict a further piece used once (preferring one the remaining
    symmetries move freely, such as P) under those symmetries, and so on.

    Counting the tilings that obey the plan counts each orbit exactly once (see PlanNode); the
    argument needs no property of the board beyond its group."""
    pls = placements(inst)
    group = symmetries(inst)
    index = {(p.piece, p.cells): i for i, p in enumerate(pls)}

    def image(i: int, g: SymMap) -> int:
        p = pls[i]
        return index[(p.piece, tuple(sorted(g[x] for x in p.cells)))]

    def node(fixed: tuple[int, ...], grp: tuple[SymMap, ...], used: frozenset[int]) -> PlanNode:
        if len(grp) == 1:
            return PlanNode(fixed, -1, (), (), ())
        covered = {x for i in fixed for x in pls[i].cells}
        best = None
        for k, pc in enumerate(inst.pieces):
            if pc.count != 1 or k in used:
                continue
            cand = [i for i, p in enumerate(pls) if p.piece == k and covered.isdisjoint(p.cells)]
            reps, nonfree = [], []
            seen: set[int] = set()
            for i in cand:
                if i in seen:
                    continue
                orbit = {image(i, g) for g in grp}
                seen |= orbit
                reps.append(i)  # cand is in increasing order: i is its orbit's smallest
                stab = tuple(g for g in grp if image(i, g) == i)
                if len(stab) > 1:
                    nonfree.append((i, stab))
            score = (len(reps), k) if not fixed else (len(nonfree), len(reps), k)
            if best is None or score < best[0]:
                best = (score, k, cand, reps, nonfree)
        if best is None:
            return PlanNode(fixed, -1, (), (), (), residual=len(grp))
        _, k, cand, reps, nonfree = best
        keep = set(reps)
        nf = {i for i, _ in nonfree}
        children = tuple(node(fixed + (i,), stab, used | {k}) for i, stab in nonfree)
        return PlanNode(fixed, k, tuple(i for i in reps if i not in nf),
                        tuple(i for i in cand if i not in keep), children)

    return node((), tuple(group), frozenset())


# ---- the independent checker ------------------------------------------------------------------
def check(inst: Tiling, solution) -> None:
    """Raise CheckError unless `solution` covers every board cell exactly once, uses each piece its
    number of times, and places each piece in one of its orientations; no objective (None).

    Accepts the solution tuple or its JSON form ({"placements": [[piece, [[r, c], ...]], ...]})."""
    if isinstance(solution, dict):
        solution = solution.get("placements", ())
    covered: dict[tuple[int, int], int] = {}
    used: dict[str, int] = {}
    forms = _chk_forms(inst.pieces)
    for i, pl in enumerate(solution):
        try:
            name, cells = pl
            cells = [(int(r), int(c)) for r, c in cells]
        except (TypeError, ValueError):
            raise CheckError(f"placement {i}: {pl!r} is not (piece, [(row, col), ...])") from None
        if name not in forms:
            raise CheckError(f"placement {i}: unknown piece {name!r}")
        if len(set(cells)) != len(cells):
            raise CheckError(f"placement {i} ({name}): a cell is listed twice")
        if not cells or _chk_key(cells) not in forms[name]:
            raise CheckError(f"placement {i} ({name}): cells {sorted(cells)} are not an orientation "
                             f"of piece {name}")
        for x in cells:
            if x not in inst.cells:
                raise CheckError(f"placement {i} ({name}): cell {x} is not on the board")
            if x in covered:
                raise CheckError(f"cell {x} is covered twice (placements {covered[x]} and {i})")
            covered[x] = i
        used[name] = used.get(name, 0) + 1
    missing = inst.cells - covered.keys()
    if missing:
        raise CheckError(f"{len(missing)} cells not covered, e.g. {min(missing)}")
    for p in inst.pieces:
        if used.get(p.name, 0) != p.count:
            raise CheckError(f"piece {p.name} used {used.get(p.name, 0)} times, required {p.count}")
    return None


@cache
def _chk_forms(pieces: tuple[Piece, ...]) -> dict[str, frozenset[frozenset[tuple[int, int]]]]:
    """Checker-only: every rotation/reflection of each piece's shape, translated to (0, 0)."""
    out = {}
    for p in pieces:
        forms = set()
        for swap in (False, True):
            for sr in (1, -1):
                for sc in (1, -1):
                    pts = [((c if swap else r) * sr, (r if swap else c) * sc) for r, c in p.shape]
                    forms.add(_chk_key(pts))
        out[p.name] = frozenset(forms)
    return out


def _chk_key(pts) -> frozenset[tuple[int, int]]:
    mr = min(q[0] for q in pts)
    mc = min(q[1] for q in pts)
    return frozenset((q[0] - mr, q[1] - mc) for q in pts)


# ---- identity, JSON, description, rendering ---------------------------------------------------
def solution_key(inst: Tiling, solution: Solution, up_to_symmetry: bool = False) -> Hashable:
    """A tiling is its set of placements (SPEC §2); up to symmetry, the canonical form of its orbit."""
    sol = as_solution(solution)
    return canonical(inst, sol) if up_to_symmetry else sol


def grid(inst: Tiling, solution: Solution) -> list[str]:
    """Rows of piece letters over the board's bounding box (' ' outside the board)."""
    g = [[OFF_BOARD] * inst.width for _ in range(inst.height)]
    for r, c in inst.cells:
        g[r][c] = BOARD_CELL
    for name, cells in solution:
        for r, c in cells:
            g[r][c] = name
    return ["".join(row) for row in g]


def solution_json(inst: Tiling, solution: Solution) -> dict:
    return {"grid": grid(inst, solution),
            "placements": [[name, [list(x) for x in cells]] for name, cells in solution]}


def describe(inst: Tiling) -> dict:
    pls = placements(inst)
    plan = symmetry_plan(inst)
    return {"kind": KIND, "name": inst.name, "cells": len(inst.cells),
            "box": f"{inst.height}x{inst.width}",
            "pieces": "".join(p.name * p.count for p in inst.pieces),
            "piece_area": sum(p.size * p.count for p in inst.pieces),
            "fixed_orientations": sum(len(p.orientations) for p in inst.pieces),
            "placements": len(pls), "symmetries": len(symmetries(inst)),
            "symmetry_breaking": _plan_summary(inst, plan), "source": inst.source}


def _plan_summary(inst: Tiling, plan: PlanNode) -> str:
    if plan.piece < 0:
        return "none needed" if plan.residual == 1 else "none possible (no piece used once)"
    parts = []
    for n in plan.nodes():
        if n.piece >= 0:
            kept = len(n.free) + len(n.children)
            parts.append(f"{inst.pieces[n.piece].name}: {kept} of {kept + len(n.forbidden)}"
                         + (f" given {len(n.fixed)} fixed" if n.fixed else ""))
    return "; ".join(parts[:4]) + (f"; … ({len(parts)} nodes)" if len(parts) > 4 else "") + \
        ("" if plan.leaves_exact() else "; plus canonical dedup")


def render(inst: Tiling, solution: Solution | None = None) -> str:
    """The board ('.' = cell) or the tiling as a grid of piece letters."""
    if solution is None:
        return "\n".join(row.rstrip() for row in grid(inst, ()))
    return "\n".join(row.rstrip() for row in grid(inst, solution))


def infeasible_reason(inst: Tiling) -> str | None:
    """Cheap invariants that prove there is no tiling: a piece that fits nowhere, or a board
    region whose area no combination of piece sizes can make (by the gcd of the sizes)."""
    pls = placements(inst)
    have = {p.piece for p in pls}
    for i, p in enumerate(inst.pieces):
        if i not in have:
            return f"piece {p.name} fits nowhere on the board"
    g = 0
    for p in inst.pieces:
        g = math.gcd(g, p.size)
    for region in _regions(inst.cells):
        if len(region) % g:
            return (f"a board region of {len(region)} cells is not a multiple of {g}, "
                    "the gcd of the piece sizes")
    return None


def _regions(cells) -> list[set[Cell]]:
    left = set(cells)
    out = []
    while left:
        todo = [left.pop()]
        reg = set(todo)
        while todo:
            r, c = todo.pop()
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in left:
                    left.discard(n)
                    reg.add(n)
                    todo.append(n)
        out.append(reg)
    return out


# ---- parsing ----------------------------------------------------------------------------------
def parse_board(art: str, src: Source, field: str = "board") -> frozenset[Cell]:
    """Board cells from ASCII art ('.' = a cell), normalised to start at row 0, column 0."""
    cells = [(r, c) for r, row in enumerate(art.split("\n")) for c, ch in enumerate(row)
             if ch == BOARD_CELL]
    if not cells:
        raise src.error(f"the board has no cells (mark the cells to cover with '{BOARD_CELL}')",
                        field=field)
    return normalise(cells)


def parse_shape(art: str, src: Source, field: str) -> Shape:
    """A piece shape from ASCII art ('#' = a cell, '.' or space = empty); must be connected."""
    cells = []
    for r, row in enumerate(art.split("\n")):
        for c, ch in enumerate(row):
            if ch == SHAPE_CELL:
                cells.append((r, c))
            elif ch not in ". \t\r":
                raise src.error(f"unexpected character {ch!r} in a shape (use '#' for a cell, "
                                "'.' or space for empty)", field=field)
    if not cells:
        raise src.error("the shape has no cells ('#')", field=field)
    if not connected(cells):
        raise src.error("the shape is not connected (its cells must join edge to edge)", field=field)
    return normalise(cells)


def pentomino_set(letters: str, src: Source, field: str = "pieces") -> tuple[Piece, ...]:
    """Pieces from a string of pentomino letters (a letter repeated = that many copies)."""
    counts: dict[str, int] = {}
    for ch in letters:
        if ch.isspace() or ch == ",":
            continue
        u = ch.upper()
        if u not in PENTOMINOES:
            raise src.error(f"unknown pentomino letter {ch!r} (the letters are "
                            f"{''.join(PENTOMINOES)})", field=field)
        counts[u] = counts.get(u, 0) + 1
    if not counts:
        raise src.error("no pieces given", field=field)
    fake = Source("builtin")
    return tuple(Piece(k, parse_shape(PENTOMINOES[k], fake, k), n) for k, n in counts.items())


def make(name: str, board: str, pieces: str = "FILNPTUVWXYZ", source: str = "") -> Tiling:
    """A Tiling from board art and pentomino letters (InputError on bad input).

    >>> t = make("2x5", "....." + chr(10) + ".....", "LP")
    >>> len(placements(t)) > 0, len(symmetries(t))
    (True, 4)
    """
    src = Source(name)
    return _build(name, parse_board(board, src), pentomino_set(pieces, src), src, source)


def _build(name: str, cells, pieces: tuple[Piece, ...], src: Source, source: str = "") -> Tiling:
    area = sum(p.size * p.count for p in pieces)
    if area != len(cells):
        raise src.error(f"the pieces cover {area} cells but the board has {len(cells)}",
                        field="pieces")
    return Tiling(name, frozenset(cells), pieces, source)


def from_toml(data: dict, src: Source) -> Tiling:
    """A Tiling from a parsed TOML table: `board` (art, '.' = cell) and optional `pieces`
    (pentomino letters, or a table of custom pieces `[pieces.X] shape = ..., count = N`)."""
    known = {"kind", "name", "board", "pieces", "source"}
    for k in data:
        if k not in known:
            raise src.error(f"unknown key '{k}' (known: {', '.join(sorted(known))})", field=k)
    art = require(data, "board", str, src)
    cells = parse_board(art, src)
    spec = require(data, "pieces", (str, dict), src, default="FILNPTUVWXYZ")
    if isinstance(spec, str):
        pieces = pentomino_set(spec, src)
    else:
        if not spec:
            raise src.error("the pieces table is empty", field="pieces")
        out = []
        for pname, d in spec.items():
            fld = f"pieces.{pname}"
            if len(pname) != 1 or not (pname.isalnum() and pname.isascii()):
                raise src.error("a piece name must be one letter or digit (it is shown in grids)",
                                field=fld)
            if not isinstance(d, dict):
                raise src.error("expected a table with 'shape' (and optional 'count')", field=fld)
            for k in d:
                if k not in ("shape", "count"):
                    raise src.error(f"unknown key '{k}' (known: count, shape)", field=f"{fld}.{k}")
            shape = parse_shape(require(d, "shape", str, src), src, f"{fld}.shape")
            count = require(d, "count", int, src, default=1)
            if count < 1:
                raise src.error("count must be at least 1", field=f"{fld}.count")
            out.append(Piece(pname, shape, count))
        pieces = tuple(out)
    name = require(data, "name", str, src, default=Path(src.name).stem)
    source = require(data, "source", str, src, default=str(src.name))
    return _build(name, cells, pieces, src, source)


SUFFIXES: dict = {}


# ---- catalogue --------------------------------------------------------------------------------
CATALOGUE = ("6x10", "5x12", "4x15", "3x20", "8x8-centre")


def catalogue() -> dict[str, Callable[[], Tiling]]:
    """The built-in boards of SPEC §2 (files in puzzles/data/pentomino/)."""
    def loader(short: str) -> Callable[[], Tiling]:
        def load() -> Tiling:
            res = resources.files(__package__).joinpath(f"data/pentomino/{short}.toml")
            with resources.as_file(res) as path:
                data = load_toml(path)
                src = Source(f"pentomino/{short}", Path(path), Path(path).read_text(encoding="utf-8"))
            data.setdefault("name", short)
            return from_toml(data, src)
        return load
    return {s: loader(s) for s in CATALOGUE}
