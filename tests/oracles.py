"""Brute-force oracles shared by the tests: each recomputes an answer from the rules alone,
sharing no code with the engines (only the instance data and, where said, the checker)."""
from __future__ import annotations

import random
from collections import deque

import numpy as np

from puzzlesat.puzzles import peg
from puzzlesat.puzzles.sliding import Sliding, default_goal
# ---- peg ---------------------------------------------------------------------------------------
def peg_oracle(inst: peg.PegInstance) -> tuple[int | None, int]:
    """(minimum moves, number of optimal jump sequences) by plain exhaustive search."""
    lines = [(a, b, c) for a in range(inst.board.n) for (b, c) in inst.board.jump_table[a]]
    best, count = None, 0

    def rec(pegs, seq):
        nonlocal best, count
        if len(pegs) == (1 if inst.finish is None else len(inst.finish)):
            if inst.finish is None or pegs == inst.finish:
                m = peg.moves(seq)
                if best is None or m < best:
                    best, count = m, 1
                elif m == best:
                    count += 1
            return
        for a, b, c in lines:
            if a in pegs and b in pegs and c not in pegs:
                if not seq and inst.first_jump and (a, c) != inst.first_jump:
                    continue
                rec(pegs - {a, b} | {c}, seq + [(a, b, c)])
    rec(frozenset(inst.start), [])
    return best, count


def brute_table(b, vacates=None) -> dict:
    """{(v, f): min moves or None} for every vacate v (or those given) and finish f: plain BFS by
    moves over bitmask positions from each single-vacancy start (every prefix of a jump chain is
    one move)."""
    lines = [(1 << a, 1 << m, 1 << c, c) for a, m, c in b.lines]
    by_from: dict = {}
    for a, m, c in b.lines:
        by_from.setdefault(a, []).append((1 << a, 1 << m, 1 << c, c))
    full = (1 << b.n) - 1
    out = {}
    for v in (range(b.n) if vacates is None else vacates):
        start = full ^ (1 << v)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            d = dist[p] + 1
            stack = [(p ^ (A | M | C), c) for A, M, C, c in lines if p & A and p & M and not p & C]
            while stack:
                r, h = stack.pop()
                if r not in dist:
                    dist[r] = d
                    queue.append(r)
                for A, M, C, c in by_from.get(h, ()):
                    if r & M and not r & C:
                        stack.append((r ^ (A | M | C), c))
        for f in range(b.n):
            out[(v, f)] = dist.get(1 << f)
    return out


# ---- tiling ------------------------------------------------------------------------------------
# Published unique counts (Polyform Puzzler, D. Goodger; 3x4x5 also Bouwkamp 1981; Soma: 240
# unique, 11,520 in all), with the totals our engines find (all = Σ orbit sizes, tested below).
PUBLISHED_TILINGS = {"soma": (11520, 240), "2x3x10": (96, 12), "8x8-holes-2-5": (168, 21),
             "8x8-holes-1-6": (1504, 188), "one-sided-3x30": (184, 46), "8x8-corners": (17360, 2170),
             "3x4x5": (31520, 3940)}


def rotations3():
    """The 24 proper rotations of the cube as integer matrices: the closure of the quarter turns
    about x and z (numpy)."""
    rx = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    seen = {np.eye(3, dtype=int).tobytes(): np.eye(3, dtype=int)}
    todo = [np.eye(3, dtype=int)]
    while todo:
        m = todo.pop()
        for g in (rx, rz):
            n = g @ m
            if n.tobytes() not in seen:
                seen[n.tobytes()] = n
                todo.append(n)
    return list(seen.values())


def oracle_forms(cells, one_sided=False):
    """The allowed fixed orientations: 2D all 8 (rotations only when one-sided), 3D the 24
    rotations, each translated to the origin."""
    cells = [tuple(x) for x in cells]
    if len(cells[0]) == 3:
        mats = rotations3()
    else:
        mats = [np.array(m) for m in ([[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]],
                                      [[0, 1], [-1, 0]])]
        if not one_sided:
            mats += [m @ np.array([[1, 0], [0, -1]]) for m in mats]
    out = set()
    for m in mats:
        pts = [tuple(int(v) for v in m @ np.array(x)) for x in cells]
        lo = [min(p[k] for p in pts) for k in range(len(pts[0]))]
        out.add(frozenset(tuple(a - b for a, b in zip(p, lo)) for p in pts))
    return out


def tiling_oracle_count(board, pieces):
    """Count the sets of placements covering `board`; pieces {name: (cells, count, one_sided)}."""
    forms = {n: oracle_forms(c, o) for n, (c, _, o) in pieces.items()}
    left = {n: k for n, (_, k, _) in pieces.items()}

    def rec(empty):
        if not empty:
            return 1
        first = min(empty)
        total = 0
        for n in left:
            if not left[n]:
                continue
            for f in forms[n]:
                anchor = min(f)
                cells = {tuple(a - b + c for a, b, c in zip(x, anchor, first)) for x in f}
                if cells <= empty:
                    left[n] -= 1
                    total += rec(empty - cells)
                    left[n] += 1
        return total
    return rec(frozenset(board))


# ---- sliding -----------------------------------------------------------------------------------
def sliding_walk(rows, cols, seed, length, goal=None):
    """A solvable position: a random walk of the blank from the goal that never steps back."""
    rng = random.Random(seed)
    goal = default_goal(rows, cols) if goal is None else tuple(goal)
    b = list(goal)
    prev = None
    for _ in range(length):  # a random walk of the blank that never steps straight back
        z = b.index(0)
        r, c = divmod(z, cols)
        opts = [y for y, ok in ((z - cols, r > 0), (z + cols, r < rows - 1), (z - 1, c > 0),
                                (z + 1, c < cols - 1)) if ok and y != prev]
        y = rng.choice(opts)
        b[z], b[y] = b[y], 0
        prev = z
    return Sliding(f"{rows}x{cols}", rows, cols, tuple(b), goal)


# ---- maze --------------------------------------------------------------------------------------
def maze_snake(W, H, keep):
    """A pre-walked path snaking through rows 0..H-3, then zig-zagging down the last two rows,
    leaving a 2 x `keep` block (and dead-end columns) free: a big grid with a tiny search."""
    assert (H - 3) % 2 == 1
    p = []
    for y in range(H - 2):
        p += [y * W + x for x in (range(W) if y % 2 == 0 else range(W - 1, -1, -1))]
    for x in range(W - keep):
        col = [(H - 2) * W + x, (H - 1) * W + x]
        p += col if x % 2 == 0 else col[::-1]
    return tuple(p)
