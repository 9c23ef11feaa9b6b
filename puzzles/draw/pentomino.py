"""Polyomino tiling pictures: the board and the piece set; a tiling as coloured pieces.

Cells are coordinate tuples: (row, col) on a flat board, (layer, row, col) on a box; a box is drawn
as its layers side by side, left to right, each labelled with its z (= layer index). Each placed
piece is one outlined path (its cells merged, one sub-path per layer it touches) in the piece's
colour, labelled with its letter; on a box, a cell whose piece continues in the layer above (z + 1,
the next layer to the right) carries an up-triangle in its top-right corner, one that continues in
the layer below a down-triangle in its bottom-left corner, and a legend under the layers names
each piece's colour. A box's piece set is drawn in isometric projection, cube by cube.
Colours: the pentomino letters keep fixed colours; other names take the palette in turn, skipping
any colour too close to one already taken (Soma's A and P would both be orange otherwise).
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Sequence

from ..pentomino import Tiling, orientations_of
from .canvas import INK, MUTED, Canvas, text_width

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
DISTINCT = 160.0                         # least colour_distance of a palette colour to those taken,
                                         # when the palette allows (the 12 letters keep theirs)
MARK = 0.24                              # continuation triangles: side, in cells
ISO = 0.5                                # isometric piece pictures: cube edge, in cells


def colour_distance(a: str, b: str) -> float:
    """How different two '#rrggbb' colours look: the "redmean" weighted RGB distance (0 = same,
    about 765 = black to white)."""
    (r1, g1, b1), (r2, g2, b2) = _rgb(a), _rgb(b)
    rm = (r1 + r2) / 2
    return math.sqrt((2 + rm / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2
                     + (2 + (255 - rm) / 256) * (b1 - b2) ** 2)


def _rgb(colour: str) -> list[int]:
    return [int(colour[i:i + 2], 16) for i in (1, 3, 5)]


def colour_map(names: Iterable[str]) -> dict[str, str]:
    """A fill colour for each piece name: the pentomino letters fixed, the rest from the palette
    in turn, each the next palette colour at least DISTINCT from every colour taken (failing
    that, the next one not taken; then the palette again)."""
    names = list(dict.fromkeys(names))
    out = {n: COLOURS[n] for n in names if n in COLOURS}
    k = 0
    for n in names:
        if n in out:
            continue
        order = [PALETTE[(k + i) % len(PALETTE)] for i in range(len(PALETTE))]
        taken = set(out.values())
        pick = next((c for c in order if all(colour_distance(c, t) >= DISTINCT for t in taken)),
                    next((c for c in order if c not in taken), order[0]))
        out[n] = pick
        k = PALETTE.index(pick) + 1
    return {n: out[n] for n in names}


def shade(colour: str, k: int) -> str:
    """The k-th shade of a colour (k = 0: itself), so that copies of one piece tell apart."""
    return _tint(colour, SHADES[k % len(SHADES)])


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
    if layer_labels:
        for l in frame.layers:
            x, y = frame.xy(l, frame.r0, frame.c0)
            c.text(x + frame.w * u / 2, y - 8, f"z = {l}", size=12, fill=MUTED, class_="layer-label")
    copies = defaultdict(int)
    total = defaultdict(int)
    joins: list[tuple[str, tuple[Cell3, Cell3]]] = []
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
        ink = "#ffffff" if dark else INK
        for _, part in sorted(by_layer.items()):
            comps = _components(part)
            for a, b in zip(comps, comps[1:]):   # one piece, apart in this layer: linked
                joins.append((name, min(((p, q) for p in a for q in b), key=lambda pq: (
                    (pq[0][1] - pq[1][1]) ** 2 + (pq[0][2] - pq[1][2]) ** 2, pq))))
            for comp in comps:
                lc = _label_cell(comp)
                x, y = frame.xy(lc[0], lc[1] + 0.5, lc[2] + 0.5)
                c.text(x, y + 0.17 * u, label, size=(0.5 if len(label) == 1 else 0.4) * u,
                       weight="bold", fill=ink)
        mine = set(cells3)
        for l, r, col in sorted(mine):
            if (l + 1, r, col) in mine and l + 1 in frame.slot:
                _mark(c, frame, (l, r, col), True, ink)
            if (l - 1, r, col) in mine and l - 1 in frame.slot:
                _mark(c, frame, (l, r, col), False, ink)
        c.close()
    for name, (p, q) in joins:  # on top of every piece: a link may cross another piece
        (x1, y1), (x2, y2) = (frame.xy(x[0], x[1] + 0.5, x[2] + 0.5) for x in (p, q))
        d = math.hypot(x2 - x1, y2 - y1)
        ex, ey = (x2 - x1) / d * 0.36 * u, (y2 - y1) / d * 0.36 * u
        c.open(class_="join", data_piece=name)
        c.line(x1 + ex, y1 + ey, x2 - ex, y2 - ey, stroke=INK, stroke_width=2.5,
               stroke_dasharray="5 3", stroke_linecap="round")
        for x_, y_ in ((x1 + ex, y1 + ey), (x2 - ex, y2 - ey)):
            c.circle(x_, y_, 0.08 * u, fill=INK)
        c.close()


def _mark(c: Canvas, frame: Frame, cell: Cell3, up: bool, ink: str) -> None:
    """The continuation triangle of a cell: pointing up in its top-right corner (the piece goes
    on in layer z + 1), or down in its bottom-left corner (in layer z - 1)."""
    u, m = frame.unit, 0.08 * frame.unit
    x, y = frame.xy(*cell)
    side = MARK * u
    _triangle(c, x + u - m - side if up else x + m, y + m if up else y + u - m - side, side, up,
              ink, data_cell=",".join(map(str, cell)))


def _triangle(c: Canvas, x: float, y: float, side: float, up: bool, ink: str, key: bool = False,
              **kw) -> None:
    """A continuation triangle in the square of `side` at (x, y), pointing up or down (`key`:
    the legend's sample of it)."""
    if up:
        pts = [(x, y + side), (x + side, y + side), (x + side / 2, y)]
    else:
        pts = [(x, y), (x + side, y), (x + side / 2, y + side)]
    cls = ("key-" if key else "continues-") + ("up" if up else "down")
    _polygon(c, pts, fill=ink, class_=cls, **kw)


def _components(cells: list[Cell3]) -> list[list[Cell3]]:
    """The face-connected parts of one layer's cells, each sorted, in order of their first cell."""
    left, out = set(cells), []
    for start in sorted(cells):
        if start not in left:
            continue
        left.discard(start)
        todo, comp = [start], [start]
        while todo:
            l, r, col = todo.pop()
            for n in ((l, r + 1, col), (l, r - 1, col), (l, r, col + 1), (l, r, col - 1)):
                if n in left:
                    left.discard(n)
                    comp.append(n)
                    todo.append(n)
        out.append(sorted(comp))
    return out


def _polygon(c: Canvas, pts: list[tuple[float, float]], **kw) -> None:
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    c.path("M" + "L".join(f"{x:g},{y:g}" for x, y in pts) + "Z",
           (min(xs), min(ys), max(xs), max(ys)), **kw)


def draw(inst: Tiling, solution=None) -> str:
    """The board and the piece set, or the tiling with each placed piece coloured."""
    colours = colour_map(p.name for p in inst.pieces)
    c = Canvas()
    frame = Frame(inst.cells, UNIT, 0, 0)
    cells = sorted(as3(x) for x in inst.cells)
    pieces = "".join(p.name * p.count if p.exact else f"{p.name}[{p.multiplicity()}]"
                     for p in inst.pieces)
    box = "x".join(map(str, ([len(frame.layers)] if len(frame.layers) > 1 else []) + [frame.h, frame.w]))
    box3 = inst.dim == 3
    if solution is None:
        c.text(0, -30, f"{inst.name}: {len(cells)} cells ({box} box), pieces {pieces}", size=15,
               anchor="start", weight="bold")
        draw_cells(c, frame, cells, (), colours, layer_labels=box3)
        _piece_set(c, inst, colours, frame.height + UNIT)
        return c.svg(title=f"tiling {inst.name}")
    placed = [(name, list(cells_)) for name, cells_ in solution]
    c.text(0, -30, f"{inst.name}: a tiling with {len(placed)} pieces", size=15, anchor="start",
           weight="bold")
    draw_cells(c, frame, cells, placed, colours, layer_labels=box3)
    if box3:
        _legend(c, inst, placed, colours, frame.height + 0.8 * UNIT, max(frame.width, 420.0))
    return c.svg(title=f"tiling {inst.name}")


def _legend(c: Canvas, inst: Tiling, placed, colours: dict[str, str], top: float,
            width: float) -> None:
    """Under a box: each placed piece's colour swatch and name (copies numbered as on the
    board), then the key of the continuation triangles."""
    order = {p.name: i for i, p in enumerate(inst.pieces)}
    total = defaultdict(int)
    for name, _ in placed:
        total[name] += 1
    entries = [(name, k) for name in sorted(total, key=order.get) for k in range(total[name])]
    s = 0.5 * UNIT
    c.open(class_="legend")
    c.text(0, top + s * 0.75, "pieces:", size=12, anchor="start", fill=MUTED)
    x, y = 56.0, top
    for name, k in entries:
        label = f"{name}{k + 1}" if total[name] > 1 else name
        w = s + 6 + text_width(label, 12, "bold") + 14
        if x + w > width and x > 56.0:
            x, y = 56.0, y + s + 8
        c.open(class_="legend-entry", data_piece=name, data_label=label)
        c.rect(x, y, s, s, fill=shade(colours.get(name, PALETTE[0]), k), stroke=INK,
               stroke_width=1.5, class_="swatch")
        c.text(x + s + 6, y + s * 0.75, label, size=12, anchor="start", weight="bold")
        c.close()
        x += w
    side = MARK * UNIT
    for i, (up, note) in enumerate(((True, "the piece goes on in the layer above (z + 1, to the "
                                     "right)"),
                                    (False, "the piece goes on in the layer below (z - 1, to the "
                                     "left)"))):
        y0 = top + s + 14 + i * 20
        _triangle(c, 0, y0, side, up, INK, key=True)
        c.text(side + 8, y0 + side - 1, note, size=12, anchor="start", fill=MUTED)
    y0 = top + s + 14 + 40
    c.line(0, y0 + side / 2, 2.2 * side, y0 + side / 2, stroke=INK, stroke_width=2.5,
           stroke_dasharray="5 3", stroke_linecap="round")
    c.text(2.2 * side + 8, y0 + side - 1, "links parts of one piece apart in a layer", size=12,
           anchor="start", fill=MUTED)
    c.close()


def _piece_set(c: Canvas, inst: Tiling, colours: dict[str, str], top: float) -> None:
    """The pieces in a row under the board, small, with their counts (3D pieces in isometric
    projection, their name under them)."""
    u = UNIT * 0.6
    c.text(0, top, "pieces:", size=12, anchor="start", fill=MUTED)
    x, y, row_h = 0.0, top + 14, 0.0
    tall = max((iso_extent(iso_view(p.shape), ISO * UNIT)[1] for p in inst.pieces if p.dim == 3),
               default=0)
    for p in inst.pieces:
        if p.dim == 3:
            fw, fh = iso_piece(c, p.name, p.shape, colours.get(p.name, PALETTE[0]), x, y,
                               ISO * UNIT, tall)
        else:
            f = Frame(p.shape, u, x, y)
            draw_cells(c, f, (), [(p.name, list(p.shape))], colours, layer_labels=False)
            fw, fh = f.width, f.height
        label = p.multiplicity() if not p.exact or p.count > 1 else ""
        if label:
            c.text(x + fw + 4, y + fh / 2 + 4, f"×{label}", size=12, anchor="start")
        x += fw + u * ((2.0 + 0.5 * len(label)) if label else 1)
        row_h = max(row_h, fh)
        if x > max(600.0, 20 * u) and p is not inst.pieces[-1]:
            x, y, row_h = 0.0, y + row_h + u, 0.0


def _iso(edge: float):
    """The isometric projection of a lattice point (z = height, row, col) at cube edge `edge`."""
    cx, cy = edge * math.cos(math.pi / 6), edge * 0.5
    return lambda z, r, col: ((col - r) * cx, (col + r) * cy - z * edge)


def iso_view(shape: Iterable[Cell3]) -> tuple[Cell3, ...]:
    """The rotation of a polycube `iso_piece` draws: of its rotations (never a mirror image), the
    first with the fewest pairs of cubes whose pictures overlap (projected centres closer than
    face neighbours': one would hide the other), then the flattest."""
    proj = _iso(1.0)

    def score(o) -> tuple[int, int]:
        ctr = [proj(z + 0.5, r + 0.5, col + 0.5) for z, r, col in o]
        hidden = sum(1 for i, a in enumerate(ctr) for b in ctr[:i]
                     if math.hypot(a[0] - b[0], a[1] - b[1]) < 0.9)
        return hidden, max(z for z, _, _ in o)
    views = orientations_of(frozenset(tuple(x) for x in shape), rotations_only=True)
    return tuple(sorted(min(views, key=score)))


def iso_extent(shape: Iterable[Cell3], edge: float) -> tuple[float, float, float, float]:
    """(width, height, left, top) of a polycube's isometric picture (`iso_piece`) before moving."""
    proj = _iso(edge)
    corners = [proj(z + dz, r + dr, col + dc) for z, r, col in shape
               for dz in (0, 1) for dr in (0, 1) for dc in (0, 1)]
    x0 = min(px for px, _ in corners)
    y0 = min(py for _, py in corners)
    return (max(px for px, _ in corners) - x0, max(py for _, py in corners) - y0, x0, y0)


def iso_piece(c: Canvas, name: str, shape: Iterable[Cell3], colour: str, x: float, y: float,
              edge: float, tall: float = 0.0) -> tuple[float, float]:
    """A polycube in isometric projection, one `<g class="cube">` of three faces per cube (the
    top lighter, the right side darker), its name under it, in the box from (x, y) that is
    `tall` high (at least its own height; pieces of one row share a baseline); returns (width,
    height). Layer index = height; cubes drawn far to near (by the sum of coordinates: cubes
    with equal sums never overlap in this projection)."""
    proj = _iso(edge)
    cubes = sorted(iso_view(shape), key=lambda q: (sum(q), q))
    w, h, x0, y0 = iso_extent(cubes, edge)
    tall = max(tall, h)
    y0 -= tall - h
    h = tall
    faces = (("top", 0.45, ((1, 0, 0), (1, 0, 1), (1, 1, 1), (1, 1, 0))),
             ("left", 0.0, ((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0))),
             ("right", -0.3, ((0, 0, 1), (0, 1, 1), (1, 1, 1), (1, 0, 1))))
    c.open(class_="piece iso", data_piece=name)
    for z, r, col in cubes:
        c.open(class_="cube", data_cell=f"{z},{r},{col}")
        for face, f, pts in faces:
            xy = [proj(z + a, r + b, col + d) for a, b, d in pts]
            _polygon(c, [(x + px - x0, y + py - y0) for px, py in xy],
                     fill=_tint(colour, f), stroke=INK, stroke_width=1.2,
                     stroke_linejoin="round", class_=face)
        c.close()
    c.text(x + w / 2, y + h + 14, name, size=12, weight="bold", class_="piece-name")
    c.close()
    return w, h + 18


def _tint(colour: str, f: float) -> str:
    """`colour` lighter (f > 0) or darker (f < 0) by the fraction f."""
    rgb = [round(v + (255 - v) * f) if f > 0 else round(v * (1 + f)) for v in _rgb(colour)]
    return "#" + "".join(f"{v:02x}" for v in rgb)


__all__ = ["draw", "draw_cells", "outline", "Frame", "colour_map", "colour_distance", "iso_piece",
           "iso_extent", "as3"]
