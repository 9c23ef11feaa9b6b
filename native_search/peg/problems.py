"""Every single-vacancy → single-survivor problem of a board, one per symmetry orbit, solved.

A problem (v, f) starts with every hole full but v and must end with one peg, in f. The board's
symmetry group G acts on pairs; (v, f) and (g v, g f) have the same answer, so one pair per orbit
is solved: vacate holes are the least hole of each G-orbit, finish holes the least of each orbit of
the stabiliser of v. The position classes answer INFEASIBLE at once where the GF(2) invariants
separate start and finish. The rest is solved by one of two methods:
- "table" (default): native_search/peg/table.py, all problems together — forward layers once per
  vacancy, backward layers once per orbit of finishes, met in the middle and streamed further; a
  problem it cannot settle within its depths is UNKNOWN with a proved lower bound (and an upper
  bound when a solution was found), never a wrong minimum or "impossible";
- "bfs": each problem through the runner (compare.runner.solve) with `native:bfs` (bidirectional).
Every solution is replayed by the independent checker (puzzles.peg.check) and must have exactly
the moves claimed.

>>> rows = list(problems(board("triangle5"), finish="same"))
>>> [(r.vacate, r.finish, r.min_moves) for r in rows]
[(0, 0, 10), (1, 1, 11), (3, 3, 9), (4, 4, None)]
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from ...core.result import Status
from ...puzzles.peg import Board, Hole, PegInstance, Solution, board, hole_label

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
    lower: int | None = None      # UNKNOWN: no solution has fewer moves (proved)
    upper: int | None = None      # UNKNOWN: `solution` has this many moves

    def provenance(self) -> tuple[str, str | None]:
        """(verified_in, date): "this run", or "earlier run" and its date for an answer read back
        from a work folder's sealed record."""
        if (self.stats or {}).get("verified_in") == "earlier run":
            return "earlier run", self.stats.get("verified_at")
        return "this run", None

    def json(self, b: Board) -> dict:
        verified_in, at = self.provenance()
        return {"vacate": self.vacate, "finish": self.finish, "verified_in": verified_in,
                **({"verified_at": at} if at else {}),
                "vacate_label": hole_label(b, self.vacate), "finish_label": hole_label(b, self.finish),
                "status": str(self.status), "min_moves": self.min_moves,
                "solution": [list(j) for j in self.solution] if self.solution is not None else None,
                "proof": self.proof, "orbit_size": self.orbit_size, "seconds": round(self.seconds, 3),
                "lower_bound": self.min_moves if self.min_moves is not None else self.lower,
                "upper_bound": self.min_moves if self.min_moves is not None else self.upper}

    def moves_text(self) -> str:
        """The table cell: the minimum, "impossible", or the proved bounds of an unsettled one."""
        if self.min_moves is not None:
            return str(self.min_moves)
        if self.status is Status.INFEASIBLE:
            return "impossible"
        if self.lower is not None and self.upper is not None:
            return f"{self.lower}..{self.upper}"
        if self.lower is not None:
            return f">={self.lower}"
        return str(self.status)


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


METHODS = ("table", "bfs")  # bfs: one runner call per problem (the compare layer)


def problems(b: Board, vacate: Sequence[Hole] | str = ALL, finish: Sequence[Hole] | str = ALL,
             time_limit: float | None = None, limit: int | None = None, method: str = "table",
             progress=None, **table_options) -> Iterator[Problem]:
    """Solve one problem per orbit (see the module docstring), yielding each as it is settled.
    `time_limit` is per problem (method table: times the number of problems searched, for all of
    them together); `table_options` go to table.solve_table."""
    pairs = orbit_pairs(b, vacate, finish)[:limit]
    if method != "table":  # bfs: each problem through the runner (compare/peg/problems.py)
        raise ValueError(f"method {method!r}: the native layer solves method 'table'")
    yield from _by_table(b, pairs, time_limit, progress, table_options)


def _by_table(b: Board, pairs, time_limit, progress, options) -> Iterator[Problem]:
    from ...puzzles.peg import check, infeasible_reason
    from .table import solve_table
    t0 = time.perf_counter()
    rest = [p for p, _ in pairs if infeasible_reason(problem_instance(b, *p)) is None]
    limit = None if time_limit is None else time_limit * max(1, len(rest))
    answers = solve_table(b, rest, time_limit=limit, progress=progress, **options) if rest else {}
    share = (time.perf_counter() - t0) / max(1, len(rest))  # the shared work, split evenly
    for (v, f), size in pairs:
        a = answers.get((v, f))
        if a is None:
            yield Problem(v, f, Status.INFEASIBLE, None, None, "position class", 0.0, size)
            continue
        moves = a.moves if a.status is Status.OPTIMAL else a.upper
        if a.solution is not None:
            try:
                got = check(problem_instance(b, v, f), a.solution)
            except Exception as e:  # the checker's verdict is final
                got = f"fails the checker: {e}"
            if got != moves:
                yield Problem(v, f, Status.ERROR, None, None, f"solution {got} != claimed {moves}",
                              share, size)
                continue
        if a.status is Status.OPTIMAL:
            yield Problem(v, f, a.status, a.moves, a.solution, a.how, share, size,
                          {"meet": list(a.meet)} if a.meet else {})
        elif a.status is Status.INFEASIBLE:
            yield Problem(v, f, a.status, None, None, "search", share, size, {"reason": a.how})
        else:
            yield Problem(v, f, Status.UNKNOWN, None, a.solution, a.how, share, size, {},
                          a.lower, a.upper)


def minimum(rows: Sequence[Problem]) -> int | None:
    """The least min_moves over the solved problems (None if none is solved)."""
    ms = [r.min_moves for r in rows if r.min_moves is not None]
    return min(ms) if ms else None


def minimum_proved(rows: Sequence[Problem]) -> bool:
    """Is minimum(rows) the minimum over every problem: no unsettled problem could beat it?"""
    m = minimum(rows)
    open_ = [r for r in rows if r.status not in (Status.OPTIMAL, Status.INFEASIBLE)]
    if m is None:
        return not open_
    return all(r.lower is not None and r.lower >= m for r in open_)


__all__ = ["Problem", "orbit_pairs", "problems", "minimum", "minimum_proved", "problem_instance", "board",
           "METHODS"]
