"""N-queens: the rules, instances, the independent checker, the JSON form and a picture.

The contract's members (puzzlesat.core.family.Puzzle): KIND, SENSE, catalogue, from_toml, check,
solution_json, solution_from_json, describe; optional: solution_key, render, svg.
Published counts (OEIS A000170, solutions of the empty n x n board): 1, 0, 0, 2, 10, 4, 40, 92,
352, 724, 2680, 14200 for n = 1..12.

>>> inst = catalogue()["queens-8"]()
>>> check(inst, (0, 4, 7, 5, 2, 6, 1, 3))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from puzzlesat import CheckError, Source

# ---- vocabulary -------------------------------------------------------------------------------
Row = int                     # 0..n-1, top to bottom
Col = int                     # 0..n-1, left to right
Solution = tuple[Col, ...]    # the queen's column in each row

KIND = "nqueens"
SENSE = None                  # no objective
MAX_N = 64                    # boards larger than this are refused (bitmask search, model size)
A000170 = (1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200)  # n = 1..12


@dataclass(frozen=True)
class Queens:
    """An n x n board with some queens placed already (`fixed`: (row, col) pairs)."""

    name: str
    n: int
    fixed: tuple[tuple[Row, Col], ...] = ()

    def _repr_svg_(self) -> str:
        return svg(self)


def check(inst: Queens, solution: Solution) -> None:
    """CheckError unless `solution` puts one queen in every row, none attacking another, and
    keeps the fixed queens; no objective (None)."""
    n = inst.n
    if not isinstance(solution, (tuple, list)) or len(solution) != n:
        raise CheckError(f"expected {n} columns (one per row), got {solution!r}"[:200])
    for r, c in enumerate(solution):
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < n:
            raise CheckError(f"row {r}: column {c!r} is off the {n}x{n} board")
    for r1 in range(n):
        for r2 in range(r1 + 1, n):
            c1, c2 = solution[r1], solution[r2]
            if c1 == c2 or abs(c1 - c2) == r2 - r1:
                raise CheckError(f"queens ({r1}, {c1}) and ({r2}, {c2}) attack each other")
    for r, c in inst.fixed:
        if solution[r] != c:
            raise CheckError(f"the queen placed at ({r}, {c}) moved to ({r}, {solution[r]})")
    return None


def solution_json(inst: Queens, solution: Solution) -> dict:
    return {"columns": list(solution)}


def solution_from_json(inst: Queens, data: dict) -> Solution:
    cols = data.get("columns")
    if not isinstance(cols, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in cols):
        raise CheckError('n-queens solution JSON needs "columns": [col of row 0, col of row 1, ...]')
    return tuple(cols)


def describe(inst: Queens) -> dict:
    return {"name": inst.name, "n": inst.n, "fixed": [list(p) for p in inst.fixed],
            "known_count": A000170[inst.n - 1] if not inst.fixed and inst.n <= len(A000170) else None}


def render(inst: Queens, solution: Solution | None = None) -> str:
    fixed = dict(inst.fixed)
    rows = []
    for r in range(inst.n):
        q = solution[r] if solution is not None else fixed.get(r)
        rows.append(" ".join("Q" if c == q else "." for c in range(inst.n)))
    return "\n".join(rows)


def svg(inst: Queens, solution: Solution | None = None) -> str:
    """The board (and the queens of a checked solution, or the fixed ones) as SVG text."""
    s, n = 40, inst.n
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{n * s}" height="{n * s}" '
           f'viewBox="0 0 {n * s} {n * s}">']
    for r in range(n):
        for c in range(n):
            fill = "#f0d9b5" if (r + c) % 2 == 0 else "#b58863"
            out.append(f'<rect x="{c * s}" y="{r * s}" width="{s}" height="{s}" fill="{fill}"/>')
    queens = enumerate(solution) if solution is not None else inst.fixed
    for r, c in queens:
        out.append(f'<circle cx="{c * s + s / 2}" cy="{r * s + s / 2}" r="{s / 3}" fill="#222"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def from_toml(data: dict, src: Source) -> Queens:
    """kind = "nqueens", n = 8, fixed = [[0, 0]] (optional): InputError naming the field."""
    unknown = sorted(set(data) - {"kind", "name", "n", "fixed"})
    if unknown:
        raise src.error(f"unknown key '{unknown[0]}' (known: kind, name, n, fixed)", field=unknown[0])
    n = data.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_N:
        raise src.error(f"expected an integer from 1 to {MAX_N}", field="n")
    fixed = data.get("fixed", [])
    if not isinstance(fixed, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                       and 0 <= x < n for x in p) for p in fixed):
        raise src.error(f"expected a list of [row, col] pairs on the {n}x{n} board", field="fixed")
    rows = [r for r, _ in fixed]
    if len(set(rows)) != len(rows):
        raise src.error("two fixed queens in one row", field="fixed")
    name = data.get("name", src.name)
    if not isinstance(name, str):
        raise src.error("expected a string", field="name")
    return Queens(name, n, tuple(sorted((r, c) for r, c in fixed)))


def catalogue() -> dict[str, Callable[[], Queens]]:
    """The empty boards of 1..12 (published counts) and one with a queen placed."""
    out: dict[str, Callable[[], Queens]] = {f"queens-{n}": (lambda n=n: Queens(f"queens-{n}", n))
                                            for n in range(1, 13)}
    out["queens-8-corner"] = lambda: Queens("queens-8-corner", 8, ((0, 0),))
    return out
