"""Sudoku: the rules, instances, the independent checker, the JSON form, pictures, and the
collection format (one puzzle a line).

A 9x9 grid of cells in 3x3 boxes, some given a digit; fill every cell with 1..9 so that each row,
column and box holds every digit once. No objective: count the solutions (a proper puzzle has
exactly one) or find one.

Instances are one line of 81 characters, row by row, `1`-`9` a given and `.` or `0` an empty
cell (the form Sudoku collections are published in: P. Norvig's top95.txt, the SadMan `.sdm`
files); a collection file `.sdm` holds one puzzle a line. The catalogue holds the 95 puzzles of
G. Stertenbrink's "top95" collection (data/top95.sdm, data/README.md: source) as top95-01 ..
top95-95, and two small puzzles made here with known answers (data/README.md).

>>> inst = catalogue()["top95-01"]()
>>> inst.givens.count(0), describe(inst)["givens"]
(64, 17)
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from puzzlesat import CheckError, Source

# ---- vocabulary -------------------------------------------------------------------------------
Cell = int                      # 0..80, row-major: cell = 9 * row + col
Digit = int                     # 1..9 (0 in `givens`: an empty cell)
Grid = tuple[Digit, ...]        # 81 digits, row by row; a solution is a full grid

KIND = "sudoku"
SENSE = None                    # no objective: count the solutions, or find one
EMPTY = ".0"                    # characters of an empty cell in the one-line form
DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Sudoku:
    """A puzzle: `givens` holds the 81 cells row by row, 0 where the cell is empty."""

    name: str
    givens: Grid

    def _repr_svg_(self) -> str:
        return svg(self)


def units() -> list[tuple[str, tuple[Cell, ...]]]:
    """The 27 units (rows, columns, boxes) as (name, cells), for the checker and the messages."""
    rows = [(f"row {r + 1}", tuple(9 * r + c for c in range(9))) for r in range(9)]
    cols = [(f"column {c + 1}", tuple(9 * r + c for r in range(9))) for c in range(9)]
    boxes = [(f"box {b + 1}", tuple(9 * (3 * (b // 3) + i) + 3 * (b % 3) + j
                                     for i in range(3) for j in range(3))) for b in range(9)]
    return rows + cols + boxes


def line(inst: Sudoku) -> str:
    """The puzzle in the one-line form (`.` for an empty cell)."""
    return "".join(str(d) if d else "." for d in inst.givens)


# ---- the independent checker ------------------------------------------------------------------
def check(inst: Sudoku, solution: Grid) -> None:
    """CheckError unless `solution` fills all 81 cells with digits 1..9, keeps every given, and
    holds each digit once in every row, column and box; no objective (None)."""
    if not isinstance(solution, (tuple, list)) or len(solution) != 81:
        raise CheckError(f"expected 81 digits (the grid row by row), got {solution!r}"[:200])
    for cell, d in enumerate(solution):
        if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 9:
            raise CheckError(f"cell ({cell // 9 + 1}, {cell % 9 + 1}) holds {d!r}, not a digit 1..9"[:200])
        g = inst.givens[cell]
        if g and d != g:
            raise CheckError(f"cell ({cell // 9 + 1}, {cell % 9 + 1}) is given {g}, the solution has {d}")
    for name, cells in units():
        digits = sorted(solution[c] for c in cells)
        if digits != list(range(1, 10)):
            missing = sorted(set(range(1, 10)) - set(digits))
            raise CheckError(f"{name} lacks digit {missing[0]}" + (f" (it holds {digits})" if missing else ""))
    return None


def infeasible_reason(inst: Sudoku) -> str | None:
    """Two equal givens in one row, column or box: no solution (None when there are none)."""
    for name, cells in units():
        seen: dict[Digit, Cell] = {}
        for c in cells:
            d = inst.givens[c]
            if d and d in seen:
                return f"{name} is given {d} twice (cells {seen[d] + 1} and {c + 1} of the grid)"
            if d:
                seen[d] = c
    return None


# ---- JSON, summary, pictures -------------------------------------------------------------------
def solution_json(inst: Sudoku, solution: Grid) -> dict:
    """{"rows": [[9 digits], ... 9 rows]}."""
    return {"rows": [list(solution[9 * r: 9 * r + 9]) for r in range(9)]}


def solution_from_json(inst: Sudoku, data: dict) -> Grid:
    rows = data.get("rows")
    if not isinstance(rows, list) or len(rows) != 9 or not all(
            isinstance(r, list) and len(r) == 9 and all(isinstance(d, int) and not isinstance(d, bool)
                                                       for d in r) for r in rows):
        raise CheckError('Sudoku solution JSON needs "rows": 9 lists of 9 digits')
    return tuple(d for r in rows for d in r)


def describe(inst: Sudoku) -> dict:
    d = {"name": inst.name, "givens": sum(1 for g in inst.givens if g), "puzzle": line(inst)}
    if inst.name.startswith("top95-"):
        d["source"] = "G. Stertenbrink's top95 collection (data/README.md)"
    return d


def render(inst: Sudoku, solution: Grid | None = None) -> str:
    """The grid (the solution's where given, else the givens, '.' empty), boxes ruled."""
    grid = solution if solution is not None else inst.givens
    out = []
    for r in range(9):
        if r in (3, 6):
            out.append("------+-------+------")
        cells = [str(grid[9 * r + c]) if grid[9 * r + c] else "." for c in range(9)]
        out.append(" | ".join(" ".join(cells[i:i + 3]) for i in (0, 3, 6)))
    return "\n".join(out)


def svg(inst: Sudoku, solution: Grid | None = None) -> str:
    """The grid as SVG text: givens in black, the digits of a checked solution in blue."""
    s = 36
    w = 9 * s
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 4}" height="{w + 4}" '
           f'viewBox="-2 -2 {w + 4} {w + 4}">', f'<rect width="{w}" height="{w}" fill="white"/>']
    for i in range(10):
        width = 3 if i % 3 == 0 else 1
        out.append(f'<line x1="{i * s}" y1="0" x2="{i * s}" y2="{w}" stroke="#222" stroke-width="{width}"/>')
        out.append(f'<line x1="0" y1="{i * s}" x2="{w}" y2="{i * s}" stroke="#222" stroke-width="{width}"/>')
    for cell in range(81):
        given = inst.givens[cell]
        d = given or (solution[cell] if solution is not None else 0)
        if d:
            x, y = (cell % 9) * s + s / 2, (cell // 9) * s + s * 0.72
            colour = "#111" if given else "#1f5fbf"
            out.append(f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{s * 0.6}" '
                       f'text-anchor="middle" fill="{colour}">{d}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- input -------------------------------------------------------------------------------------
def parse(text: str, name: str, src: Source, field: str | None = None) -> Sudoku:
    """A puzzle from its one-line form: 81 characters, `1`-`9` given, `.` or `0` empty."""
    if len(text) != 81:
        raise src.error(f"expected 81 characters (the grid row by row), got {len(text)}", field=field)
    for i, ch in enumerate(text):
        if ch not in "123456789" + EMPTY:
            raise src.error(f"character {i + 1} is {ch!r}: expected 1-9 for a given, . or 0 for an "
                            "empty cell", field=field)
    return Sudoku(name, tuple(0 if ch in EMPTY else int(ch) for ch in text))


def from_toml(data: dict, src: Source) -> Sudoku:
    """kind = "sudoku"; puzzle = "4.....8.5.3..." (81 characters) or rows = ["4.....8.5", ...] (9
    rows of 9); name optional."""
    known = ("kind", "name", "puzzle", "rows")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise src.error(f"unknown key '{unknown[0]}' (known: {', '.join(known)})", field=unknown[0])
    name = data.get("name", src.name)
    if not isinstance(name, str):
        raise src.error("expected a string", field="name")
    if ("puzzle" in data) == ("rows" in data):
        raise src.error("give the grid as puzzle = \"81 characters\" or as rows = [9 strings], "
                        "one of them", field="puzzle" if "puzzle" in data else None)
    if "puzzle" in data:
        if not isinstance(data["puzzle"], str):
            raise src.error("expected a string of 81 characters", field="puzzle")
        return parse(data["puzzle"], name, src, "puzzle")
    rows = data["rows"]
    if not isinstance(rows, list) or len(rows) != 9 or not all(isinstance(r, str) and len(r) == 9
                                                               for r in rows):
        raise src.error("expected 9 strings of 9 characters", field="rows")
    return parse("".join(rows), name, src, "rows")


def read_line(text: str, src: Source) -> Sudoku | None:
    """One line of a collection file: the puzzle's 81 characters (anything after them and a space
    is a comment); a blank line or one starting with `#` holds no puzzle (None)."""
    words = text.split()
    if not words or words[0].startswith("#"):
        return None
    return parse(words[0], src.name, src)


COLLECTIONS = {".sdm": read_line}


def to_toml(inst: Sudoku) -> str:
    """The puzzle as an instance file (what `from_toml` reads back)."""
    return f'kind = "{KIND}"\nname = {json.dumps(inst.name)}\npuzzle = "{line(inst)}"\n'


# ---- catalogue ---------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _top95() -> tuple[str, ...]:
    lines = (DATA / "top95.sdm").read_text(encoding="utf-8").split()
    assert len(lines) == 95 and all(len(x) == 81 for x in lines), "data/top95.sdm is damaged"
    return tuple(lines)


# made here (data/README.md): row 1 lacks only a 9, in its first cell, which column 1 is given:
# no solution, though no unit is given a digit twice
NO_CANDIDATE = ".12345678" + "9" + "." * 71
# the solution of top95-01 (the one every engine finds, checked: the tests)
TOP95_01_SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
# ... with the corners of one rectangle emptied: rows 1-2, columns 2 and 4 (two boxes), holding
# 1 3 / 3 1, which may swap: exactly two solutions
RECTANGLE = (1, 3, 10, 12)


def _two_solutions() -> Sudoku:
    grid = [int(ch) for ch in TOP95_01_SOLUTION]
    for cell in RECTANGLE:
        grid[cell] = 0
    return Sudoku("two-solutions", tuple(grid))


def catalogue() -> dict[str, Callable[[], Sudoku]]:
    """top95-01 .. top95-95 (each has exactly one solution), `no-candidate` (none) and
    `two-solutions` (two)."""
    out: dict[str, Callable[[], Sudoku]] = {
        f"top95-{i + 1:02d}": (lambda i=i: parse(_top95()[i], f"top95-{i + 1:02d}", Source("top95")))
        for i in range(95)}
    out["no-candidate"] = lambda: parse(NO_CANDIDATE, "no-candidate", Source("no-candidate"))
    out["two-solutions"] = _two_solutions
    return out
