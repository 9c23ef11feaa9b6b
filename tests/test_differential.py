"""Random differential test (issue 17): seeded random small instances of all four families —
multiplier-heavy mazes and big mazes (10x11, past the old 186-edge limit) included — and of the
Lights Out and Rush Hour plug-ins (examples/lightsout, examples/rushhour), run through `compare`
over the engines; every verdict must be AGREE and equal to an oracle written here from the rules
(SPEC.md, the plug-ins' READMEs), sharing no code with puzzlesat's engines, checkers or piece
tables. A plug-in not installed is imported from examples/ and registered only while its cases run.

The CI run is `test_random_instances_agree_with_the_oracles` (seed 17, a few dozen `compare` runs);
`python bench/differential.py N [--seed S]` runs N instances per family with the same code.
"""
from __future__ import annotations

import contextlib
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from puzzlesat.compare.crossval import Verdict, compare
from puzzlesat.families.registry import family
from puzzlesat.puzzles import maze as M
from puzzlesat.puzzles import peg as G
from puzzlesat.puzzles import pentomino as P
from puzzlesat.core.result import Status, Task
from puzzlesat.puzzles.sliding import Sliding
from oracles import maze_snake


@dataclass
class Case:
    """One instance, a task, the engines to compare and the oracle's answer: (objective, count);
    objective None = infeasible."""

    family: str
    instance: Any
    task: Task
    engines: tuple[str, ...]
    want: tuple[int | None, int]
    note: str = ""


# ---- calculation maze --------------------------------------------------------------------------
def maze_oracle(m) -> tuple[int | None, int]:
    """(best score, walks scoring it) over every trail: the plain recursion of the maze tests,
    written from the rules and sharing no code with puzzlesat."""
    from test_maze_engines import _oracle
    return _oracle(m)


def _random_trail(rng, W, H, start, length):
    """A random pre-walked path of up to `length` edges from `start` (a trail)."""
    walk, used = [start], set()
    for _ in range(length):
        y, x = divmod(walk[-1], W)
        nxt = [(ny * W + nx) for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1))
               if 0 <= ny < H and 0 <= nx < W
               and (min(walk[-1], ny * W + nx), max(walk[-1], ny * W + nx)) not in used]
        if not nxt:
            break
        u = rng.choice(nxt)
        used.add((min(walk[-1], u), max(walk[-1], u)))
        walk.append(u)
    return tuple(walk) if len(walk) > 1 else ()


def _ops(rng, n, mul_rate):
    out = []
    for _ in range(n):
        u = rng.random()
        if u < mul_rate:
            out.append(("*", rng.choice((0, 1, 2, 2, 3, 3, 4, 5))))
        elif u < mul_rate + (1 - mul_rate) / 3:
            out.append(("-", rng.randint(0, 6)))
        else:
            out.append(("+", rng.randint(0, 9)))
    return tuple(out)


def small_maze(rng: random.Random, i: int, quick: bool = False) -> Case:
    """Up to 3x3 (12 edges): every engine, brute force included; multiplier-heavy half the time."""
    W, H = rng.choice(((2, 2), (3, 2), (2, 3), (3, 3), (4, 2), (1, 4)))
    mul = rng.choice((0.1, 0.5, 0.8))
    ops = _ops(rng, 2 * W * H - W - H, mul)
    n = W * H
    start, goal = rng.randrange(n), rng.randrange(n)
    prefix = _random_trail(rng, W, H, start, rng.choice((0, 0, 1, 2, 3)))
    m = M.Maze(f"maze{i}-{W}x{H}-mul{mul}", W, H, ops, start, goal, prefix)
    task = rng.choice((Task.OPTIMIZE, Task.COUNT))
    return Case("maze", m, task, ("native:dfs", "native:brute", "cpsat:time", "cpsat:segments"),
                maze_oracle(m), f"mul_rate {mul}")


def big_maze(rng: random.Random, i: int, quick: bool = False) -> Case:
    """10 rows x 11 cols (199 edges): a pre-walked path snakes through all but a small block, so
    the oracle stays cheap while edge ids past 186 are walked and searched. The dead-end columns
    keep ~70 edges free, so the CP-SAT models are big (`quick`: few multipliers, which keeps the
    segment model to a few segments, and no cpsat:time: 31k variables, 3-7 s of CPU)."""
    H, W, keep = 10, 11, rng.choice((4, 5, 6))
    p = maze_snake(W, H, keep)
    mul = 0.08 if quick else rng.choice((0.08, 0.5))
    ops = _ops(rng, 2 * W * H - W - H, mul)
    m = M.Maze(f"maze{i}-10x11-keep{keep}", W, H, ops, 0, W * H - 1, p)
    engines = ("native:dfs", "native:brute", "cpsat:segments") + (() if quick else ("cpsat:time",))
    return Case("maze", m, rng.choice((Task.OPTIMIZE, Task.COUNT)), engines, maze_oracle(m),
                f"big, mul_rate {mul}")


