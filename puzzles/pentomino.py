"""Polyomino and polycube tiling: boards, pieces, placements, the problem's symmetry group,
canonical forms and the independent checker (Polyform Puzzler's catalogue). The symmetry-breaking plan the
engines use lives in `pentomino_breaking`.

A tiling covers every board cell exactly once with the instance's pieces, each used its number of
times — or, for a piece given a range (`count = "any"`, `min`/`max` in TOML), any number of times
within it, so that domino, tromino or polyomino-set tilings of a region are instances too. A tiling *is* its set of placements (piece name + cells): copies of one piece are
interchangeable, so swapping two copies is not a new tiling. Boards and pieces are 2D (cells
(row, col)) or 3D (cells (layer, row, col)). A 2D piece takes its rotations and reflections, or
with `one_sided` its rotations only; a 3D piece takes the 24 proper rotations of space (so a flat
piece also shows its mirror image; a chiral solid and its mirror are separate pieces).

Counting "up to symmetry" counts orbits under the problem's group: the lattice isometries that
map the board's cell set onto itself (2D: up to 8, 3D: up to 48; derived from the cells, never
hand-listed), of which the improper ones (reflections) count only when the piece set is closed
under reflection — each piece's mirror image is a piece of the set, with the same count — which is
derived from the pieces; such a symmetry renames each chiral piece to its mirror partner. With
`symmetry="rotations"` the group is the board's proper rotations only (as catalogues that count
mirror-image tilings apart do).

>>> inst = catalogue()["6x10"]()
>>> len(inst.cells), sum(len(p.orientations) for p in inst.pieces), len(symmetries(inst))
(60, 63, 4)
>>> soma = catalogue()["soma"]()
>>> len(board_symmetries(soma)), len(symmetries(soma)), sum(len(p.orientations) for p in soma.pieces)
(48, 48, 92)
>>> len(symmetries(soma, "rotations")), len(symmetries(inst, "rotations"))
(24, 2)
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Callable, Hashable, Sequence

from ..core.limits import MAX_ART_CHARS, TILING_MAX_CELLS, TILING_MAX_PIECES, too_big
from ..core.result import CheckError
from ..core.inputs import Instance, Source, load_toml, require, json_ints

# ---- vocabulary -------------------------------------------------------------------------------
Cell = tuple[int, ...]                     # (row, col) in 2D, (layer, row, col) in 3D
Shape = frozenset[Cell]                    # a set of cells, normalised: every coordinate's min = 0
Placement = tuple[str, tuple[Cell, ...]]   # (piece name, its cells sorted)
Solution = tuple[Placement, ...]           # a tiling: its placements, sorted
Iso = tuple[tuple[int, ...], tuple[int, ...]]  # signed permutation: x -> (s[i] * x[perm[i]])_i

KIND = "pentomino"
SENSE = None  # no objective: tasks are feasible and count

# The 12 free pentominoes, in any one orientation: '#' = a cell.
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
# The 5 free tetrominoes.
TETROMINOES: dict[str, str] = {"I": "####", "L": "###\n#..", "O": "##\n##", "S": ".##\n##.",
                               "T": "###\n.#."}
# The 8 tetracubes and the 7 Soma pieces as solids: a list of layers, each layer rows of '#'.
# A and B are the two screws (mirror images of each other), P the tripod ("branch").
TETRACUBES: dict[str, list[str]] = {
    "I": ["####"], "O": ["##\n##"], "L": ["###\n#.."], "T": ["###\n.#."], "S": [".##\n##."],
    "A": ["##\n.#", "..\n.#"], "B": ["##\n#.", "..\n#."], "P": ["##\n#.", "#.\n.."],
}
SOMA: dict[str, list[str]] = {"V": ["##\n#."], **{k: TETRACUBES[k] for k in "LTSABP"}}
# Named piece sets (TOML `pieces = "<name>"`); hexominoes are generated (the 35 free ones).
NAMED_SETS = ("tetrominoes", "pentominoes", "hexominoes", "one-sided-pentominoes", "soma",
              "tetracubes", "solid-pentominoes")
HEXOMINO_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi"  # the 35 in sorted canonical order
BOARD_CELL = "."        # in board art: a cell to cover; any other character is not part of the board
SHAPE_CELL = "#"        # in piece shapes: a cell; '.' or ' ' = empty
OFF_BOARD = " "         # in solution grids: a position inside the bounding box that is not a cell
DEFAULT_PIECES = "FILNPTUVWXYZ"
# The groups "up to symmetry" may count orbits of (option `symmetry`): the problem's whole group
# (reflections included when the piece set is closed under them), or its proper rotations only.
SYMMETRY_GROUPS = ("all", "rotations")


# ---- lattice geometry (any dimension) ---------------------------------------------------------
@cache
def isometries(dim: int) -> tuple[Iso, ...]:
    """The 2^d d! linear isometries of the d-dimensional cubic lattice (signed permutations),
    identity first, then the other proper ones (rotations), then the improper ones."""
    out = [(perm, signs) for perm in itertools.permutations(range(dim))
           for signs in itertools.product((1, -1), repeat=dim)]
    out.sort(key=lambda m: (not proper(m), m != (tuple(range(dim)), (1,) * dim)))
    return tuple(out)


def proper(m: Iso) -> bool:
    """True for a rotation (determinant +1), False for a reflection."""
    perm, signs = m
    inversions = sum(1 for i in range(len(perm)) for j in range(i) if perm[j] > perm[i])
    return (-1) ** inversions * math.prod(signs) == 1


def _apply(m: Iso, x: Cell) -> Cell:
    perm, signs = m
    return tuple(s * x[p] for p, s in zip(perm, signs))


def normalise(cells) -> Shape:
    """`cells` translated so that every coordinate's smallest value is 0."""
    cells = [tuple(x) for x in cells]
    lo = [min(x[i] for x in cells) for i in range(len(cells[0]))]
    return frozenset(tuple(v - o for v, o in zip(x, lo)) for x in cells)


