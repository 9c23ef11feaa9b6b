"""Calculation-maze pictures: the grid with every edge's operation, start S and goal G; a walk as
numbered arrows along its edges (the pre-walked part in grey) and the score step by step below.
"""
from __future__ import annotations

import math

from ...core.result import InputError
from ..maze import Maze, op_apply, op_str, reference_optimum
from .canvas import INK, MUTED, Canvas

# ---- vocabulary -------------------------------------------------------------------------------
EDGE_LEN = 78.0                                   # px between neighbouring intersections
GRID, NODE = "#cbd5e0", "#4a5568"
OP_COLOUR = {"+": "#276749", "-": "#c53030", "*": "#2b6cb0"}
WALK, PRE = "#dd6b20", "#a0aec0"                  # the walk; the pre-walked part
START, GOAL = "#2f855a", "#c53030"
STEPS_PER_LINE = 10


def _xy(m: Maze, v: int) -> tuple[float, float]:
    y, x = divmod(v, m.width)
    return x * EDGE_LEN, y * EDGE_LEN


def draw(m: Maze, walk=None) -> str:
    """The maze; with a walk (node ids, prefix included), the walk and its score trace."""
    c = Canvas()
    L = EDGE_LEN
    opt = reference_optimum(m)
    head = (f"{m.name}: {m.width}x{m.height} intersections, {len(m.ops)} edges"
            + (f", reference optimum {opt}" if opt is not None else ""))
    c.text(-L / 3, -L / 2 - 18, head, size=15, anchor="start", weight="bold")
    eid = {e: i for i, e in enumerate(m.edges)}
    for a, b in m.edges:
        (x1, y1), (x2, y2) = _xy(m, a), _xy(m, b)
        c.line(x1, y1, x2, y2, stroke=GRID, stroke_width=3, stroke_linecap="round")
    steps = list(zip(walk, walk[1:])) if walk is not None else list(zip(m.prefix, m.prefix[1:]))
    npre = max(0, len(m.prefix) - 1)
    for i, (a, b) in enumerate(steps):
        if (min(a, b), max(a, b)) not in eid:
            raise InputError(f"walk step {a}->{b} is not a grid edge of maze {m.name}")
        _step_line(c, m, a, b, PRE if i < npre else WALK)
    for (a, b), op in zip(m.edges, m.ops):
        (x1, y1), (x2, y2) = _xy(m, a), _xy(m, b)
        s = op_str(op)
        w = 8.5 * len(s) + 8
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        c.open(class_="op")
        c.rect(cx - w / 2, cy - 10, w, 20, rx=6, fill="#ffffff", stroke=GRID, stroke_width=1)
        c.text(cx, cy + 5, s, size=14, weight="bold" if op[0] == "*" else None, fill=OP_COLOUR[op[0]])
        c.close()
    for i, (a, b) in enumerate(steps):
        _step_number(c, m, a, b, i + 1, PRE if i < npre else WALK)
    for v in range(m.nodes):
        x, y = _xy(m, v)
        c.circle(x, y, 5, fill=NODE)
        c.text(x - 7, y - 8, str(v), size=9, anchor="end", fill=MUTED)
    for v, label, colour in ((m.start, "S", START), (m.goal, "G", GOAL)):
        x, y = _xy(m, v)
        c.circle(x, y, 10.5, fill=colour, stroke="#ffffff", stroke_width=2, class_="endpoint")
        c.text(x, y + 4.5, label, size=12, weight="bold", fill="#ffffff")
    bottom = (m.height - 1) * L + 34
    if walk is None:
        note = "start S, goal G; the score starts at 1 and each edge's operation applies in walking order"
        if m.prefix:
            note = f"pre-walked (grey): {' '.join(map(str, m.prefix))}; " + note
        c.text(-L / 3, bottom + 10, note, size=12, anchor="start", fill=MUTED)
        return c.svg(title=f"maze {m.name}")
    _trace(c, m, steps, eid, bottom, npre)
    return c.svg(title=f"maze {m.name}: walk of {len(steps)} edges")


def _unit(m: Maze, a: int, b: int):
    (x1, y1), (x2, y2) = _xy(m, a), _xy(m, b)
    L = math.hypot(x2 - x1, y2 - y1)
    return x1, y1, (x2 - x1) / L, (y2 - y1) / L


def _step_line(c: Canvas, m: Maze, a: int, b: int, colour: str) -> None:
    x, y, dx, dy = _unit(m, a, b)
    s, e = 8.0, EDGE_LEN - 13.0
    c.line(x + dx * s, y + dy * s, x + dx * e, y + dy * e, stroke=colour, stroke_width=5,
           stroke_linecap="round", opacity=0.85, class_="step",
           marker_end=c.marker(f"maze-{colour[1:]}", colour, 14))


def _step_number(c: Canvas, m: Maze, a: int, b: int, k: int, colour: str) -> None:
    x, y, dx, dy = _unit(m, a, b)
    px, py = x + dx * 0.25 * EDGE_LEN, y + dy * 0.25 * EDGE_LEN
    c.circle(px, py, 7.5, fill=colour, stroke="#ffffff", stroke_width=1)
    c.text(px, py + 3.3, str(k), size=8.5 if k < 100 else 7, weight="bold", fill="#ffffff")


def _trace(c: Canvas, m: Maze, steps, eid, top: float, npre: int) -> None:
    """The score after every step, ten steps a line."""
    score = 1
    toks = []
    for a, b in steps:
        op = m.ops[eid[(min(a, b), max(a, b))]]
        score = op_apply(op, score)
        toks.append(f"{op_str(op)}→{score}")
    pre = f"; steps 1–{npre} pre-walked (grey)" if npre else ""
    c.text(-EDGE_LEN / 3, top + 10, f"walk: {len(steps)} edges, score {score}{pre}", size=13,
           anchor="start", weight="bold", fill=INK)
    c.text(-EDGE_LEN / 3, top + 30, "score 1 at S, then after each step:", size=12, anchor="start",
           fill=MUTED)
    y = top + 30
    for i in range(0, len(toks), STEPS_PER_LINE):
        y += 18
        chunk = toks[i:i + STEPS_PER_LINE]
        c.text(-EDGE_LEN / 3, y, f"{i + 1}–{i + len(chunk)}", size=12, anchor="start", fill=MUTED)
        c.text(-EDGE_LEN / 3 + 56, y, "  ".join(chunk), size=12, anchor="start", class_="trace")


__all__ = ["draw"]