# ---- peg solitaire -----------------------------------------------------------------------------
def peg_oracle(coords, dirs, start, finish) -> tuple[int | None, int]:
    """(minimum moves, ordered jump sequences reaching it): forward DP over (pegs, last landing
    hole) layer by layer; a jump starting where the previous one landed continues the move."""
    idx = {p: i for i, p in enumerate(coords)}
    lines = [(idx[(x, y)], idx[(x + dx, y + dy)], idx[(x + 2 * dx, y + 2 * dy)])
             for (x, y) in coords for dx, dy in dirs
             if (x + dx, y + dy) in idx and (x + 2 * dx, y + 2 * dy) in idx]
    layer = {(frozenset(start), None): (0, 1)}
    need = len(start) - (1 if finish is None else len(finish))
    for _ in range(need):
        nxt: dict = {}
        for (pegs, last), (mv, cnt) in layer.items():
            for a, b, c in lines:
                if a in pegs and b in pegs and c not in pegs:
                    key = (pegs - {a, b} | {c}, c)
                    cost = mv + (0 if a == last else 1)
                    old = nxt.get(key)
                    if old is None or cost < old[0]:
                        nxt[key] = (cost, cnt)
                    elif cost == old[0]:
                        nxt[key] = (cost, old[1] + cnt)
        layer = nxt
    ends = [(mv, cnt) for (pegs, _), (mv, cnt) in layer.items()
            if finish is None or pegs == frozenset(finish)]
    if not ends:
        return None, 0
    best = min(mv for mv, _ in ends)
    return best, sum(cnt for mv, cnt in ends if mv == best)


def random_peg(rng: random.Random, i: int, quick: bool = False) -> Case:
    """A hoppers, triangle15 or small orthogonal rectangle board; a random start of 4-7 pegs; the
    finish where a random jump sequence ends (feasible), any one peg, or a random set."""
    kind = rng.choice(("hoppers", "triangle15", "rect"))
    if kind == "rect":
        w, h = rng.choice(((4, 3), (5, 3), (4, 4)))
        board = G.Board(f"rect{w}x{h}", tuple((x, y) for y in range(h) for x in range(w)),
                        ((1, 0), (-1, 0), (0, 1), (0, -1)))
    else:
        board = G.board(kind)
    coords, dirs = board.coords, board.directions
    most = 6 if quick else 8
    start = frozenset(rng.sample(range(len(coords)), rng.randint(4, min(most, len(coords) - 1))))
    idx = {p: k for k, p in enumerate(coords)}
    lines = [(idx[(x, y)], idx[(x + dx, y + dy)], idx[(x + 2 * dx, y + 2 * dy)])
             for (x, y) in coords for dx, dy in dirs
             if (x + dx, y + dy) in idx and (x + 2 * dx, y + 2 * dy) in idx]
    pegs = set(start)
    for _ in range(rng.randint(1, len(start) - 1)):
        ok = [(a, b, c) for a, b, c in lines if a in pegs and b in pegs and c not in pegs]
        if not ok:
            break
        a, b, c = rng.choice(ok)
        pegs -= {a, b}
        pegs.add(c)
    r = rng.random()
    finish = (frozenset(pegs) if r < 0.6 or len(pegs) == len(start) else None if r < 0.85
              else frozenset(rng.sample(sorted(start), max(1, len(pegs)))))
    if finish is not None and len(finish) == len(start):
        finish = None
    inst = G.PegInstance(f"peg{i}-{board.name}", board, start, finish)
    task = rng.choice((Task.OPTIMIZE, Task.COUNT))
    engines = ("native:iddfs", "cpsat:time", "sat:time") + (("native:bfs",) if task is Task.OPTIMIZE else ())
    return Case("peg", inst, task, engines, peg_oracle(coords, dirs, start, finish), board.name)