def mirror(shape: Shape) -> Shape:
    """The mirror image of a shape (its last coordinate negated)."""
    return normalise([x[:-1] + (-x[-1],) for x in shape])


def orientations_of(shape: Shape, rotations_only: bool = False) -> tuple[Shape, ...]:
    """The distinct fixed orientations of a shape under the lattice isometries of its dimension
    (only the proper ones with `rotations_only`), in a stable order."""
    seen: dict[Shape, None] = {}
    for m in isometries(len(next(iter(shape)))):
        if rotations_only and not proper(m):
            continue
        seen.setdefault(normalise([_apply(m, x) for x in shape]), None)
    return tuple(seen)


def neighbours(x: Cell):
    """The 2d face neighbours of a cell."""
    for i in range(len(x)):
        for d in (1, -1):
            yield x[:i] + (x[i] + d,) + x[i + 1:]


def connected(cells) -> bool:
    """True when the cells form one face-connected region."""
    cells = {tuple(x) for x in cells}
    if not cells:
        return False
    todo = [next(iter(cells))]
    seen = {todo[0]}
    while todo:
        for n in neighbours(todo.pop()):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


EXACT = -1  # Piece.most when the piece is used exactly `count` times


@dataclass(frozen=True)
class Piece:
    """A polyomino or polycube used `count` times — or, with `most` given, between `count` and
    `most` times (None: no upper limit) — whose fixed orientations are derived from `shape`
    (2D: rotations and reflections, rotations only when `one_sided`; 3D: the 24 rotations)."""

    name: str       # one character: the letter shown in solution grids
    shape: Shape
    count: int = 1  # the number of copies used; with `most`: the fewest
    one_sided: bool = False
    most: int | None = EXACT  # EXACT: `count` copies; an int: at most that many; None: any number

    @property
    def exact(self) -> bool:
        """True when the piece is used exactly `count` times (no range)."""
        return self.most == EXACT

    def bounds(self, cells: int) -> tuple[int, int]:
        """(fewest, most) copies a tiling of `cells` board cells can use (no limit: as many as
        fit by area)."""
        if self.exact:
            return self.count, self.count
        cap = cells // self.size
        return self.count, cap if self.most is None else min(self.most, cap)

    def multiplicity(self) -> str:
        """The number of copies in words: '2', '0..3', '1..', 'any'."""
        if self.exact:
            return str(self.count)
        if self.most is None:
            return "any" if self.count == 0 else f"{self.count}.."
        return f"{self.count}..{self.most}"

    @property
    def dim(self) -> int:
        return len(next(iter(self.shape)))

    @property
    def rotations_only(self) -> bool:
        return self.one_sided or self.dim == 3

    @cached_property
    def orientations(self) -> tuple[Shape, ...]:
        return orientations_of(self.shape, self.rotations_only)

    @property
    def size(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Tiling(Instance):
    """A tiling problem: the board's cells (normalised to start at coordinate 0) and the pieces."""

    name: str
    cells: frozenset[Cell]
    pieces: tuple[Piece, ...]
    source: str = ""

    @cached_property
    def dim(self) -> int:
        return len(next(iter(self.cells)))

    @cached_property
    def extent(self) -> tuple[int, ...]:
        """The bounding box's size along each coordinate."""
        return tuple(1 + max(x[i] for x in self.cells) for i in range(self.dim))

    @property
    def height(self) -> int:
        return self.extent[-2]

    @property
    def width(self) -> int:
        return self.extent[-1]

    @cached_property
    def piece(self) -> dict[str, Piece]:
        return {p.name: p for p in self.pieces}

    def _repr_svg_(self) -> str:
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
            ext = [1 + max(x[k] for x in o) for k in range(inst.dim)]
            for off in itertools.product(*(range(e - s + 1) for e, s in zip(inst.extent, ext))):
                cells = [tuple(a + b for a, b in zip(x, off)) for x in o]
                if all(x in board for x in cells):
                    out.append(Place(i, tuple(sorted(cells))))
    return tuple(out)


class Sym(dict):
    """One symmetry of the problem: a cell -> cell map (the dict) and, for a reflection, the
    renaming of each piece to its mirror partner (`pmap` by piece index, `names` by name)."""

    def __init__(self, cells: dict, pmap: tuple[int, ...], names: dict[str, str], is_proper: bool):
        super().__init__(cells)
        self.pmap, self.names, self.proper = pmap, names, is_proper


def _translate_back(img: dict) -> dict:
    lo = [min(y[i] for y in img.values()) for i in range(len(next(iter(img.values()))))]
    return {x: tuple(v - o for v, o in zip(y, lo)) for x, y in img.items()}


@cache
def board_symmetries(inst: Tiling) -> tuple[tuple[Iso, dict], ...]:
    """The board's own symmetry group: every lattice isometry that maps the cell set onto itself
    (after translating the image back to coordinate 0), identity first, as (isometry, cell map)."""
    out = []
    for m in isometries(inst.dim):
        mp = _translate_back({x: _apply(m, x) for x in inst.cells})
        if set(mp.values()) == inst.cells:
            out.append((m, mp))
    return tuple(out)


@cache
def mirror_partners(pieces: tuple[Piece, ...]) -> tuple[int, ...] | None:
    """For each piece, the index of its mirror partner (itself when achiral), or None when the
    set is not closed under reflection (some piece's mirror image is no piece of the set with the
    same count). Pieces with the same orientation set are matched in order."""
    def cls(shape: Shape, rot: bool) -> frozenset:
        return frozenset(orientations_of(shape, rot))
    keys = [(cls(p.shape, p.rotations_only), p.count, p.most) for p in pieces]
    out = []
    for p in pieces:
        want = (cls(mirror(p.shape), p.rotations_only), p.count, p.most)
        same = [j for j, k in enumerate(keys) if k == want]
        mine = [j for j, k in enumerate(keys) if k == keys[pieces.index(p)]]
        if len(same) != len(mine):
            return None
        out.append(same[mine.index(pieces.index(p))])
    return tuple(out)


def check_group(symmetry: str) -> str:
    """`symmetry` if it names a group (SYMMETRY_GROUPS), else ValueError."""
    if symmetry not in SYMMETRY_GROUPS:
        raise ValueError(f"symmetry must be one of {', '.join(SYMMETRY_GROUPS)}, not {symmetry!r}")
    return symmetry


@cache
def symmetries(inst: Tiling, symmetry: str = "all") -> tuple[Sym, ...]:
    """The problem's symmetry group, identity first: the board's proper symmetries, and its
    improper ones when the piece set is closed under reflection (pieces renamed to partners);
    with `symmetry="rotations"` the board's proper symmetries only (no piece renamed)."""
    partners = mirror_partners(inst.pieces) if check_group(symmetry) == "all" else None
    ident = tuple(range(len(inst.pieces)))
    out = []
    for m, mp in board_symmetries(inst):
        if proper(m):
            out.append(Sym(mp, ident, {p.name: p.name for p in inst.pieces}, True))
        elif partners is not None:
            out.append(Sym(mp, partners, {p.name: inst.pieces[j].name
                                          for p, j in zip(inst.pieces, partners)}, False))
    return tuple(out)


def transform(sol: Solution, g: Sym | dict) -> Solution:
    """The image of a tiling under a symmetry."""
    names = getattr(g, "names", None)
    get = g.__getitem__
    if names is None:
        return tuple(sorted((name, tuple(sorted(map(get, cells)))) for name, cells in sol))
    return tuple(sorted((names[name], tuple(sorted(map(get, cells)))) for name, cells in sol))


def canonical(inst: Tiling, sol: Solution, group: Sequence[Sym] | None = None,
              symmetry: str = "all") -> Solution:
    """The smallest image of `sol` under `group` (default: the problem's group named by
    `symmetry`, SYMMETRY_GROUPS)."""
    return min(transform(sol, g) for g in (symmetries(inst, symmetry) if group is None else group))


def one_per_orbit(inst: Tiling, sols: Sequence[Solution], symmetry: str = "all") -> list[Solution]:
    """The first of `sols` in each orbit of the problem's group (`symmetry`), in order."""
    group = symmetries(inst, symmetry)
    seen: set = set()
    kept = []
    for sol in sols:
        k = canonical(inst, sol, group)
        if k not in seen:
            seen.add(k)
            kept.append(sol)
    return kept


def as_solution(placed: Sequence[Placement]) -> Solution:
    """A tiling in its normal form: placements with sorted cells, sorted."""
    return tuple(sorted((name, tuple(sorted(tuple(x) for x in cells))) for name, cells in placed))


# ---- the independent checker ------------------------------------------------------------------
def check(inst: Tiling, solution) -> None:
    """Raise CheckError unless `solution` covers every board cell exactly once, uses each piece its
    number of times, and places each piece in one of its allowed orientations; no objective.

    Accepts the solution tuple or its JSON form ({"placements": [[piece, [[r, c], ...]], ...]})."""
    if isinstance(solution, dict):
        solution = solution.get("placements", ())
    board = inst.cells
    covered: set = set()
    used: dict[str, int] = {}
    forms = _chk_forms(inst.pieces)
    for i, pl in enumerate(solution):
        try:
            name, cells = pl
            cells = [x if type(x) is tuple else tuple(int(v) for v in x) for x in cells]
        except (TypeError, ValueError):
            raise CheckError(f"placement {i}: {pl!r} is not (piece, [cell, ...])") from None
        if name not in forms:
            raise CheckError(f"placement {i}: unknown piece {name!r}")
        for x in cells:
            if x not in board:
                raise CheckError(f"placement {i} ({name}): cell {x} is not on the board")
            if x in covered:
                raise CheckError(f"cell {x} is covered twice (placement {i} and an earlier one "
                                 "or itself)")
            covered.add(x)
        if not cells or _chk_key(cells) not in forms[name]:
            raise CheckError(f"placement {i} ({name}): cells {sorted(cells)} are not an orientation "
                             f"of piece {name} that it may take")
        used[name] = used.get(name, 0) + 1
    if len(covered) != len(board):
        missing = board - covered
        raise CheckError(f"{len(missing)} cells not covered, e.g. {min(missing)}")
    for p in inst.pieces:
        n = used.get(p.name, 0)
        if p.most == EXACT and n != p.count:
            raise CheckError(f"piece {p.name} used {n} times, required {p.count}")
        if p.most != EXACT and (n < p.count or (p.most is not None and n > p.most)):
            raise CheckError(f"piece {p.name} used {n} times, allowed {p.multiplicity()}")
    return None


@cache
def _chk_forms(pieces: tuple[Piece, ...]) -> dict[str, frozenset[tuple]]:
    """Checker-only: each piece's allowed images — 2D: the 8 matrices [[a,b],[c,d]] with entries
    in {0,±1} that are orthogonal (4 with determinant 1 when one-sided); 3D: the orthogonal 3x3
    {0,±1} matrices with determinant 1 — applied to the shape, translated to the origin."""
    out = {}
    for p in pieces:
        d = len(next(iter(p.shape)))
        rot_only = p.one_sided or d == 3
        forms = set()
        for entries in itertools.product((-1, 0, 1), repeat=d * d):
            mat = [entries[r * d:(r + 1) * d] for r in range(d)]
            if any(sum(mat[r][k] * mat[s][k] for k in range(d)) != (r == s)
                   for r in range(d) for s in range(d)):
                continue  # not orthogonal
            det = (mat[0][0] * mat[1][1] - mat[0][1] * mat[1][0] if d == 2 else
                   sum(mat[0][k] * (mat[1][(k + 1) % 3] * mat[2][(k + 2) % 3]
                                    - mat[1][(k + 2) % 3] * mat[2][(k + 1) % 3]) for k in range(3)))
            if rot_only and det != 1:
                continue
            forms.add(_chk_key([tuple(sum(mat[r][k] * x[k] for k in range(d)) for r in range(d))
                                for x in p.shape]))
        out[p.name] = frozenset(forms)
    return out


def _chk_key(pts) -> tuple:
    """Checker-only: distinct cells translated to the origin, sorted."""
    if len(pts[0]) == 2:
        r0 = min(r for r, _ in pts)
        c0 = min(c for _, c in pts)
        return tuple(sorted([(r - r0, c - c0) for r, c in pts]))
    lo = [min(col) for col in zip(*pts)]
    return tuple(sorted(tuple(v - o for v, o in zip(q, lo)) for q in pts))


# ---- identity, JSON, description, rendering ---------------------------------------------------
def solution_key(inst: Tiling, solution: Solution, up_to_symmetry: bool = False,
                 symmetry: str = "all") -> Hashable:
    """A tiling is its set of placements; up to symmetry, the canonical form of its orbit under
    the group `symmetry` names ("all": the problem's whole group; "rotations": its proper
    rotations only; ignored without `up_to_symmetry`)."""
    if up_to_symmetry:
        group = symmetries(inst, symmetry)
        try:  # every image is sorted afresh: no need to normalise first
            return canonical(inst, solution, group)
        except (KeyError, TypeError):  # cells given as lists, or off the board
            return canonical(inst, as_solution(solution), group)
    return as_solution(solution)


def grid(inst: Tiling, solution: Solution) -> list:
    """Rows of piece letters over the board's bounding box (' ' outside the board); in 3D a list
    of layers, each such a list of rows."""
    if inst.dim == 3:
        return [grid(_layer(inst, z), [(n, [x[1:] for x in cells if x[0] == z])
                                       for n, cells in solution]) for z in range(inst.extent[0])]
    h, w = inst.extent
    g = [[OFF_BOARD] * w for _ in range(h)]
    for r, c in inst.cells:
        g[r][c] = BOARD_CELL
    for name, cells in solution:
        for r, c in cells:
            g[r][c] = name
    return ["".join(row) for row in g]


def _layer(inst: Tiling, z: int) -> Tiling:
    """Layer z of a 3D board as a 2D board of the same width and height (for drawing)."""
    cells = {x[1:] for x in inst.cells if x[0] == z}
    h, w = inst.extent[1:]
    return _Box2(frozenset(cells), (h, w))


@dataclass(frozen=True)
class _Box2:
    cells: frozenset
    extent: tuple[int, int]
    dim: int = 2


def solution_json(inst: Tiling, solution: Solution) -> dict:
    return {"grid": grid(inst, solution),
            "placements": [[name, [list(x) for x in cells]] for name, cells in solution]}


def solution_from_json(inst: Tiling, data: dict) -> Solution:
    """The tiling of `{"placements": [[piece, [[r, c], ...]], ...]}`; CheckError when malformed."""
    pls = data.get("placements")
    if not isinstance(pls, list):
        raise CheckError('tiling solution JSON needs "placements": [[piece, [[r, c], ...]], ...]')
    out = []
    for i, p in enumerate(pls):
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str)
                and isinstance(p[1], (list, tuple))):
            raise CheckError(f"placement {i}: expected [piece, [[r, c], ...]], got {p!r}")
        out.append((p[0], tuple(sorted(json_ints(x, f"placement {i} cell") for x in p[1]))))
    return tuple(sorted(out))


