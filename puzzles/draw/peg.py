"""Peg solitaire pictures: the board with its pegs; a solution as a strip of positions, one per move.

The instance: holes (numbered) on the board's jump lines, pegs filled, the finish holes ringed in
green, the required first jump as an arrow. A solution: one panel per move showing the position
before it, the moving peg in orange, the pegs it jumps over in red and its whole jump
chain as one arrow (a multi-jump move is one move), then the final position.
"""
from __future__ import annotations

import math

from ..peg import Board, PegInstance, Solution, moves
from .canvas import MUTED, Canvas, text_width

# ---- vocabulary -------------------------------------------------------------------------------
BOARD_FILL, LINE = "#f6ead4", "#dcc9a6"        # the board and its jump lines
PEG, PEG_TEXT = "#2c5282", "#ffffff"           # a peg
HOLE, HOLE_EDGE = "#ffffff", "#a0896a"         # an empty hole
MOVER, CAPTURED, ARROW = "#dd6b20", "#e53e3e", "#c05621"
FINISH = "#2f855a"                             # ring around the holes full at the end
BIG, SMALL = 42.0, 28.0                        # hole spacing: instance picture, strip panels
STRIP_WIDTH = 980.0                            # panels wrap at about this width


def layout(board: Board, spacing: float) -> dict[int, tuple[float, float]]:
    """Hole centres in px: lattice (x, y) scaled so the nearest two holes are `spacing` apart;
    triangular lattices (directions (2,0) and (1,1), nothing vertical) get equilateral rows."""
    dirs = set(board.directions)
    vertical = any(dx == 0 for dx, _ in dirs)
    sy = math.sqrt(3) if (2, 0) in dirs and (1, 1) in dirs and not vertical else 1.0
    pts = board.coords
    best = min((math.hypot(p[0] - q[0], (p[1] - q[1]) * sy)
                for i, p in enumerate(pts) for q in pts[i + 1:]), default=1.0)
    k = spacing / best
    x0 = min(x for x, _ in pts)
    y0 = min(y for _, y in pts)
    return {h: ((x - x0) * k, (y - y0) * sy * k) for h, (x, y) in enumerate(pts)}


def _board(c: Canvas, board: Board, pos: dict, ox: float, oy: float, d: float) -> None:
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    m = 0.62 * d
    c.rect(ox + min(xs) - m, oy + min(ys) - m, max(xs) - min(xs) + 2 * m, max(ys) - min(ys) + 2 * m,
           rx=0.5 * d, fill=BOARD_FILL, stroke=LINE, stroke_width=1.5)
    drawn = set()
    for a, b, _ in board.lines:
        e = (min(a, b), max(a, b))
        if e not in drawn:
            drawn.add(e)
            c.line(ox + pos[a][0], oy + pos[a][1], ox + pos[b][0], oy + pos[b][1],
                   stroke=LINE, stroke_width=max(1.0, d / 18))


def _holes(c: Canvas, pos: dict, ox: float, oy: float, d: float, pegs,
           colour: dict | None = None) -> None:
    r = 0.36 * d
    for h, (x, y) in pos.items():
        if h in pegs:
            fill = (colour or {}).get(h, PEG)
            cls = "captured peg" if fill == CAPTURED else "peg"
            c.circle(ox + x, oy + y, r, fill=fill, class_=cls)
        else:
            c.circle(ox + x, oy + y, r, fill=HOLE, stroke=HOLE_EDGE, stroke_width=1.2, class_="hole")


def _numbers(c: Canvas, pos: dict, ox: float, oy: float, d: float, pegs) -> None:
    for h, (x, y) in pos.items():
        c.text(ox + x, oy + y + 0.12 * d, str(h), size=0.33 * d,
               fill=PEG_TEXT if h in pegs else MUTED)


def draw(inst: PegInstance, solution: Solution | None = None) -> str:
    """The instance picture, or the solution's strip of positions (see the module docstring)."""
    if solution is None:
        return _instance(inst)
    return _strip(inst, tuple(tuple(j) for j in solution))