# ---- sliding tiles -----------------------------------------------------------------------------
def sliding_oracle(rows, cols, start, goal) -> tuple[int | None, int]:
    """(fewest moves, number of shortest move sequences): BFS over boards counting paths."""
    def succ(b):
        z = b.index(0)
        r, c = divmod(z, cols)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < rows and 0 <= nc < cols:
                t = nr * cols + nc
                nb = list(b)
                nb[z], nb[t] = nb[t], 0
                yield tuple(nb)

    dist, ways, frontier = {start: 0}, {start: 1}, [start]
    while frontier and goal not in dist:
        nxt = []
        for b in frontier:
            for nb in succ(b):
                if nb not in dist:
                    dist[nb] = dist[b] + 1
                    ways[nb] = 0
                    nxt.append(nb)
                if dist[nb] == dist[b] + 1:
                    ways[nb] += ways[b]
        frontier = nxt
    return (dist[goal], ways[goal]) if goal in dist else (None, 0)


def random_sliding(rng: random.Random, i: int, quick: bool = False) -> Case:
    """2x2, 2x3 or 3x2: a uniformly random start (solvable or not; 2x3 and 3x2 need up to 21
    moves) or a random walk from the goal; the default goal or a random one. `quick`: uniform
    starts on 2x2 only, walks of up to 10 moves."""
    rows, cols = rng.choice(((2, 2), (2, 3), (3, 2)))
    n = rows * cols
    goal = tuple(range(1, n)) + (0,) if rng.random() < 0.5 else tuple(rng.sample(range(n), n))
    if rng.random() < 0.4 and not (quick and n > 4):
        start = tuple(rng.sample(range(n), n))
    else:
        b = list(goal)
        for _ in range(rng.randint(0, 10 if quick else 20)):
            z = b.index(0)
            r, c = divmod(z, cols)
            t = rng.choice([nr * cols + nc for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                            if 0 <= nr < rows and 0 <= nc < cols])
            b[z], b[t] = b[t], 0
        start = tuple(b)
    inst = Sliding(f"sliding{i}-{rows}x{cols}", rows, cols, start, goal)
    return Case("sliding", inst, rng.choice((Task.OPTIMIZE, Task.COUNT)),
                ("native:ida", "native:bfs", "native:bidir", "native:iddfs", "cpsat:time", "sat:time"),
                sliding_oracle(rows, cols, start, goal))


# ---- pentomino tiling --------------------------------------------------------------------------
SHAPES = {  # the 12 pentominoes, typed here from their usual pictures (not from puzzlesat)
    "F": [".##", "##.", ".#."], "I": ["#####"], "L": ["####", "#..."], "N": ["##..", ".###"],
    "P": ["##", "##", "#."], "T": ["###", ".#.", ".#."], "U": ["#.#", "###"],
    "V": ["#..", "#..", "###"], "W": ["#..", "##.", ".##"], "X": [".#.", "###", ".#."],
    "Y": ["####", ".#.."], "Z": ["##.", ".#.", ".##"]}


def _orientations(rows: list[str]) -> set[frozenset]:
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    out = set()
    for _ in range(2):
        for _ in range(4):
            cells = [(c, -r) for r, c in cells]
            r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
            out.add(frozenset((r - r0, c - c0) for r, c in cells))
        cells = [(r, -c) for r, c in cells]
    return out


def pentomino_oracle(cells: frozenset, letters: str) -> int:
    """Tilings of `cells` by the pieces `letters`, each once: cover the first empty cell (row-major)
    with every orientation of every unused piece, recursively."""
    forms = {k: _orientations(SHAPES[k]) for k in letters}

    def go(free: frozenset, left: tuple) -> int:
        if not free:
            return 1
        first = min(free)
        total = 0
        for k in left:
            for f in forms[k]:
                anchor = min(f)
                shift = (first[0] - anchor[0], first[1] - anchor[1])
                placed = frozenset((r + shift[0], c + shift[1]) for r, c in f)
                if placed <= free:
                    total += go(free - placed, tuple(x for x in left if x != k))
        return total

    return go(frozenset(cells), tuple(letters))


