"""Lights Out: the rules, instances, the independent checker, the JSON form, pictures, and the
solvability invariant.

An m x n board of lights, each on or off. Pressing a cell toggles it and its orthogonal
neighbours; the goal is every light off. Pressing a cell twice undoes it and presses commute, so
a solution is a *set* of pressed cells, and the objective is its size (SENSE "min"). Over GF(2)
the board is the linear system A x = b (A the symmetric press matrix, b the start): a start is
solvable iff b lies in the column space of A, i.e. iff b has an even number of lights on every
*quiet pattern* (a press set that changes nothing, a vector of the null space of A = A^T);
every solvable start has 2^k solutions, k the null-space dimension (Anderson & Feil, "Turning
Lights Out with Linear Algebra", Math. Magazine 71 (1998) 300-303).

`infeasible_reason` finds the quiet patterns by *light chasing* (the first row's presses
determine every later row; the quiet patterns are the first rows whose chase leaves the last row
dark), a different method from the native engine's Gaussian elimination, and shares no code
with it or with the models.

Published answers (OEIS, the all-on n x n board): A075464, the minimum number of presses,
1, 4, 5, 4, 15, 28, 33, 40, 25, 44, ... for n = 1, 2, ...; A159257, the null-space dimension,
0, 0, 0, 4, 2, 0, 0, 0, 8, 0, ... (A075462 = 2^A159257 solutions).

>>> inst = catalogue()["allon-3"]()
>>> check(inst, (0, 2, 4, 6, 8))
5
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from puzzlesat import CheckError, Source

# ---- vocabulary -------------------------------------------------------------------------------
Cell = int                    # 0..rows*cols-1, row-major: cell = row * cols + col
Presses = tuple[Cell, ...]    # a solution: the pressed cells, each at most once (ascending)

KIND = "lightsout"
SENSE = "min"                 # the number of presses
MAX_SIDE = 40                 # boards up to 40 x 40 (the native enumeration is 2^k, k <= min side)
ON, OFF = "1#", "0."          # characters of a TOML `lights` row

# OEIS A075464: minimum presses for the all-on n x n board, n = 1..20
A075464 = (1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141, 224)
# OEIS A159257: dimension of the null space of the n x n press matrix over GF(2), n = 1..20
A159257 = (0, 0, 0, 4, 2, 0, 0, 0, 8, 0, 6, 0, 0, 4, 0, 8, 2, 0, 16, 0)


@dataclass(frozen=True)
class LightsOut:
    """A rows x cols board; `on` lists the lit cells of the start, ascending."""

    name: str
    rows: int
    cols: int
    on: tuple[Cell, ...]

    def _repr_svg_(self) -> str:
        return svg(self)


def board(name: str, rows: int, cols: int, on=None) -> LightsOut:
    """A board with the cells `on` lit (default: every cell)."""
    cells = range(rows * cols) if on is None else on
    return LightsOut(name, rows, cols, tuple(sorted(set(cells))))


def from_rows(name: str, lights: list[str]) -> LightsOut:
    """A board drawn as row strings, '1' or '#' lit, '0' or '.' dark."""
    cols = len(lights[0])
    return LightsOut(name, len(lights), cols,
                     tuple(r * cols + c for r, row in enumerate(lights) for c, ch in enumerate(row)
                           if ch in ON))


def light_rows(inst: LightsOut) -> list[str]:
    """The start as row strings ('1' lit, '0' dark)."""
    lit = set(inst.on)
    return ["".join("1" if r * inst.cols + c in lit else "0" for c in range(inst.cols))
            for r in range(inst.rows)]


# ---- the independent checker ------------------------------------------------------------------
def check(inst: LightsOut, solution: Presses) -> int:
    """CheckError unless `solution` is a set of cells on the board whose presses turn every light
    off; else the number of presses."""
    rows, cols = inst.rows, inst.cols
    if not isinstance(solution, (tuple, list)):
        raise CheckError(f"expected a sequence of pressed cells, got {solution!r}"[:200])
    seen = set()
    for cell in solution:
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < rows * cols:
            raise CheckError(f"pressed cell {cell!r} is off the {rows}x{cols} board"[:200])
        if cell in seen:
            raise CheckError(f"cell ({cell // cols}, {cell % cols}) pressed twice: a solution is a "
                             "set of cells")
        seen.add(cell)
    grid = [[False] * cols for _ in range(rows)]
    for cell in inst.on:
        grid[cell // cols][cell % cols] = True
    for cell in solution:
        r, c = divmod(cell, cols)
        for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                grid[rr][cc] = not grid[rr][cc]
    lit = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c]]
    if lit:
        raise CheckError(f"{len(lit)} light(s) still on after the presses, first at {lit[0]}")
    return len(solution)


# ---- solvability: quiet patterns by light chasing ----------------------------------------------
def _chase(rows: int, cols: int, first: int) -> tuple[list[int], int]:
    """Light chasing on the dark board: press the first row as the bitmask `first`, then press
    under every light still on, row by row; (the press rows as bitmasks, the last row's lights)."""
    full = (1 << cols) - 1

    def toggled(p: int) -> int:  # the lights a row of presses toggles in its own row
        return (p ^ (p << 1) ^ (p >> 1)) & full

    presses = [first]
    light = toggled(first)              # the lights of row r (presses of rows r-1, r so far)
    for _ in range(1, rows):
        below = light                  # press under each light of row r: row r goes dark
        nxt = toggled(below) ^ presses[-1]
        presses.append(below)
        light = nxt
    return presses, light


def quiet_patterns(inst: LightsOut) -> list[tuple[Cell, ...]]:
    """A basis of the press sets that change nothing (the null space of the press matrix over
    GF(2)), each as its cells; its length is the null-space dimension."""
    rows, cols = inst.rows, inst.cols
    # the last row's lights after chasing is linear in the first row: its kernel is the null space
    images = [_chase(rows, cols, 1 << j)[1] for j in range(cols)]
    # kernel of the cols x cols matrix whose column j is images[j] (elimination on [image | unit])
    work = [(images[j], 1 << j) for j in range(cols)]
    for bit in range(cols):
        piv = next((i for i, (img, _) in enumerate(work) if img >> bit & 1), None)
        if piv is None:
            continue
        pimg, pcomb = work.pop(piv)
        work = [(img ^ pimg, comb ^ pcomb) if img >> bit & 1 else (img, comb) for img, comb in work]
    kernel = [comb for img, comb in work if img == 0]
    out = []
    for first in kernel:
        presses = _chase(rows, cols, first)[0]
        out.append(tuple(r * cols + c for r, p in enumerate(presses) for c in range(cols) if p >> c & 1))
    return out


def infeasible_reason(inst: LightsOut) -> str | None:
    """Why the start cannot be turned off (it is not in the column space of the press matrix over
    GF(2): it has an odd number of lights on a quiet pattern), or None when it can."""
    lit = set(inst.on)
    for q in quiet_patterns(inst):
        odd = sum(1 for cell in q if cell in lit)
        if odd % 2:
            cells = ", ".join(f"({c // inst.cols}, {c % inst.cols})" for c in q)
            return (f"unsolvable: the start is not in the column space of the press matrix over "
                    f"GF(2): an odd number ({odd}) of its lights lie on the quiet pattern "
                    f"{{{cells}}}, a press set that changes nothing, so every press set toggles "
                    "an even number of them")
    return None


# ---- JSON, summary, pictures -------------------------------------------------------------------
def solution_json(inst: LightsOut, solution: Presses) -> dict:
    return {"presses": [[c // inst.cols, c % inst.cols] for c in solution]}


def solution_from_json(inst: LightsOut, data: dict) -> Presses:
    ps = data.get("presses")
    if not isinstance(ps, list) or not all(
            isinstance(p, list) and len(p) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in p) for p in ps):
        raise CheckError('Lights Out solution JSON needs "presses": [[row, col], ...]')
    for r, c in ps:
        if not (0 <= r < inst.rows and 0 <= c < inst.cols):
            raise CheckError(f"pressed cell ({r}, {c}) is off the {inst.rows}x{inst.cols} board")
    return tuple(r * inst.cols + c for r, c in ps)


def solution_key(inst: LightsOut, solution: Presses) -> tuple[Cell, ...]:
    """A solution's identity: its set of cells (presses commute)."""
    return tuple(sorted(solution))


def describe(inst: LightsOut) -> dict:
    """The board, its start, and the published answers where there are (OEIS, all-on n x n)."""
    n_on = len(inst.on)
    d = {"name": inst.name, "rows": inst.rows, "cols": inst.cols, "lights_on": n_on,
         "lights": "all" if n_on == inst.rows * inst.cols else light_rows(inst) if n_on else "none"}
    n = inst.rows
    if inst.cols == n and len(inst.on) == n * n and n <= len(A075464):
        d.update(known_min_presses=A075464[n - 1], known_null_space_dim=A159257[n - 1],
                 known_solutions=2 ** A159257[n - 1],
                 source="OEIS A075464 (minimum presses), A159257 (null-space dimension), "
                        "A075462 (solutions) for the all-on n x n board")
    return d


def render(inst: LightsOut, solution: Presses | None = None) -> str:
    """The start ('#' lit, '.' dark), and the presses of a solution beside it ('X')."""
    lit, pressed = set(inst.on), set(solution or ())
    lines = []
    for r in range(inst.rows):
        start = "".join("#" if r * inst.cols + c in lit else "." for c in range(inst.cols))
        if solution is not None:
            start += "   " + "".join("X" if r * inst.cols + c in pressed else "."
                                     for c in range(inst.cols))
        lines.append(start)
    return "\n".join(lines)


def svg(inst: LightsOut, solution: Presses | None = None) -> str:
    """The start (lit cells yellow) and the presses of a checked solution (dots) as SVG text."""
    s = 32
    w, h = inst.cols * s, inst.rows * s
    lit, pressed = set(inst.on), set(solution or ())
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 2}" height="{h + 2}" '
           f'viewBox="-1 -1 {w + 2} {h + 2}">']
    for r in range(inst.rows):
        for c in range(inst.cols):
            cell = r * inst.cols + c
            fill = "#ffd23f" if cell in lit else "#3a3a3a"
            out.append(f'<rect x="{c * s}" y="{r * s}" width="{s}" height="{s}" fill="{fill}" '
                       'stroke="#111" stroke-width="2"/>')
            if cell in pressed:
                out.append(f'<circle cx="{c * s + s / 2}" cy="{r * s + s / 2}" r="{s / 5}" '
                           'fill="#e4572e" stroke="#111"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- input -------------------------------------------------------------------------------------
def _side(data: dict, key: str, src: Source) -> int | None:
    v = data.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_SIDE:
        raise src.error(f"expected an integer from 1 to {MAX_SIDE}", field=key)
    return v


def from_toml(data: dict, src: Source) -> LightsOut:
    """kind = "lightsout"; lights = "all" with rows and cols, or lights = ["101", "010"] (one string
    per row, '1'/'#' lit, '0'/'.' dark; rows and cols optional, checked when given)."""
    known = ("kind", "name", "rows", "cols", "lights")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise src.error(f"unknown key '{unknown[0]}' (known: {', '.join(known)})", field=unknown[0])
    rows, cols = _side(data, "rows", src), _side(data, "cols", src)
    name = data.get("name", src.name)
    if not isinstance(name, str):
        raise src.error("expected a string", field="name")
    if "lights" not in data:
        raise src.error('missing required key \'lights\' ("all", or a list of row strings)',
                        field="lights", line=None)
    lights = data["lights"]
    if lights == "all":
        if rows is None or cols is None:
            raise src.error('lights = "all" needs rows and cols', field="lights")
        return board(name, rows, cols)
    if not isinstance(lights, list) or not lights or not all(isinstance(r, str) for r in lights):
        raise src.error('expected "all" or a non-empty list of row strings such as "10110"',
                        field="lights")
    width = len(lights[0])
    for i, row in enumerate(lights):
        bad = sorted(set(row) - set(ON + OFF))
        if bad:
            raise src.error(f"row {i}: character {bad[0]!r} (use 1 or # for lit, 0 or . for dark)",
                            field="lights")
        if len(row) != width:
            raise src.error(f"row {i} has {len(row)} cells, row 0 has {width}", field="lights")
    if not 1 <= width <= MAX_SIDE or len(lights) > MAX_SIDE:
        raise src.error(f"the board must be 1 to {MAX_SIDE} cells on each side", field="lights")
    if rows is not None and rows != len(lights):
        raise src.error(f"rows = {rows} but lights has {len(lights)} rows", field="rows")
    if cols is not None and cols != width:
        raise src.error(f"cols = {cols} but the lights rows have {width} cells", field="cols")
    return from_rows(name, lights)


def generate(rows: int, cols: int, seed: int, how: str = "uniform", name: str | None = None) -> LightsOut:
    """A random start (same arguments, same board): "uniform" lights each cell, row by row, when
    random.Random(seed).random() < 0.5; "pressed" starts dark and presses each cell, row by row,
    on the same draw, so the start is solvable by construction."""
    import random
    if how not in ("uniform", "pressed"):
        raise ValueError(f"how: 'uniform' or 'pressed', not {how!r}")
    rng = random.Random(seed)
    lit: set[Cell] = set()
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.5:
                if how == "uniform":
                    lit.add(r * cols + c)
                    continue
                for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < rows and 0 <= cc < cols:
                        lit ^= {rr * cols + cc}
    return board(name or f"random-{rows}x{cols}-{how}-s{seed}", rows, cols, lit)


def to_toml(inst: LightsOut) -> str:
    """The board as an instance file (what `from_toml` reads back)."""
    rows = ", ".join(f'"{row}"' for row in light_rows(inst))
    return (f'kind = "{KIND}"\nname = {json.dumps(inst.name)}\nrows = {inst.rows}\n'
            f"cols = {inst.cols}\nlights = [{rows}]\n")


# ---- catalogue ---------------------------------------------------------------------------------
# random starts, kept as data: generate(rows, cols, seed, how) drew them (a test checks it)
RANDOM = {
    "random-4x7": ["1001110", "0110101", "1010011", "0011111"],                # uniform, seed 1
    "random-6x6": ["001100", "010001", "110000", "111111", "100011", "110001"],  # uniform, seed 2
    "random-7x9": ["101001101", "101010100", "000100110", "100001010", "011101010", "110000000",
                   "010000010"],                                              # uniform, seed 3
    "random-5x5": ["11111", "01011", "00110", "11100", "11001"],                # pressed, seed 4
    "random-8x8": ["00011000", "11001100", "00101101", "11101111", "11001110", "10000010",
                   "10101110", "01101000"],                                   # pressed, seed 5
}


def catalogue() -> dict[str, Callable[[], LightsOut]]:
    """The all-on n x n boards for n = 1..20 (published minimum presses, OEIS A075464), a few
    all-on rectangles, single lights on the 5x5 board (a corner: unsolvable; the centre), and
    random starts."""
    out: dict[str, Callable[[], LightsOut]] = {
        f"allon-{n}": (lambda n=n: board(f"allon-{n}", n, n)) for n in range(1, 21)}
    for r, c in ((2, 3), (3, 4), (4, 5), (5, 6), (3, 7), (6, 9)):
        out[f"allon-{r}x{c}"] = lambda r=r, c=c: board(f"allon-{r}x{c}", r, c)
    out["corner-5"] = lambda: board("corner-5", 5, 5, (0,))
    out["centre-5"] = lambda: board("centre-5", 5, 5, (12,))
    out["dark-4"] = lambda: board("dark-4", 4, 4, ())
    for name, lights in RANDOM.items():
        out[name] = lambda name=name, lights=lights: from_rows(name, lights)
    return out
