"""Polyomino tiling pictures: the board and the piece set; a tiling as coloured pieces.

Cells are coordinate tuples: (row, col) on a flat board, (layer, row, col) on a box; a box is drawn
as its layers side by side, left to right. Each placed piece is one outlined path (its cells merged,
one sub-path per layer it touches) in the piece's colour, labelled with its letter.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

from ..pentomino import Tiling
from .canvas import INK, MUTED, Canvas

# ---- vocabulary -------------------------------------------------------------------------------
Cell3 = tuple[int, int, int]      # (layer, row, col); a flat cell (row, col) is layer 0
UNIT = 32.0                       # px per cell
LAYER_GAP = 1.2                   # cells between two drawn layers
BOARD, BOARD_EDGE = "#edf2f7", "#a0aec0"
# One colour per pentomino letter (stable across pictures); other names take the palette in turn.
COLOURS = {"F": "#e6194b", "I": "#3cb44b", "L": "#ffe119", "N": "#4363d8", "P": "#f58231",
           "T": "#911eb4", "U": "#42d4f4", "V": "#f032e6", "W": "#bfef45", "X": "#fabed4",
           "Y": "#469990", "Z": "#dcbeff"}
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")         # mid tones, so that lighter and darker shades still read
SHADES = (0.0, 0.45, -0.3, 0.7, -0.5)    # copies of a piece: lighter (> 0) or darker (< 0)


def colour_map(names: Iterable[str]) -> dict[str, str]:
    """A fill colour for each piece name: the pentomino letters fixed, the rest from the palette."""
    out, k = {}, 0
    for n in names:
        if n in out:
            continue
        if n in COLOURS:
            out[n] = COLOURS[n]
        else:
            out[n] = PALETTE[k % len(PALETTE)]
            k += 1
    return out


def shade(colour: str, k: int) -> str:
    """The k-th shade of a colour (k = 0: itself), so that copies of one piece tell apart."""
    f = SHADES[k % len(SHADES)]
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    rgb = [round(v + (255 - v) * f) if f > 0 else round(v * (1 + f)) for v in rgb]
    return "#" + "".join(f"{v:02x}" for v in rgb)


def as3(cell: Sequence[int]) -> Cell3:
    """A cell as (layer, row, col)."""
    return (0, cell[0], cell[1]) if len(cell) == 2 else (cell[0], cell[1], cell[2])


class Frame:
    """Where cells go: layers side by side, each as tall as the tallest layer."""

    def __init__(self, cells: Iterable[Sequence[int]], unit: float = UNIT, ox: float = 0.0,
                 oy: float = 0.0):
        cs = [as3(x) for x in cells]
        self.layers = sorted({l for l, _, _ in cs})
        self.r0 = min(r for _, r, _ in cs)
        self.c0 = min(c for _, _, c in cs)
        self.h = max(r for _, r, _ in cs) - self.r0 + 1
        self.w = max(c for _, _, c in cs) - self.c0 + 1
        self.unit, self.ox, self.oy = unit, ox, oy
        self.slot = {l: i for i, l in enumerate(self.layers)}

    def xy(self, layer: int, row: float, col: float) -> tuple[float, float]:
        """The px position of a lattice corner (row, col) in `layer`."""
        s = self.slot[layer]
        return (self.ox + (s * (self.w + LAYER_GAP) + col - self.c0) * self.unit,
                self.oy + (row - self.r0) * self.unit)

    @property
    def width(self) -> float:
        n = len(self.layers)
        return (n * self.w + (n - 1) * LAYER_GAP) * self.unit

    @property
    def height(self) -> float:
        return self.h * self.unit


def outline(frame: Frame, cells: Iterable[Sequence[int]]) -> tuple[str, tuple]:
    """SVG path data outlining a set of cells (one closed loop per boundary, per layer) and its bbox.

    Each cell contributes its four edges clockwise; edges shared by two cells of the set cancel;
    the rest chain into loops (consistently oriented, so the nonzero fill rule fills exactly the
    cells, holes included)."""
    edges: dict[tuple, tuple] = {}
    for l, r, c in (as3(x) for x in cells):
        corners = [(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)]
        for i in range(4):
            a, b = (l, *corners[i]), (l, *corners[(i + 1) % 4])
            if (b, a) in edges:
                del edges[(b, a)]
            else:
                edges[(a, b)] = None
    nxt: dict[tuple, list] = defaultdict(list)
    for a, b in edges:
        nxt[a].append(b)
    d, pts = [], []
    while nxt:
        start = next(iter(nxt))
        loop, v = [start], start
        while True:
            w = nxt[v].pop()
            if not nxt[v]:
                del nxt[v]
            if w == start:
                break
            loop.append(w)
            v = w
        # drop corners where the boundary goes straight on
        keep = [p for i, p in enumerate(loop)
                if not _straight(loop[i - 1], p, loop[(i + 1) % len(loop)])]
        xy = [frame.xy(*p) for p in keep]
        pts += xy
        d.append("M" + "L".join(f"{x:g},{y:g}" for x, y in xy) + "Z")
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    return "".join(d), (min(xs), min(ys), max(xs), max(ys))


def _straight(a, b, c) -> bool:
    return (b[1] - a[1]) * (c[2] - b[2]) == (b[2] - a[2]) * (c[1] - b[1])


def _label_cell(cells: list[Cell3]) -> Cell3:
    """The cell of a piece nearest its centre (where its letter goes)."""
    mr = sum(r for _, r, _ in cells) / len(cells)
    mc = sum(c for _, _, c in cells) / len(cells)
    return min(cells, key=lambda x: ((x[1] - mr) ** 2 + (x[2] - mc) ** 2, x))


def draw_cells(c: Canvas, frame: Frame, board: Iterable[Sequence[int]],
               placements: Sequence[tuple[str, Sequence[Sequence[int]]]], colours: dict[str, str],
               layer_labels: bool = True) -> None:
    """The board (grey cells) with the placed pieces on top, one `<g class="piece">` each."""
    u = frame.unit
    board = [as3(x) for x in board]
    c.open(class_="board")
    for l, r, col in board:
        x, y = frame.xy(l, r, col)
        c.rect(x, y, u, u, fill=BOARD, stroke=BOARD_EDGE, stroke_width=0.8)
    c.close()
    if layer_labels and len(frame.layers) > 1:
        for l in frame.layers:
            x, y = frame.xy(l, frame.r0, frame.c0)
            c.text(x + frame.w * u / 2, y - 8, f"layer {l}", size=12, fill=MUTED)
    copies = defaultdict(int)
    total = defaultdict(int)
    for name, _ in placements:
        total[name] += 1
    for name, cells in placements:
        cells3 = [as3(x) for x in cells]
        k = copies[name]
        copies[name] += 1
        fill = shade(colours.get(name, PALETTE[0]), k)
        label = f"{name}{k + 1}" if total[name] > 1 else name
        dark = sum(int(fill[i:i + 2], 16) * w for i, w in ((1, .299), (3, .587), (5, .114))) < 150
        d, bbox = outline(frame, cells3)
        c.open(class_="piece", data_piece=name)
        c.path(d, bbox, fill=fill, stroke=INK, stroke_width=2, stroke_linejoin="round")
        by_layer = defaultdict(list)
        for x in cells3:
            by_layer[x[0]].append(x)
        for l, part in sorted(by_layer.items()):
            lc = _label_cell(part)
            x, y = frame.xy(lc[0], lc[1] + 0.5, lc[2] + 0.5)
            c.text(x, y + 0.17 * u, label, size=(0.5 if len(label) == 1 else 0.4) * u,
                   weight="bold", fill="#ffffff" if dark else INK)
        c.close()


def draw(inst: Tiling, solution=None) -> str:
    """The board and the piece set, or the tiling with each placed piece coloured."""
    colours = colour_map(p.name for p in inst.pieces)
    c = Canvas()
    frame = Frame(inst.cells, UNIT, 0, 0)
    cells = sorted(as3(x) for x in inst.cells)
    pieces = "".join(p.name * p.count for p in inst.pieces)
    box = "x".join(map(str, ([len(frame.layers)] if len(frame.layers) > 1 else []) + [frame.h, frame.w]))
    if solution is None:
        c.text(0, -30, f"{inst.name}: {len(cells)} cells ({box} box), pieces {pieces}", size=15,
               anchor="start", weight="bold")
        draw_cells(c, frame, cells, (), colours)
        _piece_set(c, inst, colours, frame.height + UNIT)
        return c.svg(title=f"tiling {inst.name}")
    placed = [(name, list(cells_)) for name, cells_ in solution]
    c.text(0, -30, f"{inst.name}: a tiling with {len(placed)} pieces", size=15, anchor="start",
           weight="bold")
    draw_cells(c, frame, cells, placed, colours)
    return c.svg(title=f"tiling {inst.name}")


def _piece_set(c: Canvas, inst: Tiling, colours: dict[str, str], top: float) -> None:
    """The pieces in a row under the board, small, with their counts."""
    u = UNIT * 0.6
    c.text(0, top, "pieces:", size=12, anchor="start", fill=MUTED)
    x, y, row_h = 0.0, top + 14, 0.0
    for p in inst.pieces:
        f = Frame(p.shape, u, x, y)
        draw_cells(c, f, (), [(p.name, list(p.shape))], colours, layer_labels=False)
        if p.count > 1:
            c.text(x + f.width + 4, y + f.height / 2 + 4, f"×{p.count}", size=12, anchor="start")
        x += f.width + u * (2.5 if p.count > 1 else 1)
        row_h = max(row_h, f.height)
        if x > max(600.0, 20 * u) and p is not inst.pieces[-1]:
            x, y, row_h = 0.0, y + row_h + u, 0.0


__all__ = ["draw", "draw_cells", "outline", "Frame", "colour_map", "as3"]