def svg(inst, solution=None) -> str:
    """The instance (and a checked solution) drawn as an SVG document (puzzles/draw/pentomino.py)."""
    from .draw.pentomino import draw
    return draw(inst, solution)


def describe(inst: Tiling) -> dict:
    from .pentomino_breaking import plan_summary
    pls = placements(inst)
    return {"kind": KIND, "name": inst.name, "cells": len(inst.cells),
            "box": "x".join(map(str, inst.extent)),
            "pieces": "".join(p.name * p.count if p.exact else f"{p.name}[{p.multiplicity()}]"
                              for p in inst.pieces),
            "one_sided": any(p.one_sided for p in inst.pieces),
            "piece_area": (sum(p.size * p.count for p in inst.pieces)
                           if all(p.exact for p in inst.pieces) else len(inst.cells)),
            "fixed_orientations": sum(len(p.orientations) for p in inst.pieces),
            "placements": len(pls), "board_symmetries": len(board_symmetries(inst)),
            "symmetries": len(symmetries(inst)), "rotations": len(symmetries(inst, "rotations")),
            "closed_under_reflection": mirror_partners(inst.pieces) is not None,
            "symmetry_breaking": plan_summary(inst), "source": inst.source}


def render(inst: Tiling, solution: Solution | None = None) -> str:
    """The board ('.' = cell) or the tiling as a grid of piece letters (3D: layers, blank-separated)."""
    g = grid(inst, solution or ())
    if inst.dim == 3:
        return "\n\n".join("\n".join(row.rstrip() for row in layer) for layer in g)
    return "\n".join(row.rstrip() for row in g)


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
            for n in neighbours(todo.pop()):
                if n in left:
                    left.discard(n)
                    reg.add(n)
                    todo.append(n)
        out.append(reg)
    return out


