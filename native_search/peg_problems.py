"""Every single-vacancy → single-survivor problem of a board, one per symmetry orbit, solved.

A problem (v, f) starts with every hole full but v and must end with one peg, in f. The board's
symmetry group G acts on pairs; (v, f) and (g v, g f) have the same answer, so one pair per orbit
is solved: vacate holes are the least hole of each G-orbit, finish holes the least of each orbit of
the stabiliser of v. Each problem goes through the runner (compare.runner.solve) with `native:bfs`:
the position-class precheck answers INFEASIBLE at once where the GF(2) invariants separate start and
finish; otherwise the bidirectional BFS finds the minimum or proves none exists, and its jump
sequence is replayed by the independent checker.

>>> rows = list(problems(board("triangle5"), finish="same"))
>>> [(r.vacate, r.finish, r.min_moves) for r in rows]
[(0, 0, 10), (1, 1, 11), (3, 3, 9), (4, 4, None)]
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from puzzlesat.puzzles.core import Status
from puzzlesat.puzzles.peg import Board, Hole, PegInstance, Solution, board, hole_label

Pair = tuple[Hole, Hole]          # (vacate, finish)
ALL, SAME = "all", "same"         # the --vacate / --finish keywords


@dataclass
class Problem:
    """One solved problem: min_moves None means impossible; status UNKNOWN means not settled."""

    vacate: Hole
    finish: Hole
    status: Status
    min_moves: int | None
    solution: Solution | None
    proof: str                    # "position class", "search", or why not settled
    seconds: float
    orbit_size: int               # how many (vacate, finish) pairs this one stands for
    stats: dict = field(default_factory=dict)

    def json(self, b: Board) -> dict:
        return {"vacate": self.vacate, "finish": self.finish,
                "vacate_label": hole_label(b, self.vacate), "finish_label": hole_label(b, self.finish),
                "status": str(self.status), "min_moves": self.min_moves,
                "solution": [list(j) for j in self.solution] if self.solution is not None else None,
                "proof": self.proof, "orbit_size": self.orbit_size, "seconds": round(self.seconds, 3)}


def orbit_pairs(b: Board, vacate: Sequence[Hole] | str = ALL, finish: Sequence[Hole] | str = ALL
                ) -> list[tuple[Pair, int]]:
    """The least asked (vacate, finish) pair of each orbit of G that has asked pairs, with how many
    asked pairs that orbit holds; sorted. With everything asked, the representative is the orbit's
    least pair, so v is the least hole of its orbit (french37: c1, d1, b2, c2, d2, c3, d3, d4)."""
    vs = list(range(b.n)) if vacate == ALL else list(dict.fromkeys(vacate))
    groups: dict[Pair, set[Pair]] = {}  # orbit key (least image) -> the asked pairs in it
    for v in vs:
        fs = [v] if finish == SAME else (list(range(b.n)) if finish == ALL else list(finish))
        for f in fs:
            key = min((g[v], g[f]) for g in b.symmetries)
            groups.setdefault(key, set()).add((v, f))
    return sorted((min(asked), len(asked)) for asked in groups.values())


def problem_instance(b: Board, v: Hole, f: Hole) -> PegInstance:
    return PegInstance(f"{b.name}:{hole_label(b, v)}->{hole_label(b, f)}", b,
                       frozenset(range(b.n)) - {v}, frozenset({f}))


def problems(b: Board, vacate: Sequence[Hole] | str = ALL, finish: Sequence[Hole] | str = ALL,
             time_limit: float | None = None, limit: int | None = None) -> Iterator[Problem]:
    """Solve one problem per orbit (see the module docstring), yielding each as it is settled."""
    from puzzlesat.compare.registry import family
    from puzzlesat.compare.runner import solve
    fam = family("peg")
    for i, ((v, f), size) in enumerate(orbit_pairs(b, vacate, finish)):
        if limit is not None and i >= limit:
            return
        inst = problem_instance(b, v, f)
        t0 = time.perf_counter()
        r = solve(fam, inst, "native:bfs", "optimize", time_limit=time_limit,
                  isolate=time_limit is not None)
        sec = time.perf_counter() - t0
        if r.status is Status.OPTIMAL:
            yield Problem(v, f, r.status, r.objective, tuple(map(tuple, r.solutions[0])), "search",
                          sec, size, r.stats)
        elif r.status is Status.INFEASIBLE:
            proof = "search" if r.stats else "position class"
            yield Problem(v, f, r.status, None, None, proof, sec, size, r.stats)
        else:
            yield Problem(v, f, r.status, None, None, r.reason or str(r.status), sec, size, r.stats)


def minimum(rows: Sequence[Problem]) -> int | None:
    """The least min_moves over the solvable problems (None if none is solvable)."""
    ms = [r.min_moves for r in rows if r.min_moves is not None]
    return min(ms) if ms else None


__all__ = ["Problem", "orbit_pairs", "problems", "minimum", "problem_instance", "board"]
