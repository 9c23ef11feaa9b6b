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
SAMPLE3_WALK = (0, 6, 7, 8, 9, 10, 11, 17, 23, 22, 16, 15, 14, 20, 21, 22, 28, 34, 33, 27, 26, 25,
                24, 30, 31, 25, 19, 18, 12, 13, 7, 1, 2, 3, 9, 15, 21, 27, 28, 29, 35)  # 854, optimal


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
    assert {"z = 0", "z = 1"} <= set(texts(root))
    board = with_class(root, "board", "g")[0].findall(NS + "rect")
    xs = sorted({float(r.get("x")) for r in board})
    assert len(board) == 20 and len(xs) == 10          # two layers of five columns, side by side


def _box_expectations(sol):
    """From a tiling of a box: per piece label, its cells; the cells whose piece goes on in the
    layer above / below; and per piece, its parts per layer (face-connected within the layer)."""
    up, down, parts = set(), set(), {}
    for name, cells in sol:
        mine = set(cells)
        up |= {x for x in mine if (x[0] + 1, x[1], x[2]) in mine}
        down |= {x for x in mine if (x[0] - 1, x[1], x[2]) in mine}
        n = 0
        for z in {x[0] for x in mine}:
            left = {x for x in mine if x[0] == z}
            while left:
                n += 1
                todo = [left.pop()]
                while todo:
                    l, r, c = todo.pop()
                    for y in ((l, r + 1, c), (l, r - 1, c), (l, r, c + 1), (l, r, c - 1)):
                        if y in left:
                            left.discard(y)
                            todo.append(y)
        parts[name] = n
    return up, down, parts


def _cells_of(root, cls):
    return {tuple(int(v) for v in e.get("data-cell").split(",")) for e in with_class(root, cls)}


@pytest.mark.parametrize("name", ["tetracubes-2x4x4", "soma", "2x3x10"])
def test_box_tiling_layer_labels_legend_and_continuations(name):
    """Each layer labelled with its z; a legend names every piece with its colour (the fill of
    the piece on the board); each piece is one path with one part per face-connected part of it
    in a layer, each part lettered; the cells whose piece goes on in the layer above (below)
    carry an up (down) triangle; parts of one piece apart in a layer are linked."""
    from puzzlesat.native_search.pentomino.dfs import tilings
    inst = pentomino.catalogue()[name]()
    sol = next(tilings(inst))
    pentomino.check(inst, sol)
    root = parse(svg(inst, sol))
    assert [e.text for e in with_class(root, "layer-label")] == \
        [f"z = {z}" for z in range(inst.extent[0])]
    pieces = {g.get("data-piece"): g for g in with_class(root, "piece", "g")}
    legend = {g.get("data-label"): g for g in with_class(root, "legend-entry", "g")}
    assert set(legend) == set(pieces) == {n for n, _ in sol}
    for n, g in legend.items():
        assert g.find(NS + "rect").get("fill") == pieces[n].find(NS + "path").get("fill")
        assert g.find(NS + "text").text == n
    up, down, parts = _box_expectations(sol)
    assert _cells_of(root, "continues-up") == up and _cells_of(root, "continues-down") == down
    assert len(with_class(root, "continues-up")) == len(up) > 0
    for n, g in pieces.items():
        assert g.find(NS + "path").get("d").count("M") == parts[n]
        assert [t.text for t in g.iter(NS + "text")] == [n] * parts[n]
    split = sum(parts[n] - len({x[0] for x in cells}) for n, cells in sol)
    assert len(with_class(root, "join", "g")) == split


def test_box_tiling_links_a_piece_apart_in_a_layer():
    """2x3x10: some tiling has a piece (a U standing up) whose cells in one layer are apart."""
    from puzzlesat.native_search.pentomino.dfs import tilings
    inst = pentomino.catalogue()["2x3x10"]()
    for sol in tilings(inst):
        _, _, parts = _box_expectations(sol)
        split = sum(parts[n] - len({x[0] for x in cells}) for n, cells in sol)
        if split:
            break
    root = parse(svg(inst, sol))
    joins = with_class(root, "join", "g")
    assert len(joins) == split > 0
    assert all(len(g.findall(NS + "line")) == 1 for g in joins)