# ---- named piece sets -------------------------------------------------------------------------
def _art_cells(art: str, mark: str) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(art.split("\n")) for c, ch in enumerate(row) if ch == mark]


def _solid(layers: list[str]) -> Shape:
    return normalise([(z, r, c) for z, art in enumerate(layers) for r, c in _art_cells(art, "#")])


def _free_polyominoes(n: int) -> list[Shape]:
    """The free n-ominoes, each in its smallest orientation, sorted (grown cell by cell)."""
    def canon(cells) -> tuple:
        return min(tuple(sorted(o)) for o in orientations_of(normalise(cells)))
    shapes = {((0, 0),)}
    for _ in range(n - 1):
        shapes = {canon(s + (y,)) for s in shapes for x in s for y in neighbours(x) if y not in s}
    return [frozenset(s) for s in sorted(shapes)]


@cache
def named_set(name: str) -> tuple[Piece, ...]:
    """The pieces of a named set (NAMED_SETS), one of each."""
    if name == "pentominoes":
        return tuple(Piece(k, normalise(_art_cells(a, "#"))) for k, a in PENTOMINOES.items())
    if name == "tetrominoes":
        return tuple(Piece(k, normalise(_art_cells(a, "#"))) for k, a in TETROMINOES.items())
    if name == "hexominoes":
        return tuple(Piece(k, s) for k, s in zip(HEXOMINO_NAMES, _free_polyominoes(6)))
    if name == "one-sided-pentominoes":
        out = []
        for p in named_set("pentominoes"):
            out.append(Piece(p.name, p.shape, 1, True))
            m = mirror(p.shape)
            if m not in orientations_of(p.shape, True):  # chiral: its mirror is a second piece
                out.append(Piece(p.name.lower(), m, 1, True))
        return tuple(out)
    if name == "solid-pentominoes":
        return tuple(Piece(p.name, frozenset((0,) + x for x in p.shape))
                     for p in named_set("pentominoes"))
    if name in ("soma", "tetracubes"):
        return tuple(Piece(k, _solid(v)) for k, v in (SOMA if name == "soma" else TETRACUBES).items())
    raise KeyError(name)


