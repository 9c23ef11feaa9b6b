"""Task unique answered from an engine's count (engines with `unique_from_count`).

The engine is asked to COUNT through a watching Context: every solution it streams goes on to the
runner as usual, and its solution key (the family's `solution_key` under the run's identity
options: the projection) is noted. For a family without an objective the second distinct key is
enough — the watch stops the engine (`found` raises, and `remaining()` is 0 from then on, so an
engine that polls its limit stops too) and the answer is MULTIPLE with those two solutions. For an
optimisation family the solutions streamed on the way may not be optimal, so the count runs to its
end and its optimal solutions decide. The Outcome returned is the engine's answer to UNIQUE (see
core/result.py); the runner checks it like any other (both solutions through the checker, their
keys different; a count certificate with one blocking clause is the certificate of UNIQUE).
"""
from __future__ import annotations

import time
from typing import Any, Callable, Hashable

from ..core.result import Context, Outcome, Status, Task


class Enough(BaseException):
    """Raised inside an engine's `ctx.found` at the second distinct solution (a BaseException, so
    that an engine's `except Exception` does not swallow it)."""


class Watch(Context):
    """The engine's Context for a count that answers unique: streams on, keys noted, stops at two."""

    def __init__(self, ctx: Context, key: Callable[[Any], Hashable | None], stop_at_two: bool):
        super().__init__(ctx.options, None, ctx._progress, None)
        self.time_limit, self.start, self.deadline = ctx.time_limit, ctx.start, ctx.deadline
        self._outer, self._key, self._stop = ctx, key, stop_at_two
        self._found = self.found  # sub-contexts (ctx.sub) stream through the watch too
        self.first: dict[Hashable, Any] = {}  # the first two distinct solutions by key
        self.enough = False

    def remaining(self) -> float | None:
        return 0.0 if self.enough else super().remaining()

    def found(self, solution: Any) -> None:
        self._outer.found(solution)
        if self.enough:
            raise Enough
        if len(self.first) < 2:
            k = self._key(solution)
            if k is not None:
                self.first.setdefault(k, solution)
        if self._stop and len(self.first) >= 2:
            self.enough = True
            raise Enough


def _distinct(sols, key, limit: int = 2) -> list:
    """The first `limit` solutions of `sols` with distinct keys (a solution whose key cannot be
    computed is kept: the runner's checker will judge it)."""
    seen, out = set(), []
    for s in sols:
        k = key(s)
        if k is None or k not in seen:
            out.append(s)
            if k is not None:
                seen.add(k)
        if len(out) >= limit:
            break
    return out


def from_count(fn: Callable, inst: Any, ctx: Context, key: Callable[[Any], Hashable | None],
               optimisation: bool) -> Outcome:
    """The UNIQUE outcome of count engine `fn` on `inst` (see the module docstring)."""
    w = Watch(ctx, key, stop_at_two=not optimisation)
    t0 = time.perf_counter()
    try:
        out = fn(inst, Task.COUNT, w)
    except Enough:
        out = None
    if w.enough:
        stats = dict(out.stats) if isinstance(out, Outcome) and isinstance(out.stats, dict) else {}
        stats.update(count_lower_bound=2, stopped_after=round(time.perf_counter() - t0, 4))
        params = dict(out.params) if isinstance(out, Outcome) and isinstance(out.params, dict) else {}
        return Outcome(Status.OPTIMAL, None, None, tuple(w.first.values()), stats,
                       "MULTIPLE: the count stopped at its second distinct solution", params)
    if not isinstance(out, Outcome):
        return out  # the runner reports what the engine returned
    sols = list(out.solutions or ()) or list(w.first.values())
    two = _distinct(sols, key)
    if out.status is Status.OPTIMAL:
        if out.count == 1 and len(two) == 1:
            return Outcome(Status.OPTIMAL, out.objective, 1, tuple(two), out.stats, out.reason,
                           out.params, out.certificate)
        if out.count == 0 and not two:
            return Outcome(Status.INFEASIBLE, None, 0, (), out.stats, out.reason, out.params,
                           out.certificate)
        if out.count is not None and out.count >= 2 and len(two) == 2:
            stats = {**out.stats, "count": out.count}
            return Outcome(Status.OPTIMAL, out.objective, None, tuple(two), stats,
                           f"MULTIPLE: the count found {out.count}", out.params)
        # an inconsistent count: hand the runner every solution, it finds what is wrong
        return Outcome(Status.OPTIMAL, out.objective, out.count, tuple(sols), out.stats,
                       out.reason, out.params, out.certificate)
    if out.status is Status.INFEASIBLE:
        return Outcome(Status.INFEASIBLE, None, 0, tuple(sols), out.stats, out.reason, out.params,
                       out.certificate)
    return Outcome(out.status, out.objective, None, tuple(two), out.stats, out.reason, out.params,
                   out.certificate)


__all__ = ["from_count", "Watch", "Enough"]
