"""Hypothesis strategies shared by the tests: random small instances of each family."""
from __future__ import annotations

import itertools

from hypothesis import assume, strategies as st

from puzzlesat.core.inputs import Source
from puzzlesat.puzzles import peg
from puzzlesat.puzzles import pentomino as P
from puzzlesat.puzzles.peg import PegInstance, board
# ---- peg ---------------------------------------------------------------------------------------
@st.composite
def peg_tiny(draw):
    """A tiny board (4..10 holes of a small patch) with 2..7 pegs and maybe one finish hole."""
    kind = draw(st.sampled_from(["orthogonal", "triangular", "hoppers"]))
    w, h = (4, 4) if kind == "orthogonal" else (7, 4)
    pts = [(x, y) for y in range(h) for x in range(w) if kind == "orthogonal" or (x + y) % 2 == 0]
    holes = draw(st.lists(st.sampled_from(pts), min_size=4, max_size=10, unique=True))
    b = peg.Board("tiny", tuple(sorted(holes, key=lambda p: (p[1], p[0]))), peg.DIRECTION_SETS[kind])
    n = b.n
    pegs = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=min(7, n - 1), unique=True))
    fin = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    return peg.PegInstance("tiny", b, frozenset(pegs), None if fin is None else frozenset({fin}))


@st.composite
def peg_solvable(draw):
    """A random board (holes of a 5x5 orthogonal or triangular patch, at least 9) and a start made
    by 3..6 random unjumps from a one-peg finish, so that it is solvable and has regions and moves
    to count; the finish is that peg or (drawn) one peg anywhere."""
    kind = draw(st.sampled_from(["orthogonal", "triangular", "hoppers"]))
    w = 5 if kind == "orthogonal" else 9
    pts = [(x, y) for y in range(5) for x in range(w) if kind == "orthogonal" or (x + y) % 2 == 0]
    holes = draw(st.lists(st.sampled_from(pts), min_size=9, max_size=16, unique=True))
    b = peg.Board("rnd", tuple(sorted(holes, key=lambda p: (p[1], p[0]))), peg.DIRECTION_SETS[kind])
    last = draw(st.sampled_from(sorted({c for _, _, c in b.lines}) or [0]))
    pegs = {last}
    for _ in range(draw(st.integers(3, 7))):
        back = [(a, bb, c) for a, bb, c in b.lines if c in pegs and a not in pegs and bb not in pegs]
        if not back:
            break
        a, bb, c = back[draw(st.integers(0, len(back) - 1))]
        pegs = pegs - {c} | {a, bb}
    assume(len(pegs) >= 4)
    return peg.PegInstance("rnd", b, frozenset(pegs), draw(st.sampled_from([None, frozenset({last})])))


@st.composite
def peg_small(draw):
    """A built-in small board (hoppers, triangle4..6) with 3..8 random pegs, maybe a finish."""
    b = board(draw(st.sampled_from(["hoppers", "triangle4", "triangle5", "triangle6"])))
    k = draw(st.integers(3, min(8, b.n - 1)))
    pegs = frozenset(draw(st.lists(st.integers(0, b.n - 1), min_size=k, max_size=k, unique=True)))
    finish = None
    if draw(st.booleans()):
        finish = frozenset({draw(st.sampled_from(sorted(b.corners) + [draw(st.integers(0, b.n - 1))]))})
    return PegInstance("random", b, pegs, finish)


# ---- tiling ------------------------------------------------------------------------------------
def tilings_small():
    """Random small tilings: 3D boxes of polycubes, or 2D boards with one-sided pieces."""
    from hypothesis import strategies as st
    shapes2 = {"L": "##\n#.", "I": "###", "S": ".##\n##.", "J": "###\n#.."}
    shapes3 = {"V": ["##\n#."], "A": ["##\n.#", "..\n.#"], "B": ["##\n#.", "..\n#."],
               "P": ["##\n#.", "#.\n.."], "D": ["##"]}

    @st.composite
    def make(draw):
        three = draw(st.booleans())
        src = Source("h")
        if three:
            ext = (draw(st.integers(1, 2)), draw(st.integers(2, 3)), draw(st.integers(2, 3)))
            names = draw(st.lists(st.sampled_from(sorted(shapes3)), min_size=1, max_size=3,
                                  unique=True))
            shapes = {n: P.parse_shape(shapes3[n], src, n) for n in names}
            one_sided = False
        else:
            ext = (draw(st.integers(2, 4)), draw(st.integers(2, 5)))
            names = draw(st.lists(st.sampled_from(sorted(shapes2)), min_size=1, max_size=3,
                                  unique=True))
            shapes = {n: P.parse_shape(shapes2[n], src, n) for n in names}
            one_sided = draw(st.booleans())
        cells = set(itertools.product(*(range(e) for e in ext)))
        holes = draw(st.sets(st.sampled_from(sorted(cells)), max_size=2))
        cells -= holes
        left = len(cells)
        counts = {}
        for n in names:
            k = draw(st.integers(0, left // len(shapes[n])))
            counts[n] = k
            left -= k * len(shapes[n])
        pieces = [P.Piece(n, shapes[n], counts[n], one_sided) for n in names if counts[n]]
        if left:
            pieces.append(P.Piece("m", frozenset({(0,) * len(ext)}), left))
        if not cells or not pieces:
            return None
        return P.Tiling("h", P.normalise(cells), tuple(pieces))
    return make()


# ---- certify -----------------------------------------------------------------------------------
@st.composite
def cnf_small(draw):
    """(variables, clauses): 3..7 variables, 3n..7n clauses of 1..3 literals (mostly 3), dense
    enough to be unsatisfiable often."""
    n = draw(st.integers(3, 7))
    m = draw(st.integers(3 * n, 7 * n))
    clauses = []
    for _ in range(m):
        k = draw(st.sampled_from((1, 2, 2, 3, 3, 3, 3)))
        vs = draw(st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True))
        clauses.append([v if draw(st.booleans()) else -v for v in vs])
    return n, clauses