# ---- parsing ----------------------------------------------------------------------------------
def _lines(art: str) -> list[str]:
    """The rows of an art string without the blank first/last line a TOML \"\"\" block adds."""
    rows = art.split("\n")
    while rows and not rows[0].strip():
        rows.pop(0)
    while rows and not rows[-1].strip():
        rows.pop()
    return rows


def parse_board(art, src: Source, field: str = "board") -> frozenset[Cell]:
    """Board cells from ASCII art ('.' = a cell), or from a list of layers (3D; every layer the
    same number of rows, every row the same length), normalised to start at coordinate 0."""
    if isinstance(art, str):
        cells = _art_cells(art, BOARD_CELL)
    else:
        if not art or not all(isinstance(a, str) for a in art):
            raise src.error("expected a list of layers, each a string of board art", field=field)
        rows0 = _lines(art[0])
        cells = []
        for z, layer in enumerate(art):
            rows = _lines(layer)
            size = (len(rows), max((len(r) for r in rows), default=0))
            if len(rows) != len(rows0) or any(len(r) != len(rows0[0]) for r in rows):
                raise src.error(f"layer {z + 1} is {size[0]} rows of length "
                                f"{sorted({len(r) for r in rows})}, but layer 1 is {len(rows0)} "
                                f"rows of {len(rows0[0]) if rows0 else 0} (3D layers must be "
                                "equal rectangles; mark non-cells with another character)",
                                field=field)
            cells += [(z, r, c) for r, row in enumerate(rows) for c, ch in enumerate(row)
                      if ch == BOARD_CELL]
    if not cells:
        raise src.error(f"the board has no cells (mark the cells to cover with '{BOARD_CELL}')",
                        field=field)
    return normalise(cells)