def _instance(inst: PegInstance) -> str:
    b, d = inst.board, BIG
    pos = layout(b, d)
    c = Canvas()
    finish = (f"finish: {len(inst.finish)} peg{'s' * (len(inst.finish) > 1)} "
              f"(ringed green)" if inst.finish is not None else "finish: one peg anywhere")
    known = f", {inst.known_min_moves} moves published" if inst.known_min_moves is not None else ""
    left = -0.62 * d                       # the board's left edge: the text lines up with it
    c.text(left, -d, f"{inst.name}  ·  board {b.name}, {b.n} holes, {len(inst.start)} pegs",
           size=15, anchor="start", weight="bold")
    c.text(left, -d + 18, finish + known, size=12, anchor="start", fill=MUTED)
    oy = 0.6 * d
    _board(c, b, pos, 0, oy, d)
    if inst.finish is not None:
        for h in inst.finish:
            c.circle(pos[h][0], oy + pos[h][1], 0.47 * d, fill="none", stroke=FINISH,
                     stroke_width=3, class_="finish")
    _holes(c, pos, 0, oy, d, inst.start)
    if inst.first_jump is not None:
        a, t = inst.first_jump
        c.text(left, oy + max(p[1] for p in pos.values()) + 1.3 * d, f"first jump {a}→{t} (arrow)",
               size=12, anchor="start", fill=ARROW)
        _arrow(c, [pos[a], pos[t]], 0, oy, d, cls="first-jump")
    _numbers(c, pos, 0, oy, d, inst.start)
    return c.svg(title=f"peg solitaire {inst.name}")


def _arrow(c: Canvas, pts, ox: float, oy: float, d: float, cls: str) -> None:
    """A polyline through `pts` ending with an arrowhead just short of the last hole."""
    pts = [(ox + x, oy + y) for x, y in pts]
    (x1, y1), (x2, y2) = pts[-2], pts[-1]
    L = math.hypot(x2 - x1, y2 - y1) or 1.0
    cut = 0.3 * d
    pts[-1] = (x2 - (x2 - x1) * cut / L, y2 - (y2 - y1) * cut / L)
    c.polyline(pts, fill="none", stroke=ARROW, stroke_width=max(2.0, d / 11), stroke_linejoin="round",
               stroke_linecap="round", opacity=0.85, marker_end=c.marker("peg-arrow", ARROW, 0.45 * d),
               class_=cls)


def _moves_of(solution: Solution) -> list[list[tuple[int, int, int]]]:
    """The jump sequence cut into moves (maximal runs of jumps by one peg)."""
    out: list[list] = []
    for j in solution:
        if out and out[-1][-1][2] == j[0]:
            out[-1].append(j)
        else:
            out.append([j])
    return out


def _strip(inst: PegInstance, solution: Solution) -> str:
    b, d = inst.board, SMALL
    pos = layout(b, d)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pw, ph = max(xs) - min(xs) + 1.24 * d, max(ys) - min(ys) + 1.24 * d
    gap, head = 0.6 * d, 24.0
    mvs = _moves_of(solution)
    most = max(1, min(len(mvs) + 1, int((STRIP_WIDTH + gap) // (pw + gap))))
    cols = math.ceil((len(mvs) + 1) / math.ceil((len(mvs) + 1) / most))  # balanced rows
    c = Canvas()
    c.text(0, -26, f"{inst.name}: {moves(solution)} moves, {len(solution)} jumps", size=15,
           anchor="start", weight="bold")
    c.text(0, -8, "each move: the position before it; orange the moving peg and its jumps, "
                  "red the pegs jumped over", size=12, anchor="start", fill=MUTED)
    pegs = set(inst.start)
    panels = [(i, mv) for i, mv in enumerate(mvs)] + [(len(mvs), None)]
    for k, (i, mv) in enumerate(panels):
        col, row = k % cols, k // cols
        px, py = col * (pw + gap), 12 + row * (ph + head + gap)
        ox, oy = px + 0.62 * d - min(xs), py + head + 0.62 * d - min(ys)
        c.open(class_="panel")
        if mv is None:
            label = "end" + ("" if inst.finish is None or pegs == set(inst.finish) else " (finish not met)")
        else:
            label = f"{i + 1}: " + "→".join([str(mv[0][0])] + [str(j[2]) for j in mv])
        weight = "bold" if mv else None      # a long jump chain's label shrinks to its panel
        size = min(12.0, 12.0 * pw / text_width(label, 12, weight))
        c.text(px + pw / 2, py + head - 8, label, size=size, weight=weight, class_="move-label")
        _board(c, b, pos, ox, oy, d)
        if mv is None:
            if inst.finish is not None:
                for h in inst.finish:
                    c.circle(ox + pos[h][0], oy + pos[h][1], 0.47 * d, fill="none", stroke=FINISH,
                             stroke_width=2.5, class_="finish")
            _holes(c, pos, ox, oy, d, pegs)
            _numbers(c, pos, ox, oy, d, pegs)
        else:
            _holes(c, pos, ox, oy, d, pegs, colour={mv[0][0]: MOVER, **{j[1]: CAPTURED for j in mv}})
            _arrow(c, [pos[mv[0][0]]] + [pos[j[2]] for j in mv], ox, oy, d, cls="move")
            _numbers(c, pos, ox, oy, d, pegs)
            for a, over, to in mv:
                pegs -= {a, over}
                pegs.add(to)
        c.close()
    return c.svg(title=f"peg solitaire {inst.name}: {moves(solution)} moves")


__all__ = ["draw", "layout"]
