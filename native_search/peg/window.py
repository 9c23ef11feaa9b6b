"""Shorter peg solutions by exact searches over windows of a solution (local re-optimisation).

A solution of U moves passes through the positions P_0 (the start), P_1, …, P_U (the finish)
between its moves. A window is L consecutive moves i+1 … i+L, from P_i to P_{i+L}; its jumps touch
a set T of holes. The window's sub-board S is T with every hole within `margin` lattice steps of it
(the board's directions), at most 64 holes; a jump line of the board lies in S when its three holes
do. Pegs outside S are the same in P_i and P_{i+L}, and jumps on lines of S never touch them, so
any jump sequence on S from P_i ∩ S to P_{i+L} ∩ S can stand in for the window: the whole stays a
legal solution of the same problem. An exact search on S (native_search/peg/bfs.py, bidirectional
and pruned by the Merson bound, K = L - 1 moves) either finds a sequence of fewer moves — spliced
in, the solution loses at least L - that many moves (more when the new first move continues the
move before the window, which the checker counts) — or proves that no sequence *on S* does better
(a larger S might: a window is a heuristic step, the result an upper bound).

>>> from puzzlesat.puzzles.peg import board, check
>>> from puzzlesat.native_search.peg.problems import problem_instance
>>> b = board("triangle6")
>>> slow = ((5, 2, 0), (14, 9, 5), (18, 13, 9), (9, 5, 2), (0, 2, 5), (7, 8, 9), (9, 5, 2), (2, 4, 7),
...         (6, 7, 8), (16, 17, 18), (18, 12, 7), (3, 7, 12), (8, 12, 17), (20, 19, 18), (18, 17, 16),
...         (15, 16, 17), (17, 11, 6), (10, 6, 3), (3, 1, 0))
>>> check(problem_instance(b, 0, 0), slow)
12
>>> i, j = list(windows(slow, 6))[4]          # moves 5..10: jumps 5..14
>>> pos = _positions(frozenset(range(1, 21)), slow)
>>> found = window_search(b, pos[i], pos[j], sub_board(b, {h for x in slow[i:j] for h in x}), 5)
>>> check(problem_instance(b, 0, 0), slow[:i] + found + slow[j:])
11
"""
from __future__ import annotations

import time
from typing import Callable, Iterator, Sequence

from ...core.limits import PEG_BITBOARD_HOLES
from ...core.result import Context
from ...puzzles.peg import Board, Hole, Jump, PegInstance, Solution, moves

MARGIN = 1              # lattice steps around the window's holes
LENGTHS = (2, 3, 4, 5)  # window lengths in moves, tried in this order
SEARCH_SECONDS = 20.0   # time limit of one window's search
MEMORY = 512 << 20      # layer memory of one window's search (bytes)


def move_starts(sol: Sequence[Jump]) -> list[int]:
    """The index of each move's first jump, and len(sol) at the end."""
    out = [i for i in range(len(sol)) if i == 0 or sol[i][0] != sol[i - 1][2]]
    return out + [len(sol)]


def _positions(start: frozenset[Hole], sol: Sequence[Jump]) -> list[frozenset[Hole]]:
    out = [start]
    pegs = set(start)
    for a, m, c in sol:
        pegs -= {a, m}
        pegs.add(c)
        out.append(frozenset(pegs))
    return out


def sub_board(b: Board, touched: set[Hole], margin: int = MARGIN) -> list[Hole] | None:
    """The holes of the window's sub-board (sorted; see the module docstring), or None if it has
    more than PEG_BITBOARD_HOLES holes."""
    holes = set(touched)
    for _ in range(margin):
        grow = set(holes)
        for h in holes:
            x, y = b.coords[h]
            for dx, dy in b.directions:
                o = b.index.get((x + dx, y + dy))
                if o is not None:
                    grow.add(o)
        holes = grow
    return sorted(holes) if len(holes) <= PEG_BITBOARD_HOLES else None


def window_search(b: Board, before: frozenset[Hole], after: frozenset[Hole], holes: list[Hole],
                  k: int, seconds: float = SEARCH_SECONDS) -> Solution | None:
    """A jump sequence of at most k moves from `before` to `after` using only lines inside
    `holes` (actual hole ids), or None (none within k moves on those holes, or the time ran out)."""
    from .bfs import search
    sub = Board(f"{b.name}-window", tuple(b.coords[h] for h in holes), b.directions)
    ix = {h: i for i, h in enumerate(holes)}
    inst = PegInstance(f"{sub.name}", sub, frozenset(ix[h] for h in before if h in ix),
                       frozenset(ix[h] for h in after if h in ix))
    res = search(inst, prune=True, max_moves=k, ctx=Context(time_limit=seconds), memory=MEMORY)
    if res.moves is None or res.moves > k:
        return None
    return tuple((holes[a], holes[m], holes[c]) for a, m, c in res.solution)


def windows(sol: Sequence[Jump], length: int) -> Iterator[tuple[int, int]]:
    """(first jump, end jump) of every window of `length` whole moves, left to right."""
    st = move_starts(sol)
    for i in range(len(st) - 1 - length + 1):
        yield st[i], st[i + length]


def improve(b: Board, vacate: Hole, sol: Solution, lengths: Sequence[int] = LENGTHS,
            margin: int = MARGIN, seconds: float = SEARCH_SECONDS, deadline: float | None = None,
            on_better: Callable[[Solution, str], None] | None = None) -> Solution:
    """Window searches over `sol` (a solution from the single vacancy `vacate`) until a whole pass
    over every length finds nothing shorter, or the deadline (time.monotonic()) passes; each
    shorter solution is handed to `on_better(solution, how)` at once (the caller replays it) and
    the search goes on from it. Returns the shortest."""
    start = frozenset(range(b.n)) - {vacate}
    best = tuple(sol)
    tried: set[tuple] = set()  # (before, after, holes, k) searched without a gain
    improved = True
    while improved:
        improved = False
        for length in lengths:
            for i, j in windows(best, length):
                if deadline is not None and time.monotonic() > deadline:
                    return best
                pos = _positions(start, best)
                touched = {h for jump in best[i:j] for h in jump}
                holes = sub_board(b, touched, margin)
                if holes is None:
                    continue
                key = (pos[i], pos[j], tuple(holes), length - 1)
                if key in tried:
                    continue
                found = window_search(b, pos[i], pos[j], holes, length - 1, seconds)
                if found is None:
                    tried.add(key)
                    continue
                cand = best[:i] + found + best[j:]
                if moves(cand) < moves(best):
                    best = cand
                    improved = True
                    if on_better is not None:
                        on_better(best, f"window of {length} moves at jump {i} "
                                        f"({len(holes)}-hole sub-board)")
                    break
            if improved:
                break
    return best