def parse_shape(art, src: Source, field: str) -> Shape:
    """A piece shape from ASCII art ('#' = a cell, '.' or space = empty), or a list of layers of
    such art (a 3D piece); must be connected."""
    layers = [art] if isinstance(art, str) else art
    if not layers or not all(isinstance(a, str) for a in layers):
        raise src.error("expected a string of shape art or a list of layers", field=field)
    cells = []
    for z, layer in enumerate(layers):
        for r, row in enumerate(layer.split("\n")):
            for c, ch in enumerate(row):
                if ch == SHAPE_CELL:
                    cells.append((r, c) if isinstance(art, str) else (z, r, c))
                elif ch not in ". \t\r":
                    raise src.error(f"unexpected character {ch!r} in a shape (use '#' for a cell, "
                                    "'.' or space for empty)", field=field)
    if not cells:
        raise src.error("the shape has no cells ('#')", field=field)
    if not connected(cells):
        raise src.error("the shape is not connected (its cells must join face to face)",
                        field=field)
    return normalise(cells)


def pentomino_set(letters: str, src: Source, field: str = "pieces",
                  one_sided: bool = False) -> tuple[Piece, ...]:
    """Pieces from a named set (NAMED_SETS) or a string of pentomino letters (a letter repeated =
    that many copies); `one_sided` makes 2D pieces rotate only."""
    if letters.strip() in NAMED_SETS:
        pieces = named_set(letters.strip())
    else:
        counts: dict[str, int] = {}
        for ch in letters:
            if ch.isspace() or ch == ",":
                continue
            u = ch.upper()
            if u not in PENTOMINOES:
                raise src.error(f"unknown pentomino letter {ch!r} (the letters are "
                                f"{''.join(PENTOMINOES)}; named sets: {', '.join(NAMED_SETS)})",
                                field=field)
            counts[u] = counts.get(u, 0) + 1
        if not counts:
            raise src.error("no pieces given", field=field)
        shapes = {p.name: p.shape for p in named_set("pentominoes")}
        pieces = tuple(Piece(k, shapes[k], n) for k, n in counts.items())
    if one_sided:
        pieces = tuple(Piece(p.name, p.shape, p.count, True, p.most) for p in pieces)
    return pieces


def make(name: str, board, pieces: str = DEFAULT_PIECES, source: str = "",
         one_sided: bool = False) -> Tiling:
    """A Tiling from board art (or a list of layers) and pentomino letters or a named set
    (InputError on bad input).

    >>> t = make("2x5", "....." + chr(10) + ".....", "LP")
    >>> len(placements(t)) > 0, len(symmetries(t))
    (True, 4)
    """
    src = Source(name)
    return _build(name, parse_board(board, src), pentomino_set(pieces, src, one_sided=one_sided),
                  src, source)


