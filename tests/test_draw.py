"""Pictures (puzzlesat.puzzles.draw): each family's SVG is well-formed XML and draws exactly what the
instance and solution hold (one arrow per move, one piece outline per placement, one cell per
tile, one step per walked edge); files are written atomically; the CLI fails cleanly on bad paths."""
from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from puzzlesat.puzzles import maze, peg, pentomino, sliding
from puzzlesat.core.result import InputError
from puzzlesat import svg  # the family's picture, found through the family
from puzzlesat.puzzles.draw import save
from puzzlesat.puzzles.draw.pentomino import Frame, outline

NS = "{http://www.w3.org/2000/svg}"

# Checked solutions (each re-checked below by the family's checker before it is drawn).
HOPPERS = ((0, 3, 6), (9, 6, 3), (2, 1, 0), (0, 3, 6), (11, 6, 1), (10, 5, 0), (0, 1, 2), (2, 4, 6),
           (8, 6, 4), (12, 7, 2), (2, 4, 6))                         # 7 moves, 11 jumps
GRID_6X10 = ("FIIIIIZUUU", "FFFYZZZUXU", "LFYYZNWXXX", "LPPYTNWWXV", "LPPYTNNWWV", "LLPTTTNVVV")
HARDEST_8 = (5, 6, 8, 2, 3, 5, 1, 4, 7, 8, 6, 3, 5, 1, 4, 7, 8, 6, 3, 5, 1, 4, 7, 8, 6, 3, 2, 1, 4,
             7, 8)                                                    # 31 moves (SPEC §3)
SAMPLE1_WALK = (0, 1, 2, 5, 4, 3, 6, 7, 8)                            # score 36 (the optimum)


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == NS + "svg" and float(root.get("width")) > 0 and float(root.get("height")) > 0
    return root


def with_class(root: ET.Element, cls: str, tag: str | None = None) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()
            and (tag is None or e.tag == NS + tag)]


def texts(root: ET.Element) -> list[str]:
    return [e.text or "" for e in root.iter(NS + "text")]


def tiling_from_grid(rows) -> tuple:
    cells: dict[str, list] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            cells.setdefault(ch, []).append((r, c))
    return pentomino.as_solution(cells.items())


# ---- peg ----------------------------------------------------------------------------------
def test_peg_instance_shows_pegs_holes_finish_and_first_jump():
    inst = peg.catalogue()["hoppers-first06"]()
    root = parse(svg(inst))
    assert len(with_class(root, "peg", "circle")) == 12
    assert len(with_class(root, "hole", "circle")) == 1
    assert len(with_class(root, "finish")) == 1
    assert len(with_class(root, "first-jump", "polyline")) == 1
    assert {str(h) for h in range(13)} <= set(texts(root))        # every hole numbered


def test_peg_solution_one_arrow_per_move_one_mark_per_jump():
    inst = peg.catalogue()["hoppers"]()
    assert peg.check(inst, HOPPERS) == 7
    root = parse(svg(inst, HOPPERS))
    assert len(with_class(root, "move", "polyline")) == 7          # a multi-jump move is one arrow
    assert len(with_class(root, "captured", "circle")) == 11       # one peg jumped per jump
    assert len(with_class(root, "panel", "g")) == 8                # the position before each move + the end
    labels = [t for t in texts(root) if re.fullmatch(r"\d+: [\d→]+", t)]
    assert labels[2] == "3: 2→0→6" and labels[4] == "5: 10→0→2→6"
    # the arrow of move 5 passes through its three landing holes: four points
    pts = with_class(root, "move", "polyline")[4].get("points").split()
    assert len(pts) == 4
    # the end panel holds one peg, in the finish hole
    end = with_class(root, "panel", "g")[-1]
    assert len(with_class(end, "peg", "circle")) == 1


def test_peg_triangular_board_is_equilateral():
    from puzzlesat.puzzles.draw.peg import layout
    b = peg.board("triangle15")
    pos = layout(b, 30.0)
    for a, m, _ in b.lines:
        (x1, y1), (x2, y2) = pos[a], pos[m]
        assert abs(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 - 30.0) < 1e-9


