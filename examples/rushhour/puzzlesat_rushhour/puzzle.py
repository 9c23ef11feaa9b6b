"""Rush Hour: the rules, instances, the independent checker, the JSON form and pictures.

Rush Hour (Nob Yoshigahara, 1970s; ThinkFun 1996): vehicles of length 2 (cars) and 3 (trucks)
lie on a rows x cols board (6 x 6 in the game), each sliding along its own row (horizontal) or
column (vertical), never through another vehicle or a wall; the red car (length 2, horizontal)
must reach the exit on the right edge of its row. The puzzle is solved when the red car's right
end touches the exit (its offset is cols - 2): the last move brings it there.

Two metrics, an instance field (`metric`), because the objective the checker recomputes and the
published answers both depend on it: *moves* (one vehicle slides any distance: one move; the
cards' and Fogleman's counts) and *steps* (one vehicle slides one cell: one step; Collette,
Raskin and Servais's count). A solution is the sequence of moves (vehicle, signed distance: +
right/down, - left/up); the checker replays it cell by cell.

The contract's members (puzzlesat.core.family.Puzzle): KIND, SENSE, catalogue, from_toml, check,
solution_json, solution_from_json, describe; optional: solution_key, render, svg,
infeasible_reason.

Published anchors (data/cards.toml and ANCHORS below):
  the 40 cards of the original game: board strings and their optimal path lengths from the
  norush project (RushHourPuzzles.java), the boards of cards 1, 2 and 28-40 cross-checked
  against Glenn A. Iba's Rush Hour start lists (1998);
  Collette, Raskin & Servais (2006): the hardest 6x6 configuration, 93 steps, in a connected
  component of 24,132 positions (board as in Fogleman's rush README: 49 moves, 93 steps);
  Fogleman (2018), the database of every interesting 6x6 position: the hardest without walls,
  51 moves in a cluster of 4,780 positions, and the hardest with walls, 60 moves, 2,332.

>>> inst = catalogue()["card-01"]()
>>> inst.board()[2], inst.red.id, inst.goal
('PXXQ.O', 'X', 4)
>>> check(inst, (("A", 1), ("C", -3), ("O", 3), ("P", -1), ("B", -1), ("R", -2), ("Q", 2), ("X", 3)))
8
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Callable, Hashable

from puzzlesat import CheckError, Source

# ---- vocabulary -------------------------------------------------------------------------------
Cell = int                      # r * cols + c, 0..rows*cols-1, row-major from the top left
VehicleId = str                 # its letter on the board ("X" the red car in the cards' notation)
Offset = int                    # a vehicle's place along its line: leftmost column / top row
Move = tuple[VehicleId, int]    # (vehicle, signed distance): + right/down, - left/up, never 0
Solution = tuple[Move, ...]     # the moves in order; the last one brings the red car to the exit
Metric = str                    # "moves" (one per move) | "steps" (one per cell slid)

KIND = "rushhour"
SENSE = "min"
METRICS = ("moves", "steps")
LENGTHS = (2, 3)                # cars and trucks
MIN_SIDE, MAX_SIDE = 2, 8       # board sides accepted
EMPTY = ".o"                    # empty cell in a board string ('.' cards, 'o' Fogleman)
WALL = "x#"                     # fixed wall ('x' Fogleman)


@dataclass(frozen=True)
class Vehicle:
    """One vehicle: its letter, orientation, length, line (its row if horizontal, else its
    column) and start offset along that line."""

    id: VehicleId
    horizontal: bool
    length: int
    line: int
    offset: Offset

    def cells(self, cols: int, offset: Offset | None = None) -> tuple[Cell, ...]:
        """The cells it covers at `offset` (default: its start)."""
        o = self.offset if offset is None else offset
        if self.horizontal:
            return tuple(self.line * cols + o + i for i in range(self.length))
        return tuple((o + i) * cols + self.line for i in range(self.length))


@dataclass(frozen=True)
class RushHour:
    """A Rush Hour position: the board's size, its vehicles (the red car first, the others by
    letter), fixed walls, the metric, and the published optimum / component size where known."""

    name: str
    rows: int
    cols: int
    vehicles: tuple[Vehicle, ...]
    walls: tuple[Cell, ...] = ()
    metric: Metric = "moves"
    optimum: int | None = None          # published optimum in this metric (None: none)
    component: int | None = None        # published size of the start's connected component
    source: str = ""                    # where the published numbers come from

    @property
    def red(self) -> Vehicle:
        return self.vehicles[0]

    @property
    def goal(self) -> Offset:
        """The red car's offset when it touches the exit."""
        return self.cols - self.red.length

    def board(self) -> tuple[str, ...]:
        """The start position as row strings ('.' empty, 'x' wall, letters)."""
        return board_rows(self, {v.id: v.offset for v in self.vehicles})

    def _repr_svg_(self) -> str:
        return svg(self)