def _build(name: str, cells, pieces: tuple[Piece, ...], src: Source, source: str = "") -> Tiling:
    dim = len(next(iter(cells)))
    for p in pieces:
        if p.dim != dim:
            hint = " (for the 12 as solids use pieces = \"solid-pentominoes\")" if dim == 3 else ""
            raise src.error(f"piece {p.name} is {p.dim}D but the board is {dim}D{hint}",
                            field="pieces")
        if p.one_sided and dim == 3:
            raise src.error("one_sided applies to 2D pieces only (3D pieces always take the 24 "
                            "rotations; list a chiral solid's mirror image as its own piece)",
                            field="one_sided")
    names = [p.name for p in pieces]
    if len(set(names)) != len(names):
        raise src.error("two pieces share a name", field="pieces")
    n = len(cells)
    for p in pieces:
        if p.count < 0 or (p.most not in (EXACT, None) and p.most < p.count):
            raise src.error(f"piece {p.name}: multiplicity {p.multiplicity()} (at least 0, and "
                            "max at least min)", field=f"pieces.{p.name}")
        if p.size > n:
            raise src.error(f"piece {p.name} has {p.size} cells, more than the board's {n}",
                            field=f"pieces.{p.name}")
    if all(p.exact for p in pieces):
        area = sum(p.size * p.count for p in pieces)
        if area != n:
            raise src.error(f"the pieces cover {area} cells but the board has {n}", field="pieces")
    else:
        least = sum(p.size * p.count for p in pieces)
        most = None if any(p.most is None for p in pieces) else sum(
            p.size * (p.count if p.exact else p.most) for p in pieces)
        if least > n or (most is not None and most < n):
            raise src.error(f"the pieces cover {least} to {'any number of' if most is None else most} "
                            f"cells but the board has {n}", field="pieces")
    return Tiling(name, frozenset(cells), pieces, source)


def _art_size(art, src: Source, field: str) -> None:
    """InputError when board or shape art (a string or a list of layers) is beyond MAX_ART_CHARS."""
    n = len(art) if isinstance(art, str) else sum(len(a) for a in art if isinstance(a, str))
    if n > MAX_ART_CHARS:
        raise src.error(too_big("art", n, MAX_ART_CHARS, " characters"), field=field)


def from_toml(data: dict, src: Source) -> Tiling:
    """A Tiling from a parsed TOML table: `board` (art, '.' = cell, or a list of layers) or `size`
    ([x, y] or [x, y, z]: a full box, x columns, y rows, z layers); optional `pieces` (pentomino
    letters, a named set, or a table of custom pieces `[pieces.X] shape = ..., count = N`, a 3D
    shape as a list of layers; `count = "any"`: any number of copies, or `min = a` and/or `max = b`
    instead of `count`: between a (default 0) and b (default: no limit) copies) and `one_sided`
    (2D pieces rotate but do not reflect)."""
    known = {"kind", "name", "board", "size", "pieces", "one_sided", "source"}
    for k in data:
        if k not in known:
            raise src.error(f"unknown key '{k}' (known: {', '.join(sorted(known))})", field=k)
    if ("board" in data) == ("size" in data):
        raise src.error("give exactly one of 'board' (art) and 'size' ([x, y] or [x, y, z])",
                        field="board" if "board" in data else None)
    if "size" in data:
        size = require(data, "size", list, src)
        if len(size) not in (2, 3) or not all(isinstance(v, int) and not isinstance(v, bool)
                                              and v >= 1 for v in size):
            raise src.error("size must be [x, y] or [x, y, z], positive integers", field="size")
        if math.prod(size) > TILING_MAX_CELLS:
            raise src.error(too_big("board cells", math.prod(size), TILING_MAX_CELLS), field="size")
        cells = frozenset(itertools.product(*(range(v) for v in reversed(size))))
    else:
        board = require(data, "board", (str, list), src)
        _art_size(board, src, "board")
        cells = parse_board(board, src)
        if len(cells) > TILING_MAX_CELLS:
            raise src.error(too_big("board cells", len(cells), TILING_MAX_CELLS), field="board")
    one_sided = require(data, "one_sided", bool, src, default=False)
    spec = require(data, "pieces", (str, dict), src, default=DEFAULT_PIECES)
    if isinstance(spec, str):
        if len(spec) > MAX_ART_CHARS:
            raise src.error(too_big("pieces", len(spec), MAX_ART_CHARS, " characters"), field="pieces")
        pieces = pentomino_set(spec, src, one_sided=one_sided)
    else:
        if not spec:
            raise src.error("the pieces table is empty", field="pieces")
        if len(spec) > TILING_MAX_PIECES:
            raise src.error(too_big("pieces", len(spec), TILING_MAX_PIECES), field="pieces")
        out = []
        for pname, d in spec.items():
            fld = f"pieces.{pname}"
            if len(pname) != 1 or not (pname.isalnum() and pname.isascii()):
                raise src.error("a piece name must be one letter or digit (it is shown in grids)",
                                field=fld)
            if not isinstance(d, dict):
                raise src.error("expected a table with 'shape' (and optional 'count')", field=fld)
            for k in d:
                if k not in ("shape", "count", "min", "max"):
                    raise src.error(f"unknown key '{k}' (known: count, max, min, shape)",
                                    field=f"{fld}.{k}")
            art = require(d, "shape", (str, list), src)
            _art_size(art, src, f"{fld}.shape")
            shape = parse_shape(art, src, f"{fld}.shape")
            count, most = _multiplicity(d, src, fld)
            out.append(Piece(pname, shape, count, one_sided, most))
        pieces = tuple(out)
    name = require(data, "name", str, src, default=Path(src.name).stem)
    source = require(data, "source", str, src, default=str(src.name))
    return _build(name, cells, pieces, src, source)