def random_pentomino(rng: random.Random, i: int, quick: bool = False) -> Case:
    """A rectangle, maybe with random holes, and a random set of k pentominoes of its area."""
    h, w, holes = rng.choice(((2, 5, 0), (3, 5, 0), (4, 5, 0), (2, 10, 0), (3, 4, 2), (4, 4, 1),
                              (3, 7, 1), (4, 6, 4)))
    k = (h * w - holes) // 5
    letters = "".join(sorted(rng.sample(sorted(SHAPES), k)))
    cells = [(r, c) for r in range(h) for c in range(w)]
    for cell in rng.sample(cells, holes):
        cells.remove(cell)
    art = "\n".join("".join("." if (r, c) in cells else "#" for c in range(w)) for r in range(h))
    t = P.make(f"pento{i}-{h}x{w}-{letters}", art, letters)
    n = pentomino_oracle(frozenset(t.cells), letters)
    return Case("pentomino", t, Task.COUNT, ("native:dfs", "cpsat:cover", "sat:cover"),
                (0 if n else None, n), art.replace("\n", "/"))


# ---- Lights Out (the plug-in family of examples/lightsout) --------------------------------------
def lightsout_board(name: str, rows: int, cols: int, on: set[int]):
    """A board of the Lights Out plug-in (installed, else imported from examples/lightsout)."""
    _import_plugin("lightsout")
    from puzzlesat_lightsout.puzzle import board
    return board(name, rows, cols, on)


def _import_plugin(name: str):
    """The plug-in package `puzzlesat_<name>`: installed, else imported from examples/<name>."""
    import importlib
    try:
        mod = importlib.import_module(f"puzzlesat_{name}")
        if getattr(mod, "__file__", None) is not None:
            return mod
        # a namespace package: an empty folder, such as the __pycache__ an uninstall leaves behind
        del sys.modules[f"puzzlesat_{name}"]
    except ImportError:
        pass
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / name))
    return importlib.import_module(f"puzzlesat_{name}")


@contextlib.contextmanager
def plugin_registered(name: str):
    """The plug-in family `name` registered with `puzzlesat.register_family` for the block, unless
    it is installed (its entry point); unregistered after, so no other test sees it."""
    import puzzlesat as ps
    from puzzlesat.families.registry import families
    if name in families():
        yield
        return
    ps.register_family(_import_plugin(name).FAMILY)
    try:
        yield
    finally:
        ps.unregister_family(name)


def lightsout_oracle(rows: int, cols: int, on: set[int]) -> tuple[int | None, int]:
    """(fewest presses, press sets reaching it): every subset of cells, each press toggling itself
    and its orthogonal neighbours, walked in Gray-code order (one press flips per step)."""
    n = rows * cols
    flip = []
    for i in range(n):
        r, c = divmod(i, cols)
        flip.append(sum(1 << (rr * cols + cc) for rr, cc in ((r, c), (r - 1, c), (r + 1, c),
                                                                (r, c - 1), (r, c + 1))
                        if 0 <= rr < rows and 0 <= cc < cols))
    state, best, count = sum(1 << i for i in on), None, 0
    for step in range(1 << n):
        if step:
            j = (step & -step).bit_length() - 1
            state ^= flip[j]
        if state == 0:
            g = step ^ (step >> 1)  # the press set after `step` steps
            k = bin(g).count("1")
            if best is None or k < best:
                best, count = k, 0
            count += k == best
    return best, count


def random_lightsout(rng: random.Random, i: int, quick: bool = False) -> Case:
    """Up to 4x4 (3x4 when `quick`): a uniformly random start (often unsolvable where the board
    has quiet patterns) or one made by random presses (solvable); SAT also with the Tseitin-chain
    XOR encoding and the ascending search."""
    rows, cols = rng.choice(((1, 4), (2, 2), (2, 3), (3, 3), (2, 4), (3, 4), (2, 5))
                            + (() if quick else ((4, 4), (3, 5))))
    n = rows * cols
    if rng.random() < 0.5:
        on = {c for c in range(n) if rng.random() < 0.5}
        how = "uniform"
    else:
        on, how = set(), "pressed"
        for c in range(n):
            if rng.random() < 0.5:
                r, cc = divmod(c, cols)
                on ^= {rr * cols + k for rr, k in ((r, cc), (r - 1, cc), (r + 1, cc), (r, cc - 1),
                                                   (r, cc + 1)) if 0 <= rr < rows and 0 <= k < cols}
    inst = lightsout_board(f"lights{i}-{rows}x{cols}", rows, cols, on)
    return Case("lightsout", inst, rng.choice((Task.OPTIMIZE, Task.COUNT)),
                ("native:gf2", "cpsat:xor", "sat:xor", "sat:xor[xor_cut=3,search=ascending]"),
                lightsout_oracle(rows, cols, on), how)


