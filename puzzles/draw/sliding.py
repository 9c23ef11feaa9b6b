"""Sliding-tile pictures: start and goal boards; a solution adds a few positions on the way and the
move list (each tile with the direction it slides).

Tiles in their goal cell are green, the others blue, the blank dark grey.
"""
from __future__ import annotations

from ..sliding import Board, Sliding, infeasible_reason, manhattan
from .canvas import INK, MUTED, Canvas

# ---- vocabulary -------------------------------------------------------------------------------
HOME, HOME_EDGE = "#c6f6d5", "#2f855a"      # a tile in its goal cell
AWAY, AWAY_EDGE = "#bee3f8", "#2b6cb0"      # a tile elsewhere
BLANK, FRAME = "#4a5568", "#2d3748"
ARROWS = {(0, 1): "→", (0, -1): "←", (1, 0): "↓", (-1, 0): "↑"}   # (drow, dcol) of a tile's slide
INTERMEDIATE = 4        # positions shown between start and goal (at most)
MOVES_PER_LINE = 12


def unit_for(inst: Sliding) -> float:
    """Tile size in px."""
    return 44.0 if max(inst.rows, inst.cols) <= 4 else 34.0


def board(c: Canvas, inst: Sliding, tiles: Board, ox: float, oy: float, label: str,
          u: float) -> None:
    """One board at (ox, oy) with `label` above it: a `<g class="tile">` per tile, one blank."""
    where = {t: i for i, t in enumerate(inst.goal)}
    W, H = inst.cols * u, inst.rows * u
    c.text(ox + W / 2, oy - 8, label, size=12, weight="bold")
    c.rect(ox - 3, oy - 3, W + 6, H + 6, rx=5, fill=FRAME)
    for i, t in enumerate(tiles):
        r, col = divmod(i, inst.cols)
        x, y = ox + col * u, oy + r * u
        if t == 0:
            c.rect(x + 1, y + 1, u - 2, u - 2, rx=3, fill=BLANK, class_="blank")
            continue
        home = where[t] == i
        c.open(class_="tile")
        c.rect(x + 1.5, y + 1.5, u - 3, u - 3, rx=4, fill=HOME if home else AWAY,
               stroke=HOME_EDGE if home else AWAY_EDGE, stroke_width=1.5)
        c.text(x + u / 2, y + u / 2 + 0.16 * u, str(t), size=0.42 * u, weight="bold", fill=INK)
        c.close()


def replay(inst: Sliding, solution) -> list[tuple[Board, str]]:
    """The board after each move (the start first), and each move written tile + direction."""
    b = list(inst.start)
    out: list[tuple[Board, str]] = [(tuple(b), "")]
    for t in solution:
        z, p = b.index(0), b.index(int(t))
        (zr, zc), (pr, pc) = divmod(z, inst.cols), divmod(p, inst.cols)
        b[z], b[p] = int(t), 0
        out.append((tuple(b), f"{t}{ARROWS.get((zr - pr, zc - pc), '?')}"))
    return out


def draw(inst: Sliding, solution=None) -> str:
    """Start → goal; with a solution, intermediate positions and the move list."""
    u = unit_for(inst)
    W, H = inst.cols * u, inst.rows * u
    gap = max(40.0, 0.9 * u)
    c = Canvas()
    opt = f", published optimum {inst.optimal}" if inst.optimal is not None else ""
    c.text(0, -44, f"{inst.name}: {inst.rows}x{inst.cols} sliding puzzle{opt}", size=15,
           anchor="start", weight="bold")
    if solution is None:
        why = infeasible_reason(inst)
        c.text(0, -26, f"unsolvable: {why.split(';')[0]}" if why else
               f"Manhattan lower bound {manhattan(inst)}",
               size=12, anchor="start", fill=MUTED)
        board(c, inst, inst.start, 0, 0, "start", u)
        _arrow(c, W + 8, H / 2, gap - 16)
        board(c, inst, inst.goal, W + gap, 0, "goal", u)
        return c.svg(title=f"sliding {inst.name}")
    steps = replay(inst, solution)
    n = len(steps) - 1
    k = min(INTERMEDIATE, max(0, n - 1))
    shown = sorted({0, n} | {round(n * i / (k + 1)) for i in range(1, k + 1)})
    c.text(0, -26, f"{n} moves (tile and the way it slides); positions after the moves shown",
           size=12, anchor="start", fill=MUTED)
    for j, m in enumerate(shown):
        label = "start" if m == 0 else ("goal" if m == n else f"after {m}")
        if m == n and n:
            label = f"goal, after {n}"
        x = j * (W + gap)
        board(c, inst, steps[m][0], x, 0, label, u)
        if j + 1 < len(shown):
            _arrow(c, x + W + 8, H / 2, gap - 16)
    moves = [s for _, s in steps[1:]]
    y = H + 36
    c.text(0, y, "moves:", size=12, anchor="start", weight="bold")
    for i in range(0, len(moves), MOVES_PER_LINE):
        y += 18
        chunk = moves[i:i + MOVES_PER_LINE]
        c.text(0, y, f"{i + 1}–{i + len(chunk)}", size=12, anchor="start", fill=MUTED)
        c.text(64, y, "  ".join(chunk), size=12, anchor="start", class_="moves")
    return c.svg(title=f"sliding {inst.name}: {n} moves")


def _arrow(c: Canvas, x: float, y: float, length: float) -> None:
    c.line(x, y, x + length, y, stroke=MUTED, stroke_width=2.5,
           marker_end=c.marker("slide-arrow", MUTED, 10))


__all__ = ["draw", "board", "replay"]