def board_rows(inst: RushHour, offsets: dict[VehicleId, Offset]) -> tuple[str, ...]:
    """Row strings of the position where each vehicle sits at `offsets`."""
    g = ["."] * (inst.rows * inst.cols)
    for c in inst.walls:
        g[c] = "x"
    for v in inst.vehicles:
        for c in v.cells(inst.cols, offsets[v.id]):
            g[c] = v.id
    return tuple("".join(g[r * inst.cols:(r + 1) * inst.cols]) for r in range(inst.rows))


# ---- the independent checker ------------------------------------------------------------------
def check(inst: RushHour, solution: Solution) -> int:
    """CheckError unless `solution` is a sequence of legal moves (each vehicle slides along its
    line, cell by cell, over empty cells inside the board) after which the red car touches the
    exit, and not before the last move; else the objective in the instance's metric (moves:
    their number; steps: the cells slid)."""
    if not isinstance(solution, (tuple, list)):
        raise CheckError(f"expected a sequence of (vehicle, distance) moves, got {solution!r}"[:200])
    rows, cols = inst.rows, inst.cols
    grid: dict[tuple[int, int], str] = {(w // cols, w % cols): "#" for w in inst.walls}
    body: dict[str, list[tuple[int, int]]] = {}   # id -> its cells (row, col), in line order
    axis: dict[str, tuple[int, int]] = {}         # id -> its unit step (drow, dcol)
    for v in inst.vehicles:
        r, c = (v.line, v.offset) if v.horizontal else (v.offset, v.line)
        axis[v.id] = (0, 1) if v.horizontal else (1, 0)
        body[v.id] = [(r + i * axis[v.id][0], c + i * axis[v.id][1]) for i in range(v.length)]
        for cell in body[v.id]:
            grid[cell] = v.id
    red = inst.vehicles[0].id
    exit_cell = (body[red][0][0], cols - 1)
    if exit_cell in body[red]:
        if solution:
            raise CheckError("the red car is at the exit already: no move may follow")
        return 0
    total = 0
    for k, mv in enumerate(solution, 1):
        if not isinstance(mv, (tuple, list)) or len(mv) != 2:
            raise CheckError(f"move {k}: expected (vehicle, distance), got {mv!r}"[:200])
        vid, d = mv
        if not isinstance(vid, str) or vid not in body:
            raise CheckError(f"move {k}: no vehicle {vid!r} on the board"[:200])
        if not isinstance(d, int) or isinstance(d, bool) or d == 0:
            raise CheckError(f"move {k} ({vid}): distance {d!r} is not a non-zero integer"[:200])
        sign = 1 if d > 0 else -1
        dr, dc = axis[vid][0] * sign, axis[vid][1] * sign
        what = {(0, 1): "right", (0, -1): "left", (1, 0): "down", (-1, 0): "up"}[(dr, dc)]
        label = f"move {k} ({vid}{d:+d}): {vid} cannot move {abs(d)} cell(s) {what}"
        for _ in range(abs(d)):  # one cell at a time: the cell it enters must be free
            new = [(r + dr, c + dc) for r, c in body[vid]]
            (entered,) = set(new) - set(body[vid])
            (left,) = set(body[vid]) - set(new)
            if not (0 <= entered[0] < rows and 0 <= entered[1] < cols):
                raise CheckError(f"{label}: its path leaves the {rows}x{cols} board")
            if entered in grid:
                who = grid[entered]
                raise CheckError(f"{label}: " + ("a wall" if who == "#" else f"vehicle {who}")
                                 + f" is in the way at row {entered[0]}, column {entered[1]}")
            del grid[left]
            grid[entered] = vid
            body[vid] = new
        total += abs(d)
        if exit_cell in body[red] and k < len(solution):
            raise CheckError(f"the red car reaches the exit at move {k}; the puzzle ends there, "
                             f"but {len(solution) - k} more move(s) follow")
    if exit_cell not in body[red]:
        raise CheckError(f"after the last move the red car {red} covers {body[red]}, not the "
                         f"exit cell (row {exit_cell[0]}, column {exit_cell[1]})")
    return len(solution) if inst.metric == "moves" else total


# ---- solutions as JSON, and their identity ----------------------------------------------------
def solution_json(inst: RushHour, solution: Solution) -> dict:
    return {"moves": [[v, d] for v, d in solution]}


def solution_from_json(inst: RushHour, data: dict) -> Solution:
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(
            isinstance(m, list) and len(m) == 2 and isinstance(m[0], str)
            and isinstance(m[1], int) and not isinstance(m[1], bool) for m in moves):
        raise CheckError('Rush Hour solution JSON needs "moves": [[vehicle, signed distance], ...]')
    return tuple((v, d) for v, d in moves)


def solution_key(inst: RushHour, solution: Solution) -> Hashable:
    """A solution's identity: its moves (metric moves), or its sequence of one-cell steps
    (metric steps: sliding A by 2 is the same plan as sliding it by 1 twice)."""
    if inst.metric == "moves":
        return tuple((v, d) for v, d in solution)
    return tuple((v, 1 if d > 0 else -1) for v, d in solution for _ in range(abs(d)))


def unit_steps(solution: Solution) -> Solution:
    """The solution as one-cell steps (its identity in the steps metric)."""
    return tuple((v, 1 if d > 0 else -1) for v, d in solution for _ in range(abs(d)))


# ---- descriptions and pictures ----------------------------------------------------------------
def describe(inst: RushHour) -> dict:
    return {"name": inst.name, "rows": inst.rows, "cols": inst.cols, "metric": inst.metric,
            "board": list(inst.board()), "red": inst.red.id, "vehicles": len(inst.vehicles),
            "walls": len(inst.walls), "known_optimum": inst.optimum,
            "known_component": inst.component, "source": inst.source or None}


def _fmt(solution: Solution) -> str:
    return " ".join(f"{v}{d:+d}" for v, d in solution)


def _replay(inst: RushHour, solution: Solution) -> dict[VehicleId, Offset]:
    """The offsets after `solution` (a checked one)."""
    off = {v.id: v.offset for v in inst.vehicles}
    for v, d in solution:
        off[v] += d
    return off


def render(inst: RushHour, solution: Solution | None = None) -> str:
    """The start position (and, with a solution, its moves and the final position) as text;
    the exit is marked '<' right of the red car's row."""
    def mark(rows: tuple[str, ...]) -> list[str]:
        return [" ".join(row) + ("  <" if r == inst.red.line else "") for r, row in enumerate(rows)]
    out = mark(inst.board())
    if solution is not None:
        obj = len(solution) if inst.metric == "moves" else sum(abs(d) for _, d in solution)
        out += ["", f"{obj} {inst.metric}: {_fmt(solution)}", ""]
        out += mark(board_rows(inst, _replay(inst, solution)))
    return "\n".join(out)


PALETTE = ("#4a90d9", "#f5a623", "#7ed321", "#9013fe", "#50e3c2", "#b8e986", "#bd10e0",
           "#8b572a", "#417505", "#f8e71c", "#4a4a4a", "#9b9b9b", "#d0021b", "#2f6690")


def _board_svg(inst: RushHour, offsets: dict[VehicleId, Offset], x0: float, s: float) -> list[str]:
    out = [f'<rect x="{x0}" y="0" width="{inst.cols * s}" height="{inst.rows * s}" fill="#ddd" '
           'stroke="#333" stroke-width="2"/>']
    ry = inst.red.line * s
    out.append(f'<rect x="{x0 + inst.cols * s - 2}" y="{ry + 4}" width="6" height="{s - 8}" fill="#fff"/>')
    for w in inst.walls:
        r, c = divmod(w, inst.cols)
        out.append(f'<rect x="{x0 + c * s}" y="{r * s}" width="{s}" height="{s}" fill="#333"/>')
    for i, v in enumerate(inst.vehicles):
        o = offsets[v.id]
        r, c = (v.line, o) if v.horizontal else (o, v.line)
        w, h = (v.length, 1) if v.horizontal else (1, v.length)
        fill = "#d0021b" if i == 0 else PALETTE[i % len(PALETTE)]
        out.append(f'<rect x="{x0 + c * s + 3}" y="{r * s + 3}" width="{w * s - 6}" height="{h * s - 6}" '
                   f'rx="6" fill="{fill}" stroke="#222"/>')
        out.append(f'<text x="{x0 + (c + w / 2) * s}" y="{(r + h / 2) * s + 5}" text-anchor="middle" '
                   f'font-family="sans-serif" font-size="{s * 0.4:.0f}" fill="#fff">{v.id}</text>')
    return out


def svg(inst: RushHour, solution: Solution | None = None) -> str:
    """The start position (and, with a checked solution, the final one beside it and the moves
    under them) as SVG text."""
    s = 40
    start = {v.id: v.offset for v in inst.vehicles}
    boards = [start] if solution is None else [start, _replay(inst, solution)]
    bw = inst.cols * s + 30
    width, height = bw * len(boards), inst.rows * s + (40 if solution is not None else 4)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="-2 -2 {width} {height}">']
    for i, off in enumerate(boards):
        out += _board_svg(inst, off, i * bw, s)
    if solution is not None:
        text = _fmt(solution)
        if len(text) > 90:
            text = text[:87] + "..."
        obj = len(solution) if inst.metric == "moves" else sum(abs(d) for _, d in solution)
        out.append(f'<text x="0" y="{inst.rows * s + 24}" font-family="monospace" font-size="11">'
                   f'{obj} {inst.metric}: {text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def infeasible_reason(inst: RushHour) -> str | None:
    """A reason why the red car can never reach the exit: a wall, a horizontal vehicle, or a
    vertical vehicle that covers the red car's row wherever it goes, between the red car and
    the exit (None: no such obstacle)."""
    red = inst.red
    row, cols = red.line, inst.cols
    for c in range(red.offset + red.length, cols):
        if row * cols + c in inst.walls:
            return f"a wall at row {row}, column {c} stands between the red car and the exit"
    for v in inst.vehicles[1:]:
        if v.horizontal and v.line == row and v.offset > red.offset:
            return f"vehicle {v.id} lies on the red car's row, between it and the exit"
        if not v.horizontal and v.line > red.offset and inst.rows - v.length <= row < v.length:
            return (f"vehicle {v.id} (column {v.line}, length {v.length}) covers row {row} "
                    f"wherever it stands on the {inst.rows}-row board")
    return None


# ---- reading positions ------------------------------------------------------------------------
def parse_board(rows: list[str], red: VehicleId) -> tuple[tuple[Vehicle, ...], tuple[Cell, ...]]:
    """Vehicles (the red car first, then by letter) and walls of a board given as row strings;
    ValueError naming the problem."""
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("every row must have the same number of cells")
    n_rows, n_cols = len(rows), len(rows[0])
    if not (MIN_SIDE <= n_rows <= MAX_SIDE and MIN_SIDE <= n_cols <= MAX_SIDE):
        raise ValueError(f"the board is {n_rows}x{n_cols}; sides from {MIN_SIDE} to {MAX_SIDE} only")
    cells: dict[str, list[tuple[int, int]]] = {}
    walls = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in EMPTY:
                continue
            if ch in WALL:
                walls.append(r * n_cols + c)
            elif ch.isascii() and ch.isalpha():
                cells.setdefault(ch, []).append((r, c))
            else:
                raise ValueError(f"row {r}, column {c}: {ch!r} is not a letter, "
                                 f"'{EMPTY[0]}'/'{EMPTY[1]}' (empty) or '{WALL[0]}'/'{WALL[1]}' (wall)")
    vehicles = []
    for vid, cs in cells.items():
        (r0, c0) = cs[0]
        if len(cs) not in LENGTHS:
            raise ValueError(f"vehicle {vid} covers {len(cs)} cell(s); vehicles have length 2 or 3")
        if all(r == r0 for r, _ in cs) and [c for _, c in cs] == list(range(c0, c0 + len(cs))):
            vehicles.append(Vehicle(vid, True, len(cs), r0, c0))
        elif all(c == c0 for _, c in cs) and [r for r, _ in cs] == list(range(r0, r0 + len(cs))):
            vehicles.append(Vehicle(vid, False, len(cs), c0, r0))
        else:
            raise ValueError(f"vehicle {vid}'s cells {cs} are not a straight unbroken line")
    if red not in cells:
        raise ValueError(f"no vehicle {red!r} (the red car) on the board")
    rv = next(v for v in vehicles if v.id == red)
    if not rv.horizontal or rv.length != 2:
        raise ValueError(f"the red car {red} must be a horizontal car of length 2")
    others = sorted((v for v in vehicles if v.id != red), key=lambda v: v.id)
    return (rv, *others), tuple(sorted(walls))


def make(name: str, board: str | list[str] | tuple[str, ...], red: VehicleId = "X",
         metric: Metric = "moves", rows: int | None = None, cols: int | None = None,
         optimum: int | None = None, component: int | None = None, source: str = "") -> RushHour:
    """An instance from a board (row strings, or one string of rows*cols cells: 6x6 by default);
    ValueError naming the problem."""
    if isinstance(board, str):
        rows = rows or (6 if cols is None else len(board) // cols)
        cols = cols or len(board) // rows
        if rows * cols != len(board):
            raise ValueError(f"a board string of {len(board)} cells is not {rows}x{cols}")
        board = [board[r * cols:(r + 1) * cols] for r in range(rows)]
    if metric not in METRICS:
        raise ValueError(f"metric {metric!r}: choose one of {', '.join(METRICS)}")
    vehicles, walls = parse_board(list(board), red)
    return RushHour(name, len(board), len(board[0]), vehicles, walls, metric, optimum, component, source)


def from_toml(data: dict, src: Source) -> RushHour:
    """kind = "rushhour"; board = ["AA...O", ...] (row strings) or "AA...O..." (rows*cols cells,
    with rows/cols, 6x6 by default), or card = 1..40; red = "X" (the red car's letter; "A" in
    Fogleman's notation); metric = "moves" | "steps". InputError naming the field."""
    known = ("kind", "name", "board", "card", "rows", "cols", "red", "metric")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise src.error(f"unknown key '{unknown[0]}' (known: {', '.join(known)})", field=unknown[0])
    name = data.get("name", src.name)
    if not isinstance(name, str):
        raise src.error("expected a string", field="name")
    metric = data.get("metric", "moves")
    if metric not in METRICS:
        raise src.error(f"expected one of {', '.join(METRICS)}", field="metric")
    if ("board" in data) == ("card" in data):
        raise src.error("give either board (the position) or card (1..40), not both or neither",
                        field="board" if "board" in data else None)
    for key in ("rows", "cols"):
        v = data.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not MIN_SIDE <= v <= MAX_SIDE):
            raise src.error(f"expected an integer from {MIN_SIDE} to {MAX_SIDE}", field=key)
    if "card" in data:
        n = data["card"]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 40:
            raise src.error("expected a card number from 1 to 40", field="card")
        for key in ("rows", "cols", "red"):
            if key in data:
                raise src.error(f"'{key}' goes with board, not with card", field=key)
        return card(n, metric, name)
    board, red = data["board"], data.get("red", "X")
    if not isinstance(red, str) or len(red) != 1 or not (red.isascii() and red.isalpha()):
        raise src.error("expected one letter (the red car)", field="red")
    if isinstance(board, list):
        if not board or not all(isinstance(r, str) for r in board):
            raise src.error("expected a list of row strings", field="board")
        for key in ("rows", "cols"):
            if key in data and data[key] != (len(board) if key == "rows" else len(board[0])):
                raise src.error(f"{key} = {data[key]} disagrees with the board's "
                                f"{len(board)}x{len(board[0])}", field=key)
    elif isinstance(board, str):
        rows, cols = data.get("rows"), data.get("cols")
        rows = rows or (6 if cols is None else None)
        cols = cols or (len(board) // rows if rows else None)
        rows = rows or len(board) // cols
        if rows * cols != len(board):
            raise src.error(f"{len(board)} cells do not make a {rows}x{cols} board", field="board")
        board = [board[r * cols:(r + 1) * cols] for r in range(rows)]
    else:
        raise src.error("expected a list of row strings or one string of cells", field="board")
    try:
        return make(name, board, red, metric)
    except ValueError as e:
        raise src.error(str(e), field="red" if str(e).startswith("the red car") else "board") from None


# ---- the catalogue ----------------------------------------------------------------------------
def _cards() -> dict:
    """data/cards.toml: the 40 cards and where they come from."""
    with resources.files(__package__).joinpath("data/cards.toml").open("rb") as fh:
        return tomllib.load(fh)


def card(n: int, metric: Metric = "moves", name: str | None = None) -> RushHour:
    """Card n (1..40) of the original game, with its published optimum in the moves metric."""
    data = _cards()
    c = data["card"][n - 1]
    assert c["number"] == n
    opt = c["moves"] if metric == "moves" else None
    source = data["source"]["boards"] + ("\n" + data["source"]["moves"] if metric == "moves" else "")
    return make(name or (f"card-{n:02d}" + ("" if metric == "moves" else "-steps")), c["board"],
                "X", metric, optimum=opt, source=source)


# Published configurations beyond the cards: (name, board, red, metric, optimum, component, source)
CRS = ("Collette, Raskin & Servais, 'On the complexity of Rush Hour' / 'A new approach to solve "
       "Rush Hour' (2006): the hardest 6x6 configuration needs 93 steps, component of 24,132 "
       "positions; board as in Fogleman's rush README (github.com/fogleman/rush: 49 moves, 93 steps)")
FOGLEMAN = ("Fogleman, 'Solving Rush Hour, the Puzzle' (2018), database of all interesting 6x6 "
            "positions (michaelfogleman.com/rush, rush.txt: moves, board, cluster size)")
ANCHORS = (
    ("crs-93", "BBBCDEFGGCDEF.AADEHHI....JI.KK.JLLMM", "A", "steps", 93, 24132, CRS),
    ("crs-93-moves", "BBBCDEFGGCDEF.AADEHHI....JI.KK.JLLMM", "A", "moves", 49, 24132, CRS),
    ("fogleman-51", "GBBoLoGHIoLMGHIAAMCCCKoMooJKDDEEJFFo", "A", "moves", 51, 4780,
     FOGLEMAN + ": the hardest position without walls"),
    ("fogleman-60", "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", "A", "moves", 60, 2332,
     FOGLEMAN + ": the hardest position, with a wall"),
)

# Small boards (no published answers: the tests check them against a brute-force oracle)
SMALL = (
    ("small-4x4", ("XX.D", "...D", "CBBB", "CAA.")),
    ("small-4x4-steps", ("XX.D", "...D", "CBBB", "CAA.")),
    ("small-5x5", ("...BB", "FXX.E", "FCCCE", ".ADDD", ".A...")),
)


def catalogue() -> dict[str, Callable[[], RushHour]]:
    """The 40 cards (metric moves), the published hardest configurations, and small boards."""
    out: dict[str, Callable[[], RushHour]] = {
        f"card-{n:02d}": (lambda n=n: card(n)) for n in range(1, 41)}
    for name, board, red, metric, opt, comp, source in ANCHORS:
        out[name] = (lambda name=name, board=board, red=red, metric=metric, opt=opt, comp=comp,
                     source=source: make(name, board, red, metric, optimum=opt, component=comp,
                                         source=source))
    for name, rows in SMALL:
        metric = "steps" if name.endswith("-steps") else "moves"
        out[name] = lambda name=name, rows=rows, metric=metric: make(name, rows, "X", metric)
    return out