# ---- Rush Hour (the example plug-in examples/rushhour) ---------------------------------------------
def _rushhour():
    """The Rush Hour plug-in's puzzle module (installed, else imported from examples/rushhour)."""
    import importlib
    _import_plugin("rushhour")
    return importlib.import_module("puzzlesat_rushhour.puzzle")


def rushhour_oracle(rows: list[str], metric: str) -> tuple[int | None, int]:
    """(fewest moves or steps, number of shortest plans) by BFS over positions counting paths,
    from the rules: 'X' is the red car, other letters vehicles of 2 or 3 cells in a line, each
    sliding along its line over empty cells ('.'); a move slides one vehicle any distance (one
    cell: a step); done when X's right end is in the last column."""
    R, C = len(rows), len(rows[0])
    cells: dict[str, list] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != ".":
                cells.setdefault(ch, []).append((r, c))
    names = sorted(cells)
    axis = {k: (0, 1) if len({r for r, _ in v}) == 1 else (1, 0) for k, v in cells.items()}
    size = {k: len(v) for k, v in cells.items()}

    def body(k, top):
        return [(top[0] + i * axis[k][0], top[1] + i * axis[k][1]) for i in range(size[k])]

    def succ(pos):
        taken = {cell for k, top in zip(names, pos) for cell in body(k, top)}
        for i, k in enumerate(names):
            for sign in (-1, 1):
                top = pos[i]
                while True:
                    top = (top[0] + sign * axis[k][0], top[1] + sign * axis[k][1])
                    new = body(k, top)
                    if not all(0 <= r < R and 0 <= c < C for r, c in new):
                        break
                    if any(cell in taken and cell not in body(k, pos[i]) for cell in new):
                        break
                    yield pos[:i] + (top,) + pos[i + 1:]
                    if metric == "steps":
                        break

    start = tuple(min(cells[k]) for k in names)
    x = names.index("X")
    done = lambda pos: pos[x][1] + size["X"] - 1 == C - 1  # noqa: E731
    dist, ways, frontier = {start: 0}, {start: 1}, [start]
    while frontier and not any(done(p) for p in frontier):
        nxt = []
        for p in frontier:
            for q in succ(p):
                if q not in dist:
                    dist[q], ways[q] = dist[p] + 1, 0
                    nxt.append(q)
                if dist[q] == dist[p] + 1:
                    ways[q] += ways[p]
        frontier = nxt
    goals = [p for p in frontier if done(p)]
    return (dist[goals[0]], sum(ways[p] for p in goals)) if goals else (None, 0)


def random_rushhour(rng: random.Random, i: int, quick: bool = False) -> Case:
    """A random solvable board of 3..5 rows and 4..5 columns (4x4 when `quick`): the red car X
    and vehicles of length 2 or 3 dropped at random; metric moves or steps; optimize or count
    (count when there are at most 300 optimal plans)."""
    puzzle = _rushhour()
    while True:
        R, C = (4, 4) if quick else rng.choice(((3, 5), (4, 4), (4, 5), (5, 5)))
        g = [["."] * C for _ in range(R)]
        r, c = rng.randrange(R), rng.randrange(C - 2)
        g[r][c] = g[r][c + 1] = "X"
        for k in "ABCDEFGH"[:rng.randint(2, 8)]:
            n, horiz = rng.choice((2, 2, 3)), rng.random() < 0.5
            if (C if horiz else R) < n:
                continue
            rr, cc = rng.randrange(R - (0 if horiz else n - 1)), rng.randrange(C - (n - 1 if horiz else 0))
            spot = [(rr, cc + j) if horiz else (rr + j, cc) for j in range(n)]
            if all(g[a][b] == "." for a, b in spot):
                for a, b in spot:
                    g[a][b] = k
        rows = ["".join(row) for row in g]
        metric = rng.choice(("moves", "steps"))
        want = rushhour_oracle(rows, metric)
        if want[0] is not None and want[0] > 0:
            break
    task = Task.COUNT if want[1] <= 300 and rng.random() < 0.5 else Task.OPTIMIZE
    inst = puzzle.make(f"rushhour{i}-{R}x{C}-{metric}", rows, "X", metric)
    return Case("rushhour", inst, task, ("native:bfs", "cpsat:time", "sat:time"), want, "/".join(rows))