def test_box_piece_colours_tell_apart():
    """Soma's A and P (and the tetracubes' S and P) took two oranges once: every two pieces of
    these sets now differ by at least DISTINCT, the legend showing those colours."""
    import itertools
    from puzzlesat.native_search.pentomino.dfs import tilings
    from puzzlesat.puzzles.draw.pentomino import DISTINCT, colour_distance
    for name in ("soma", "tetracubes-2x4x4", "tetracubes-2x2x8"):
        inst = pentomino.catalogue()[name]()
        root = parse(svg(inst, next(tilings(inst))))
        fills = [g.find(NS + "rect").get("fill") for g in with_class(root, "legend-entry", "g")]
        assert len(fills) == len(inst.pieces)
        assert min(colour_distance(a, b) for a, b in itertools.combinations(fills, 2)) >= DISTINCT


def test_box_instance_draws_solid_pieces_cube_by_cube():
    """A box's piece set: each polycube in isometric projection, three faces per cube, under
    its name; a chiral piece is shown as itself (a rotation of its shape), never its mirror."""
    from puzzlesat.puzzles.draw.pentomino import iso_view
    inst = pentomino.catalogue()["tetracubes-2x4x4"]()
    root = parse(svg(inst))
    assert [e.text for e in with_class(root, "layer-label")] == ["z = 0", "z = 1"]
    iso = {g.get("data-piece"): g for g in with_class(root, "iso", "g")}
    assert set(iso) == {p.name for p in inst.pieces}
    for p in inst.pieces:
        cubes = with_class(iso[p.name], "cube", "g")
        assert len(cubes) == p.size and all(len(g.findall(NS + "path")) == 3 for g in cubes)
        assert [e.text for e in with_class(iso[p.name], "piece-name")] == [p.name]
        shown = frozenset(tuple(int(v) for v in g.get("data-cell").split(",")) for g in cubes)
        assert shown in pentomino.orientations_of(p.shape, rotations_only=True)
        assert shown == frozenset(iso_view(p.shape))
    a, b = (frozenset(pentomino.orientations_of(inst.piece[k].shape, True)) for k in "AB")
    assert a.isdisjoint(b)                         # A and B: mirror images, never each other


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


def _box(e):
    """(x0, y0, x1, y1) of an SVG rect or circle."""
    if e.tag == NS + "circle":
        cx, cy, r = (float(e.get(k)) for k in ("cx", "cy", "r"))
        return cx - r, cy - r, cx + r, cy + r
    x, y, w, h = (float(e.get(k)) for k in ("x", "y", "width", "height"))
    return x, y, x + w, y + h


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("name,walk,score", [("sample1", SAMPLE1_WALK, 36),
                                             ("sample3", SAMPLE3_WALK, 854)])
def test_maze_step_badges_clear_of_operation_labels(name, walk, score):
    """No step badge covers an edge's operation label, an intersection, S or G, or another badge."""
    m = maze.catalogue()[name]()
    assert maze.check(m, walk) == score
    root = parse(svg(m, walk))
    badges = [_box(g.find(NS + "circle")) for g in with_class(root, "badge", "g")]
    labels = [_box(g.find(NS + "rect")) for g in with_class(root, "op", "g")]
    nodes = [_box(e) for e in root.iter(NS + "circle")
             if not e.get("class") and float(e.get("r")) == 5] + \
        [_box(e) for e in with_class(root, "endpoint", "circle")]
    assert len(badges) == len(walk) - 1 and len(labels) == len(m.ops) and len(nodes) == m.nodes + 2
    assert [g.get("data-step") for g in with_class(root, "badge", "g")] == \
        [str(k) for k in range(1, len(walk))]
    for i, b in enumerate(badges):
        assert not any(_overlap(b, x) for x in labels + nodes), (i + 1, b)
        assert not any(_overlap(b, x) for x in badges[:i]), (i + 1, b)


def test_maze_every_edge_badge_clear_of_every_label():
    """Whichever edges a walk takes, on every catalogue maze: the badge place of each edge
    (either direction: one place per edge) against every operation label and every other badge."""
    from puzzlesat.puzzles.draw.maze import BADGE_R, badge_centre, op_box
    for name, load in maze.catalogue().items():
        m = load()
        labels = [(x, y, x + w, y + h) for x, y, w, h in (op_box(m, i) for i in range(len(m.ops)))]
        spots = []
        for a, b in m.edges:
            cx, cy = badge_centre(m, a, b)
            assert badge_centre(m, b, a) == (cx, cy)
            spots.append((cx - BADGE_R, cy - BADGE_R, cx + BADGE_R, cy + BADGE_R))
        for i, s in enumerate(spots):
            assert not any(_overlap(s, x) for x in labels), (name, m.edges[i])
            assert not any(_overlap(s, x) for x in spots[:i]), (name, m.edges[i])