# ---- pentomino ----------------------------------------------------------------------------
def test_pentomino_tiling_one_outline_per_piece():
    inst = pentomino.catalogue()["6x10"]()
    sol = tiling_from_grid(GRID_6X10)
    pentomino.check(inst, sol)
    root = parse(svg(inst, sol))
    pieces = with_class(root, "piece", "g")
    assert sorted(g.get("data-piece") for g in pieces) == sorted("FILNPTUVWXYZ")
    assert all(len(g.findall(NS + "path")) == 1 for g in pieces)
    assert len(with_class(root, "board", "g")[0].findall(NS + "rect")) == 60


def test_pentomino_instance_shows_board_and_piece_set():
    inst = pentomino.catalogue()["8x8-centre"]()
    root = parse(svg(inst))
    assert len(with_class(root, "board", "g")[0].findall(NS + "rect")) == 60
    assert sorted(g.get("data-piece") for g in with_class(root, "piece", "g")) == sorted("FILNPTUVWXYZ")


@pytest.mark.parametrize("cells,corners,loops", [
    ([(0, c) for c in range(5)], 4, 1),                                   # I
    ([(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)], 12, 1),                    # X
    ([(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)], 8, 2),  # a ring: outer + hole
    ([(0, 0), (1, 1)], 8, 1),                    # diagonal cells: one figure-eight loop
])
def test_outline_corners_loops_and_area(cells, corners, loops):
    d, _ = outline(Frame(cells, 10.0), cells)
    assert d.count("M") == loops
    assert d.count("L") + d.count("M") == corners
    area = 0.0                                   # signed (shoelace): a hole's loop runs the other way
    for loop in d.strip("MZ").split("ZM"):
        pts = [tuple(map(float, p.split(","))) for p in loop.split("L")]
        area += sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1])) / 2
    assert area == 100.0 * len(cells)


def test_pentomino_box_layers_side_by_side():
    """A hand-made 2x2x5 box (cells (layer, row, col)) tiled by four L pieces crossing layers."""
    L = pentomino.normalise([(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)])
    cells = frozenset((l, r, c) for l in range(2) for r in range(2) for c in range(5))
    sol = []
    for r in range(2):
        sol.append(("L", tuple(sorted([(0, r, 0), (0, r, 1), (0, r, 2), (0, r, 3), (1, r, 0)]))))
        sol.append(("L", tuple(sorted([(1, r, 1), (1, r, 2), (1, r, 3), (1, r, 4), (0, r, 4)]))))
    inst = pentomino.Tiling("box", cells, (pentomino.Piece("L", L, 4),))
    root = parse(svg(inst, tuple(sol)))
    pieces = with_class(root, "piece", "g")
    assert len(pieces) == 4
    assert all(g.find(NS + "path").get("d").count("M") == 2 for g in pieces)   # one part per layer
    assert len({g.find(NS + "path").get("fill") for g in pieces}) == 4          # copies told apart
    assert {"layer 0", "layer 1"} <= set(texts(root))
    board = with_class(root, "board", "g")[0].findall(NS + "rect")
    xs = sorted({float(r.get("x")) for r in board})
    assert len(board) == 20 and len(xs) == 10          # two layers of five columns, side by side


# ---- sliding ------------------------------------------------------------------------------
def test_sliding_solution_boards_and_moves():
    inst = sliding.catalogue()["8-hardest"]()
    assert sliding.check(inst, HARDEST_8) == 31
    root = parse(svg(inst, HARDEST_8))
    blanks = with_class(root, "blank", "rect")
    tiles = with_class(root, "tile", "g")
    assert len(tiles) == 8 * len(blanks) and len(blanks) == 6        # start, 4 on the way, goal
    moves = " ".join(t for e in with_class(root, "moves", "text") for t in [e.text]).split()
    assert [int(m[:-1]) for m in moves] == list(HARDEST_8)
    assert moves[0] == "5↓"                                           # 5 sits above the blank
    last = [int(g.find(NS + "text").text) for g in tiles[-8:]]
    assert last == [t for t in inst.goal if t]                        # the last board is the goal


