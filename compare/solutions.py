"""Solutions handed back in a family's JSON form (what `solve --json` prints), converted to the
family's own solution type before the checker sees them.

A user engine may return either form; anything malformed raises CheckError, which the runner
reports as a failed solution (status ERROR), never as a crash.
"""
from __future__ import annotations

from typing import Any, Callable

from puzzlesat.puzzles.core import CheckError


def _ints(xs: Any, what: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in xs)
    except (TypeError, ValueError):
        raise CheckError(f"{what}: expected a list of integers, got {xs!r}") from None
    if any(isinstance(x, bool) for x in xs):
        raise CheckError(f"{what}: expected integers, got booleans")
    return out


def _peg(d: dict) -> tuple:
    jumps = d.get("jumps")
    if not isinstance(jumps, list):
        raise CheckError('peg solution JSON needs "jumps": [[from, over, to], ...]')
    out = []
    for i, j in enumerate(jumps):
        t = _ints(j, f"jump {i}")
        if len(t) != 3:
            raise CheckError(f"jump {i}: expected [from, over, to], got {j!r}")
        out.append(t)
    return tuple(out)


def _tiling(d: dict) -> tuple:
    pls = d.get("placements")
    if not isinstance(pls, list):
        raise CheckError('tiling solution JSON needs "placements": [[piece, [[r, c], ...]], ...]')
    out = []
    for i, p in enumerate(pls):
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], str)
                and isinstance(p[1], (list, tuple))):
            raise CheckError(f"placement {i}: expected [piece, [[r, c], ...]], got {p!r}")
        out.append((p[0], tuple(sorted(_ints(x, f"placement {i} cell") for x in p[1]))))
    return tuple(sorted(out))


def _sliding(d: dict) -> tuple:
    if not isinstance(d.get("moves"), list):
        raise CheckError('sliding solution JSON needs "moves": [tile, tile, ...]')
    return _ints(d["moves"], "moves")


def _maze(d: dict) -> tuple:
    if not isinstance(d.get("walk"), list):
        raise CheckError('maze solution JSON needs "walk": [node, node, ...]')
    return _ints(d["walk"], "walk")


FROM_JSON: dict[str, Callable[[dict], Any]] = {
    "peg": _peg, "pentomino": _tiling, "sliding": _sliding, "maze": _maze}


def from_json(kind: str, solution: Any) -> Any:
    """`solution` in the family's own type: a JSON dict is converted, anything else passes as is."""
    if isinstance(solution, dict):
        conv = FROM_JSON.get(kind)
        if conv is None:
            raise CheckError(f"family {kind} has no JSON solution form")
        return conv(solution)
    return solution