PLUGINS = ("lightsout", "rushhour")  # the example plug-in families among the generators
GENERATORS: dict[str, Callable[[random.Random, int, bool], Case]] = {
    "maze": small_maze, "maze-big": big_maze, "peg": random_peg, "sliding": random_sliding,
    "pentomino": random_pentomino, "lightsout": random_lightsout, "rushhour": random_rushhour}


def cases(seed: int, per: dict[str, int], quick: bool = False) -> list[Case]:
    """`per[g]` instances from each generator, reproducibly from `seed`."""
    rng = random.Random(seed)
    return [GENERATORS[g](rng, i, quick) for g, n in per.items() for i in range(n)]


def run_case(c: Case, time_limit: float = 60.0) -> list[str]:
    """The problems with one case (empty: AGREE and equal to the oracle)."""
    if c.family in PLUGINS:
        with plugin_registered(c.family):
            return _run_case(c, time_limit)
    return _run_case(c, time_limit)


def _run_case(c: Case, time_limit: float) -> list[str]:
    cmp = compare(family(c.family), c.instance, list(c.engines), c.task, time_limit=time_limit)
    obj, cnt = c.want
    bad = []
    if cmp.verdict is not Verdict.AGREE:
        bad.append(f"verdict {cmp.verdict}: {cmp.reasons}")
    for r in cmp.results:
        if obj is None:
            if r.status is not Status.INFEASIBLE:
                bad.append(f"{r.engine}: {r.status} {r.objective}, oracle: infeasible")
            continue
        got = (r.status, r.objective if c.family != "pentomino" else 0)
        if got != (Status.OPTIMAL, obj) or (c.task is Task.COUNT and r.count != cnt):
            bad.append(f"{r.engine}: {r.status} objective {r.objective} count {r.count}, "
                       f"oracle {obj} count {cnt}")
    return bad


def describe(c: Case) -> str:
    text = M.to_text(c.instance) if c.family == "maze" else repr(c.instance)
    return f"{c.family} {c.task} {c.note}\n{text}"


CI = {"maze": 8, "maze-big": 2, "peg": 4, "sliding": 4, "pentomino": 4, "lightsout": 6,
      "rushhour": 4}


def test_oracles_on_published_facts():
    """The oracles themselves, on SPEC facts: 63 fixed pentomino orientations (F8 I2 L8 N8 P8 T4
    U4 V4 W4 X1 Y8 Z4), 2 tilings of 3x20; maze sample1 optimum 36; the 8-puzzle 'hardest'
    position 31 moves with 40 optimal solutions; hoppers 7 moves (SPEC §1)."""
    sizes = {k: len(_orientations(v)) for k, v in SHAPES.items()}
    assert sizes == dict(F=8, I=2, L=8, N=8, P=8, T=4, U=4, V=4, W=4, X=1, Y=8, Z=4)
    assert all(len(next(iter(_orientations(v)))) == 5 for v in SHAPES.values())
    assert maze_oracle(M.catalogue()["sample1"]())[0] == 36
    assert sliding_oracle(3, 3, (8, 6, 7, 2, 5, 4, 3, 0, 1), (1, 2, 3, 4, 5, 6, 7, 8, 0)) == (31, 40)
    hop = G.board("hoppers")
    assert peg_oracle(hop.coords, hop.directions, frozenset(range(13)) - {6}, frozenset({6}))[0] == 7


@pytest.mark.parametrize("c", cases(17, CI, quick=True), ids=lambda c: getattr(c.instance, "name", "?"))
def test_random_instances_agree_with_the_oracles(c):
    bad = run_case(c)
    assert not bad, (bad, describe(c))


def test_cpsat_time_never_calls_a_reachable_goal_infeasible():
    """Found by bench/differential.py 20 --seed 7 (maze3-10x11-keep5): OR-tools 9.15's presolve
    called the feasible time model INFEASIBLE (feasible with presolve off or wider score domains).
    The engine must not pass that on: UNKNOWN with the reason, or the right optimum."""
    c = next(c for c in cases(7, {"maze": 20, "maze-big": 20}) if c.instance.name.startswith("maze3-10x11"))
    from puzzlesat.compare.runner import solve
    for task in (Task.FEASIBLE, Task.OPTIMIZE):
        r = solve(family("maze"), c.instance, "cpsat:time", task, isolate=False, time_limit=60)
        assert r.status is not Status.INFEASIBLE, r.reason
        assert r.objective in (None, c.want[0]) or task is Task.FEASIBLE