def test_maze_prefix_is_drawn_and_bad_step_rejected():
    m = maze.parse_text("3 2\n+1 +2\n+3 *2 -1\n+4 +5\n2 0 1 5\n")
    root = parse(svg(m))
    assert len(with_class(root, "step", "line")) == 1                 # the pre-walked edge
    with pytest.raises(InputError, match="not a grid edge"):
        svg(m, (0, 2, 5))


# ---- no empty bands, looked at in PNG -----------------------------------------------------------
def _margins(text: str) -> tuple[float, float, float, float]:
    """The blank margins (left, top, right, bottom) of a picture rendered to PNG by cairosvg, in
    SVG units: how far the first non-white pixel is from each edge."""
    import io
    cairosvg = pytest.importorskip("cairosvg")
    Image = pytest.importorskip("PIL.Image")
    from puzzlesat.puzzles.draw import PNG_SCALE
    img = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=text.encode(), scale=PNG_SCALE)))
    rgb = img.convert("RGB")
    box = Image.eval(rgb, lambda v: 255 - v).getbbox()   # the non-white part
    assert box is not None
    w, h = rgb.size
    return tuple(v / PNG_SCALE for v in (box[0], box[1], w - box[2], h - box[3]))


def _pictures():
    """Every picture this suite changed: peg instances and strips (a long jump chain's label
    included), the maze with a walk, box tilings and a box's piece set."""
    from puzzlesat.native_search.pentomino.dfs import tilings
    hop, tri, ipc = (peg.catalogue()[n]() for n in ("hoppers", "triangle21-first146", "ipc-p01"))
    ipc_sol = ((20, 13, 6), (6, 7, 8), (8, 3, 0), (0, 1, 2), (2, 5, 10), (10, 11, 12),
               (12, 19, 26), (26, 25, 24), (24, 29, 32), (32, 31, 30), (30, 27, 22), (21, 22, 23),
               (23, 16, 9), (4, 9, 16))
    assert peg.check(hop, HOPPERS) == 7 and peg.check(ipc, ipc_sol) == 3
    box = pentomino.catalogue()["tetracubes-2x4x4"]()
    return {"peg hoppers": svg(hop), "peg hoppers solution": svg(hop, HOPPERS),
            "peg triangle21 first jump": svg(tri), "peg ipc-p01 solution": svg(ipc, ipc_sol),
            "maze sample3 walk": svg(maze.catalogue()["sample3"](), SAMPLE3_WALK),
            "box tiling": svg(box, next(tilings(box))), "box pieces": svg(box)}


def test_pictures_have_no_empty_band():
    """Each picture's height (and width) fits what it draws: rendered to PNG, the blank margin
    on every side is the padding (12) and the small slack of text estimates, never a band, and
    never nothing (clipped)."""
    for what, text in _pictures().items():
        for side, v in zip(("left", "top", "right", "bottom"), _margins(text)):
            assert 6 <= v <= 20, (what, side, v)


def test_peg_strip_labels_fit_their_panels():
    """A move's label shrinks to its panel's width (ipc-p01's first move jumps 11 times)."""
    from puzzlesat.puzzles.draw.canvas import text_width
    root = parse(_pictures()["peg ipc-p01 solution"])
    panels = with_class(root, "panel", "g")
    labels = with_class(root, "move-label", "text")
    assert len(labels) == len(panels) == 4
    for g, t in zip(panels, labels):
        board = g.find(NS + "rect")
        w = text_width(t.text, float(t.get("font-size")), t.get("font-weight"))
        assert w <= float(board.get("width")) + 0.01
        assert abs(float(t.get("x")) - float(board.get("x")) - float(board.get("width")) / 2) < 0.01
    assert float(labels[0].get("font-size")) < 12 == float(labels[1].get("font-size"))


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
    import helpers
    return helpers.cli(*args, timeout=300)  # a fork of this process


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