def _multiplicity(d: dict, src: Source, fld: str) -> tuple[int, int | None]:
    """(count, most) of a `[pieces.X]` table: `count = N` (N >= 1 copies), `count = "any"` (any
    number), or `min` / `max` (between them; min defaults to 0, max to no limit)."""
    ranged = "min" in d or "max" in d
    if "count" in d and ranged:
        raise src.error("give either count or min/max, not both", field=f"{fld}.count")
    if not ranged:
        count = d.get("count", 1)
        if count == "any":
            return 0, None
        if not isinstance(count, int) or isinstance(count, bool):
            raise src.error(f"expected a whole number of copies or \"any\", got {count!r}"[:200],
                            field=f"{fld}.count")
        if count < 1:
            raise src.error(f"count must be at least 1, got {count} (use min = 0 for an optional "
                            "piece)", field=f"{fld}.count")
        return count, EXACT
    for k in ("min", "max"):
        v = d.get(k, 0)
        if not isinstance(v, int) or isinstance(v, bool):
            raise src.error(f"expected a whole number of copies, got {v!r}"[:200], field=f"{fld}.{k}")
    lo, hi = d.get("min", 0), d.get("max")
    if lo < 0:
        raise src.error(f"min must be at least 0, got {lo}", field=f"{fld}.min")
    if hi is not None and hi < max(lo, 1):
        raise src.error(f"max must be at least min and at least 1, got {hi}", field=f"{fld}.max")
    return lo, hi


def to_toml(inst: Tiling) -> str:
    """The instance as TOML text that from_toml reads back to an equal instance: the board as
    art (a list of layers in 3D), every piece as a `[pieces.X]` table of shape art and count."""
    q = json.dumps
    dim, ext = inst.dim, inst.extent

    def art(cells, mark: str, off: str, shape: tuple[int, ...]) -> list[str]:
        layers = []
        for z in range(shape[0] if len(shape) == 3 else 1):
            rows = []
            for r in range(shape[-2]):
                rows.append("".join(mark if ((z, r, c) if len(shape) == 3 else (r, c)) in cells
                                    else off for c in range(shape[-1])))
            layers.append("\n".join(rows))
        return layers
    board = art(inst.cells, BOARD_CELL, "#", ext)
    sided = {p.one_sided for p in inst.pieces}
    if len(sided) > 1:
        raise ValueError(f"{inst.name}: pieces with and without one_sided have no TOML form")
    out = ['kind = "pentomino"', f"name = {q(inst.name)}", f"source = {q(inst.source)}",
           f"board = {q(board[0]) if dim == 2 else '[' + ', '.join(map(q, board)) + ']'}"]
    if sided == {True}:
        out.append("one_sided = true")
    for p in inst.pieces:
        pext = tuple(1 + max(x[i] for x in p.shape) for i in range(p.dim))
        layers = art(p.shape, SHAPE_CELL, ".", pext)
        shape = q(layers[0]) if p.dim == 2 else "[" + ", ".join(map(q, layers)) + "]"
        out += [f"[pieces.{q(p.name)}]", f"shape = {shape}"]
        if p.exact:
            out.append(f"count = {p.count}")
        else:
            out.append(f"min = {p.count}")
            if p.most is not None:
                out.append(f"max = {p.most}")
    return "\n".join(out) + "\n"


SUFFIXES: dict = {}


# ---- catalogue --------------------------------------------------------------------------------
CATALOGUE = ("6x10", "5x12", "4x15", "3x20", "8x8-centre", "8x8-corners", "8x8-holes-1-6",
             "8x8-holes-2-5", "one-sided-3x30", "one-sided-6x15", "3x4x5", "2x5x6", "2x3x10",
             "soma", "tetracubes-2x4x4", "tetracubes-2x2x8")


def catalogue() -> dict[str, Callable[[], Tiling]]:
    """The built-in boards (files in puzzles/data/pentomino/)."""
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