def test_sliding_instance_start_and_goal():
    inst = sliding.catalogue()["8-unsolvable"]()
    root = parse(svg(inst))
    assert len(with_class(root, "tile", "g")) == 16 and len(with_class(root, "blank")) == 2
    assert any(t.startswith("unsolvable: parity") for t in texts(root))


# ---- maze ---------------------------------------------------------------------------------
def test_maze_walk_one_arrow_per_edge_and_score():
    m = maze.catalogue()["sample1"]()
    assert maze.check(m, SAMPLE1_WALK) == 36
    root = parse(svg(m, SAMPLE1_WALK))
    assert len(with_class(root, "step", "line")) == 8
    assert len(with_class(root, "op", "g")) == len(m.ops) == 12
    assert len(with_class(root, "endpoint", "circle")) == 2
    assert any(t.startswith("walk: 8 edges, score 36") for t in texts(root))
    assert with_class(root, "trace", "text")[0].text.split()[-1].endswith("→36")


def test_maze_prefix_is_drawn_and_bad_step_rejected():
    m = maze.parse_text("3 2\n+1 +2\n+3 *2 -1\n+4 +5\n2 0 1 5\n")
    root = parse(svg(m))
    assert len(with_class(root, "step", "line")) == 1                 # the pre-walked edge
    with pytest.raises(InputError, match="not a grid edge"):
        svg(m, (0, 2, 5))


# ---- dispatch, Jupyter, files --------------------------------------------------------------
@pytest.mark.parametrize("fam,name", [(peg, "hoppers"), (pentomino, "6x10"), (sliding, "8-easy"),
                                      (maze, "sample2")])
def test_repr_svg_is_the_instance_picture(fam, name):
    inst = fam.catalogue()[name]()
    assert inst._repr_svg_() == svg(inst)


def test_unknown_type_is_an_input_error():
    with pytest.raises(InputError, match="not a puzzlesat instance"):
        svg(object())


def test_save_svg_and_bad_targets(tmp_path):
    text = svg(peg.catalogue()["hoppers"]())
    p = save(tmp_path / "a.svg", text)
    assert p.read_text() == text
    with pytest.raises(InputError, match="does not exist"):
        save(tmp_path / "nope" / "a.svg", text)
    with pytest.raises(InputError, match=r"\.svg or \.png"):
        save(tmp_path / "a.jpg", text)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.svg"]      # nothing else left behind


def test_save_png(tmp_path):
    pytest.importorskip("cairosvg")
    p = save(tmp_path / "a.png", svg(maze.catalogue()["sample1"](), SAMPLE1_WALK))
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_png_without_cairosvg_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cairosvg", None)                 # import fails
    with pytest.raises(InputError, match=r"pip install 'puzzlesat\[png\]'"):
        save(tmp_path / "a.png", "<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert list(tmp_path.iterdir()) == []


# ---- CLI ----------------------------------------------------------------------------------
def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "puzzlesat", *args], capture_output=True, text=True,
                          timeout=300)


def test_cli_show_svg(tmp_path):
    f = tmp_path / "m.svg"
    p = run("show", "maze/sample1", "--svg", str(f))
    assert p.returncode == 0, p.stderr
    assert len(with_class(parse(f.read_text()), "op", "g")) == 12


def test_cli_solve_picture(tmp_path):
    f = tmp_path / "h.svg"
    p = run("solve", "peg/hoppers", "--picture", str(f), "--json")
    assert p.returncode == 0, p.stderr
    assert len(with_class(parse(f.read_text()), "move", "polyline")) == 7


@pytest.mark.parametrize("args,needle", [
    (("show", "peg/hoppers", "--svg", "/no/such/dir/x.svg"), "does not exist"),
    (("solve", "peg/english33", "--picture", "/no/such/dir/x.svg"), "does not exist"),
    (("solve", "peg/english33", "--picture", "x.gif"), ".svg or .png"),
])
def test_cli_bad_picture_path_exit_2(args, needle):
    p = run(*args)             # english33 would take a minute: the path is rejected before solving
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and needle in p.stderr and len(p.stderr.splitlines()) == 1


def test_docstring_examples():
    import doctest
    from puzzlesat.puzzles import draw
    from puzzlesat.puzzles.draw import canvas
    for mod in (draw, canvas):
        assert doctest.testmod(mod).failed == 0
