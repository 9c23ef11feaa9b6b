"""Calculation maze ("Paper Challeran", 計算迷路チャレラン): rules, formats, checker, generator.

A W x H grid of intersections; every grid edge carries an operation `+k`, `-k` or `*k` (k >= 0).
The score starts at 1; a walk goes from the start to the goal along grid edges, applying each edge's
operation in walking order, using each edge at most once (intersections may repeat, the goal may be
passed through). The objective is the score on the final arrival at the goal, to be maximised.
Scores are exact Python integers (they may be negative). A file may carry a walk already made
(`prefix`): every solution walk begins with it.

>>> m = catalogue()["sample1"]()
>>> check(m, (0, 1, 2, 5, 4, 3, 6, 7, 8))
36
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

from ..core.limits import MAZE_MAX_NODES, too_big
from ..core.result import CheckError, InputError
from ..core.inputs import Instance, Source, json_ints, read_text, require

Node = int                 # intersection id y*W + x, 0 at the top left
Op = tuple[str, int]       # ("+", k), ("-", k) or ("*", k), k >= 0
Walk = tuple[Node, ...]    # a solution: the nodes visited, start .. goal (prefix included)

KIND = "maze"
SENSE = "max"
OPS = "+-*"
_DATA = Path(__file__).parent / "data" / "maze"


@dataclass(frozen=True)
class Maze(Instance):
    """A calculation maze: `ops` in file order (row y: W-1 horizontal edges, then W vertical ones
    down to row y+1), start, goal, and the pre-walked prefix (nodes, beginning with the start)."""

    name: str
    width: int                 # W: intersections per row
    height: int                # H: intersections per column
    ops: tuple[Op, ...]        # 2WH - W - H operations, edge id = position in file order
    start: Node
    goal: Node
    prefix: Walk = ()          # () or (start,): nothing walked yet

    @property
    def nodes(self) -> int:
        return self.width * self.height

    @cached_property
    def edges(self) -> tuple[tuple[Node, Node], ...]:
        """Edge endpoints (a, b), a < b, in file order (the order of `ops`)."""
        W, H = self.width, self.height
        out = []
        for y in range(H):
            out += [(y * W + x, y * W + x + 1) for x in range(W - 1)]
            if y < H - 1:
                out += [(y * W + x, (y + 1) * W + x) for x in range(W)]
        return tuple(out)

    @property
    def walked(self) -> Walk:
        """The pre-walked nodes, at least (start,)."""
        return self.prefix if self.prefix else (self.start,)

    def _repr_svg_(self) -> str:
        return svg(self)


def op_apply(op: Op, s: int) -> int:
    """The score after applying `op` to `s`."""
    c, k = op
    return s + k if c == "+" else s - k if c == "-" else s * k


def op_str(op: Op) -> str:
    return f"{op[0]}{op[1]}"


def parse_op(tok: str) -> Op:
    """'+3' -> ('+', 3); ValueError on anything else."""
    if len(tok) < 2 or tok[0] not in OPS or not tok[1:].isdigit():
        raise ValueError(tok)
    return (tok[0], int(tok[1:]))


def _op_count(W: int, H: int) -> int:
    return 2 * W * H - W - H


def _validate(name: str, W: int, H: int, ops: tuple[Op, ...], walked: list[int], goal: int,
              err: Callable[[str, str], InputError]) -> Maze:
    """A Maze from checked parts; `err(msg, part)` makes the InputError, `part` being the data
    at fault: "start", "walked" (a pre-walked path beyond the start) or "goal"."""
    n = W * H
    path = "walked" if len(walked) > 1 else "start"
    for part, ps in ((path, walked), ("goal", [goal])):
        for p in ps:
            if not 0 <= p < n:
                raise err(f"node {p} is off the {W}x{H} grid (ids 0..{n - 1})", part)
    if not walked:
        raise err("the pre-walked path must contain at least the start", "start")
    used = set()
    for a, b in zip(walked, walked[1:]):
        ax, ay, bx, by = a % W, a // W, b % W, b // W
        if abs(ax - bx) + abs(ay - by) != 1:
            raise err(f"pre-walked step {a}->{b} is not a grid edge", "walked")
        e = (min(a, b), max(a, b))
        if e in used:
            raise err(f"pre-walked path uses edge {a}-{b} twice (not a trail)", "walked")
        used.add(e)
    prefix = tuple(walked) if len(walked) > 1 else ()
    return Maze(name, W, H, ops, walked[0], goal, prefix)


# ---------------------------------------------------------------------------------------------
# The reference text format (challerunF)

def parse_text(text: str, name: str = "maze", path: Path | str | None = None) -> Maze:
    """Parse the reference format: `W H`, 2H-1 op rows, `m p0 .. p(m-1) g`, an ignored last line.

    `#` starts a comment; blank lines are skipped; rows of zero ops (W = 1) take no line.
    Errors name the file and line.
    """
    where = path if path is not None else name
    lines = [(i, ln.split("#", 1)[0].split()) for i, ln in enumerate(text.splitlines(), 1)]
    lines = [(i, toks) for i, toks in lines if toks]
    it = iter(lines)

    def err(msg: str, line: int | None) -> InputError:
        return InputError(msg, file=where, line=line)

    try:
        ln, toks = next(it)
    except StopIteration:
        raise err("empty file: expected 'W H' on the first line", 1) from None
    if len(toks) != 2 or not all(t.isdigit() for t in toks):
        raise err(f"expected 'W H' (two positive integers), got {' '.join(toks)!r}", ln)
    W, H = int(toks[0]), int(toks[1])
    if W < 1 or H < 1:
        raise err(f"grid size {W}x{H}: both must be at least 1", ln)
    if W * H > MAZE_MAX_NODES:
        raise err(too_big(f"grid size {W}x{H}", W * H, MAZE_MAX_NODES, " intersections"), ln)
    ops: list[Op] = []
    last = ln
    for r in range(2 * H - 1):
        want = W - 1 if r % 2 == 0 else W
        what = (f"horizontal ops of row {r // 2}" if r % 2 == 0
                else f"vertical ops between rows {r // 2} and {r // 2 + 1}")
        if want == 0:
            continue
        try:
            ln, toks = next(it)
        except StopIteration:
            raise err(f"file ends before the {what} ({2 * H - 1} op rows expected)", last + 1) from None
        last = ln
        if len(toks) != want:
            raise err(f"{what}: {len(toks)} ops, expected {want} (ragged op row)", ln)
        for t in toks:
            try:
                ops.append(parse_op(t))
            except ValueError:
                raise err(f"{what}: bad operation {t!r} (expected +k, -k or *k with k a "
                          "non-negative integer)", ln) from None
    try:
        ln, toks = next(it)
    except StopIteration:
        raise err("missing start/goal line 'm p0 .. p(m-1) g' (e.g. '1 0 8': start 0, goal 8)",
                  last + 1) from None
    if not all(t.lstrip("-").isdigit() for t in toks):
        raise err(f"start/goal line: expected integers, got {' '.join(toks)!r}", ln)
    nums = [int(t) for t in toks]
    m = nums[0]
    if m < 1 or len(nums) != m + 2:
        raise err(f"start/goal line: 'm p0 .. p(m-1) g' with m >= 1 needs m + 2 integers; "
                  f"got {len(nums)} with m = {m}", ln)
    return _validate(name, W, H, tuple(ops), nums[1:-1], nums[-1],
                     lambda msg, part: err(f"start/goal line ({part}): {msg}", ln))


def load_text(path: Path | str, text: str | None = None) -> Maze:
    """A Maze from a reference-format file (its stem is the name)."""
    path = Path(path)
    if text is None:
        text = read_text(path)  # the bounded reader: a regular file within the input limit
    return parse_text(text, path.stem, path)


SUFFIXES = {".txt": load_text}


def to_text(m: Maze) -> str:
    """The maze in the reference format (parse_text(to_text(m)) == m up to the name)."""
    W, H = m.width, m.height
    out, i = [f"{W} {H}"], 0
    for r in range(2 * H - 1):
        k = W - 1 if r % 2 == 0 else W
        if k:
            out.append(" ".join(op_str(o) for o in m.ops[i:i + k]))
        i += k
    w = m.walked
    out.append(" ".join(map(str, [len(w), *w, m.goal])))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# TOML

def from_toml(data: dict, src: Source) -> Maze:
    """A Maze from TOML: rows, cols, horizontal (rows x cols-1), vertical (rows-1 x cols), start,
    goal (node id or [row, col]) and optional `walked` (pre-walked node ids, from the start).

    Op rows are strings of tokens ("+1 *2") or lists of tokens (["+1", "*2"]).
    """
    H = require(data, "rows", int, src)
    W = require(data, "cols", int, src)
    if W < 1 or H < 1:
        raise src.error(f"grid size {H} rows x {W} cols: both must be at least 1", field="rows")
    if W * H > MAZE_MAX_NODES:
        raise src.error(too_big(f"grid size {H} rows x {W} cols", W * H, MAZE_MAX_NODES,
                                " intersections"), field="rows")
    name = require(data, "name", str, src, default=src.path.stem if src.path else src.name)
    hor = require(data, "horizontal", list, src, default=[] if W == 1 else ...)
    ver = require(data, "vertical", list, src, default=[] if H == 1 else ...)
    grid = {}
    for key, rows, nrows, ncols in (("horizontal", hor, H, W - 1), ("vertical", ver, H - 1, W)):
        if ncols == 0 or nrows == 0:
            if any(r for r in rows):
                raise src.error(f"expected no {key} ops on a {H}x{W} grid", field=key)
            grid[key] = [[] for _ in range(nrows)]
            continue
        if len(rows) != nrows:
            raise src.error(f"{len(rows)} rows, expected {nrows}", field=key)
        parsed = []
        for i, r in enumerate(rows):
            toks = r.split() if isinstance(r, str) else r
            if not isinstance(toks, list) or not all(isinstance(t, str) for t in toks):
                raise src.error(f"row {i}: expected a string of ops or a list of op strings",
                                field=f"{key}[{i}]")
            if len(toks) != ncols:
                raise src.error(f"row {i}: {len(toks)} ops, expected {ncols} (ragged op row)",
                                field=f"{key}[{i}]")
            try:
                parsed.append([parse_op(t) for t in toks])
            except ValueError as e:
                raise src.error(f"row {i}: bad operation {e.args[0]!r} (expected +k, -k or *k)",
                                field=f"{key}[{i}]") from None
        grid[key] = parsed
    ops: list[Op] = []
    for y in range(H):
        ops += grid["horizontal"][y]
        if y < H - 1:
            ops += grid["vertical"][y]

    def node(key: str, v) -> int:
        if isinstance(v, list) and len(v) == 2 and all(isinstance(t, int) and not isinstance(t, bool)
                                                       for t in v):
            r, c = v
            if not (0 <= r < H and 0 <= c < W):
                raise src.error(f"[row, col] = {v} is off the {H}x{W} grid", field=key)
            return r * W + c
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        raise src.error("expected a node id (y*cols + x) or [row, col]", field=key)

    start = node("start", require(data, "start", (int, list), src))
    goal = node("goal", require(data, "goal", (int, list), src))
    walked = require(data, "walked", list, src, default=[])
    walked = [node("walked", v) for v in walked] or [start]
    if walked[0] != start:
        raise src.error(f"walked path begins at {walked[0]}, not at the start {start}", field="walked")
    return _validate(name, W, H, tuple(ops), walked, goal, lambda msg, part: src.error(msg, field=part))


def to_toml(m: Maze) -> str:
    """The maze as a TOML instance file."""
    W, H = m.width, m.height
    hor, ver, i = [], [], 0
    for y in range(H):
        hor.append(" ".join(op_str(o) for o in m.ops[i:i + W - 1]))
        i += W - 1
        if y < H - 1:
            ver.append(" ".join(op_str(o) for o in m.ops[i:i + W]))
            i += W
    q = json.dumps
    out = ['kind = "maze"', f"name = {q(m.name)}", f"rows = {H}", f"cols = {W}",
           "horizontal = [\n" + "".join(f"  {q(r)},\n" for r in hor) + "]",
           "vertical = [\n" + "".join(f"  {q(r)},\n" for r in ver) + "]",
           f"start = {m.start}", f"goal = {m.goal}"]
    if m.prefix:
        out.append(f"walked = {list(m.prefix)}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Catalogue and generator

def _optima() -> dict:
    return json.loads((_DATA / "optima.json").read_text(encoding="utf-8"))


def reference_optimum(m: Maze) -> int | None:
    """The published optimum of a shipped instance (None for others)."""
    rec = _optima().get(m.name)
    return None if rec is None else rec["optimum"]


def catalogue() -> dict[str, Callable[[], Maze]]:
    """The six shipped instances by name."""
    names = ("sample1", "sample2", "sample3", "11_56", "12_57", "12_66")
    return {n: (lambda n=n: load_text(_DATA / f"{n}.txt")) for n in names}


def generate(rows: int, cols: int, seed: int = 0, *, start: Node | None = None,
             goal: Node | None = None, mul_rate: float = 0.08, sub_rate: float = 0.2,
             max_k: int = 9, name: str | None = None) -> Maze:
    """A random maze like the published ones: mostly +1..+max_k, some -k, a few *2 / *3.

    Start defaults to the top-left corner, goal to the bottom-right. Same arguments, same maze.

    >>> generate(3, 4, seed=1) == generate(3, 4, seed=1)
    True
    """
    if rows < 1 or cols < 1:
        raise InputError(f"grid size {rows}x{cols}: both must be at least 1")
    rng = random.Random(seed)
    ops = []
    for _ in range(_op_count(cols, rows)):
        u = rng.random()
        if u < mul_rate:
            ops.append(("*", rng.choice((2, 2, 3))))
        elif u < mul_rate + sub_rate:
            ops.append(("-", rng.randint(1, max(1, max_k // 3))))
        else:
            ops.append(("+", rng.randint(1, max_k)))
    n = rows * cols
    start = 0 if start is None else start
    goal = n - 1 if goal is None else goal
    return _validate(name or f"random-{rows}x{cols}-s{seed}", cols, rows, tuple(ops), [start], goal,
                     lambda msg, part: InputError(msg, field=part))


# ---------------------------------------------------------------------------------------------
# Checker (shares no code with any solver)

def check(m: Maze, walk) -> int:
    """The score of `walk` (node ids) on `m`; CheckError unless it is a legal walk.

    Legal: a sequence of grid-adjacent nodes, no edge twice, beginning with the pre-walked prefix
    (or the start), ending at the goal.
    """
    W, H = m.width, m.height
    w = list(walk)
    if not w:
        raise CheckError("empty walk (it must at least contain the start)")
    for p in w:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < W * H:
            raise CheckError(f"node {p!r} is not an intersection of the {W}x{H} grid")
    pre = list(m.prefix) if m.prefix else [m.start]
    if w[:len(pre)] != pre:
        raise CheckError(f"walk does not begin with the start / pre-walked path {pre}")
    if w[-1] != m.goal:
        raise CheckError(f"walk ends at {w[-1]}, not at the goal {m.goal}")
    seen = set()
    score = 1
    for a, b in zip(w, w[1:]):
        ay, ax, by, bx = divmod(a, W) + divmod(b, W)
        if ay == by and abs(ax - bx) == 1:
            eid = ay * (2 * W - 1) + min(ax, bx)
        elif ax == bx and abs(ay - by) == 1:
            eid = min(ay, by) * (2 * W - 1) + (W - 1) + ax
        else:
            raise CheckError(f"step {a}->{b} is not a grid edge")
        if eid in seen:
            raise CheckError(f"edge {a}-{b} is used twice")
        seen.add(eid)
        c, k = m.ops[eid]
        score = score + k if c == "+" else score - k if c == "-" else score * k
    return score


def solution_json(m: Maze, walk) -> dict:
    return {"walk": list(walk), "score": check(m, walk)}


def solution_from_json(m: Maze, data: dict) -> Walk:
    """The walk of `{"walk": [node, ...]}`; CheckError when malformed."""
    if not isinstance(data.get("walk"), list):
        raise CheckError('maze solution JSON needs "walk": [node, node, ...]')
    return json_ints(data["walk"], "walk")


def svg(inst, solution=None) -> str:
    """The instance (and a checked solution) drawn as an SVG document (puzzles/draw/maze.py)."""
    from .draw.maze import draw
    return draw(inst, solution)


def solution_key(m: Maze, walk, up_to_symmetry: bool = False):
    return tuple(walk)


def describe(m: Maze) -> dict:
    kinds = {c: sum(1 for o in m.ops if o[0] == c) for c in OPS}
    d = {"name": m.name, "kind": KIND, "cols (W)": m.width, "rows (H)": m.height,
         "edges": len(m.ops), "start": m.start, "goal": m.goal,
         "adds": kinds["+"], "subs": kinds["-"], "muls": kinds["*"]}
    if m.prefix:
        d["pre-walked"] = list(m.prefix)
    opt = reference_optimum(m)
    if opt is not None:
        d["reference optimum"] = opt
    return d


def infeasible_reason(m: Maze) -> str | None:
    """Non-None only if the goal cannot be reached over the edges the pre-walked path left free."""
    W, H = m.width, m.height
    w = m.walked
    used = {(min(a, b), max(a, b)) for a, b in zip(w, w[1:])}
    here = w[-1]
    seen, todo = {here}, [here]
    while todo:
        v = todo.pop()
        y, x = divmod(v, W)
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= ny < H and 0 <= nx < W:
                u = ny * W + nx
                if u not in seen and (min(u, v), max(u, v)) not in used:
                    seen.add(u)
                    todo.append(u)
    if m.goal in seen:
        return None
    return f"the pre-walked path ends at {here}, from which no unused edges lead to the goal {m.goal}"


def render(m: Maze, walk=None) -> str:
    """The grid with its operations (S start, G goal, o other); a walk is listed under it."""
    W, H = m.width, m.height
    cw = max(3, max((len(op_str(o)) for o in m.ops), default=1))
    used = set()
    if walk is not None:
        used = {(min(a, b), max(a, b)) for a, b in zip(walk, walk[1:])}
    eid = {e: i for i, e in enumerate(m.edges)}
    mark = {m.start: "S", m.goal: "G"} if m.start != m.goal else {m.start: "@"}
    lines = []
    for y in range(H):
        row = ""
        for x in range(W):
            v = y * W + x
            row += mark.get(v, "o")
            if x < W - 1:
                e = (v, v + 1)
                fill = "=" if e in used else "-"
                row += fill + " " + op_str(m.ops[eid[e]]).center(cw) + " " + fill
        lines.append(row)
        if y < H - 1:
            row = ""
            for x in range(W):
                v = y * W + x
                e = (v, v + W)
                cell = ("#" if e in used else "|") + op_str(m.ops[eid[e]])
                row += cell.ljust(cw + 5) if x < W - 1 else cell
            lines.append(row.rstrip())
    if walk is not None:
        lines.append(f"walk ({len(walk) - 1} edges): " + " ".join(map(str, walk)))
        try:
            lines.append(f"score: {check(m, walk)}")
        except CheckError as e:
            lines.append(f"invalid walk: {e}")
    return "\n".join(lines)
