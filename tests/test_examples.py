"""The user formulations in examples/ run through `compare` against the built-in engines and give
the published or brute-forced values (peg/hoppers 7 moves, 72 and, first jump 0-6, 18 optimal
sequences; pentomino/3x20 8 tilings; maze sample1 36, sample2 198 — SPEC.md / README)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import puzzlesat as ps

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def spec(name: str) -> str:
    """The engine spec `ABS/examples/NAME.py:run` (so the test runs from any directory)."""
    return f"{EXAMPLES / name}.py:run"


def agree(instance, name: str, task: str, engines=("native",)):
    """compare(native…, example) must AGREE; returns the example's row."""
    c = ps.compare(instance, [*engines, spec(name)], task)
    rows = c.table()
    assert c.verdict.value == "AGREE", rows
    row = rows[-1]
    assert row["status"] == "OPTIMAL", row
    return row


@pytest.mark.parametrize("name, task, objective, count", [
    ("peg/hoppers", "optimize", 7, None),
    ("peg/hoppers-first06", "count", 7, 18),
])
def test_peg_moves(name, task, objective, count):
    row = agree(ps.load(name), "peg_moves", task)
    assert (row["objective"], row["count"]) == (objective, count)


def test_pentomino_cells_3x20():
    row = agree(ps.load("pentomino/3x20"), "pentomino_cells", "count")
    assert row["count"] == 8


def brute_tilings(cells: set, pieces: list[tuple[str, set, int]]) -> int:
    """Tilings of `cells` by first-empty-cell search (a tiling = its set of placements; copies of a
    piece are interchangeable, so each copy set is counted once)."""
    def forms(shape):
        out = set()
        for _ in range(2):
            shape = {(c, r) for r, c in shape}                      # reflect
            for _ in range(4):
                shape = {(c, -r) for r, c in shape}                 # rotate
                mr, mc = min(r for r, _ in shape), min(c for _, c in shape)
                out.add(frozenset((r - mr, c - mc) for r, c in shape))
        return out
    shapes = {name: forms(shape) for name, shape, _ in pieces}
    left = {name: k for name, _, k in pieces}

    def go(free):
        if not free:
            return 1
        r0, c0 = min(free)
        total = 0
        for name in left:
            if left[name] == 0:
                continue
            for f in shapes[name]:
                ar, ac = min(f)                       # the form's first cell goes on (r0, c0)
                cells_ = {(r - ar + r0, c - ac + c0) for r, c in f}
                if cells_ <= free:
                    left[name] -= 1
                    total += go(free - cells_)
                    left[name] += 1
        return total
    return go(frozenset(cells))


PENTOMINOES = {"L": "####\n#...", "P": "##\n##\n#.", "V": "#..\n#..\n###"}  # oracle's own copy


@pytest.mark.parametrize("board, pieces", [
    ("....\n....\n....", {"D": ("##", 6)}),                       # dominoes on 3x4: copies
    ("....\n....\n....\n....", {"T": ("###\n.#.", 2), "L": ("###\n#..", 1), "S": (".##\n##.", 1)}),
    ("......\n......\n.....x", {"L": ("###\n#..", 2), "I": ("###", 1), "V": ("##\n#.", 2)}),
    (".....\n.....\n.....", "LPV"),                                  # pentominoes once: cell projection
])
def test_pentomino_cells_brute_force(board, pieces):
    if isinstance(pieces, str):
        toml = f'kind = "pentomino"\nboard = """\n{board}\n"""\npieces = "{pieces}"\n'
        pieces = {n: (PENTOMINOES[n], 1) for n in pieces}
    else:
        toml = f'kind = "pentomino"\nboard = """\n{board}\n"""\n' + "".join(
            f'[pieces.{n}]\nshape = """\n{s}\n"""\ncount = {k}\n' for n, (s, k) in pieces.items())
    cells = {(r, c) for r, ln in enumerate(board.split("\n")) for c, ch in enumerate(ln) if ch == "."}

    def shape(s):
        return {(r, c) for r, ln in enumerate(s.split("\n")) for c, ch in enumerate(ln) if ch == "#"}
    want = brute_tilings(cells, [(n, shape(s), k) for n, (s, k) in pieces.items()])
    row = agree(ps.load(toml), "pentomino_cells", "count")
    assert row["count"] == want > 0


@pytest.mark.parametrize("instance, task, objective, count", [
    ("sliding/8-easy", "optimize", 2, None),
    ('kind = "sliding"\nrows = 3\ncols = 3\nstart = [1, 5, 2, 6, 0, 3, 7, 4, 8]', "count", 18, 4),
])
def test_sliding_positions(instance, task, objective, count):
    row = agree(ps.load(instance), "sliding_positions", task, ("native", "native:bfs"))
    assert (row["objective"], row["count"]) == (objective, count)


@pytest.mark.parametrize("name, task, objective, count", [
    ("maze/sample1", "optimize", 36, None),
    ("maze/sample2", "count", 198, 2),
])
def test_maze_circuit(name, task, objective, count):
    row = agree(ps.load(name), "maze_circuit", task)
    assert (row["objective"], row["count"]) == (objective, count)


def test_register_engine_and_cli():
    """The same file works through ps.register_engine and on the command line (--json, exit 0)."""
    mod_spec = importlib.util.spec_from_file_location("maze_circuit_example", EXAMPLES / "maze_circuit.py")
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    ps.register_engine("maze", "example:circuit", mod.run, tasks=mod.run.TASKS)
    try:
        c = ps.compare(ps.load("maze/sample1"), ["native", "example:circuit"], "count")
        assert c.verdict.value == "AGREE" and [r["count"] for r in c.table()] == [1, 1]
    finally:
        from puzzlesat.families.registry import unregister_engine
        unregister_engine("maze", "example:circuit")
    import helpers
    p = helpers.cli("compare", "peg/hoppers", "--engines", f"native,{spec('peg_moves')}", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "AGREE"
    assert [r["objective"] for r in out["results"]] == [7, 7]

