"""Calculation maze core: formats, catalogue, checker, generator, bad input (CLI exit status 2)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlesat.families.instances import load_instance
from puzzlesat.puzzles import maze as M
from puzzlesat.core.result import CheckError, InputError
from puzzlesat.core.inputs import Source

ROOT = Path(__file__).resolve().parents[1]
OPTIMA = {"sample1": 36, "sample2": 198, "sample3": 854, "11_56": 452, "12_57": 924, "12_66": 15535}


def _src(text: str, name="t.toml") -> Source:
    return Source(name=name, path=Path(name), text=text)


def _toml(text: str) -> M.Maze:
    import tomllib
    return M.from_toml(tomllib.loads(text), _src(text))


# ---- catalogue and the reference format ----------------------------------------------------------
def test_catalogue_names_and_sizes():
    """README table: sizes, edge counts, start and goal of the six shipped instances."""
    want = {"sample1": (3, 3, 12, 0, 8), "sample2": (3, 5, 22, 12, 2), "sample3": (6, 6, 60, 0, 35),
            "11_56": (5, 6, 49, 0, 29), "12_57": (5, 7, 58, 0, 34), "12_66": (6, 6, 60, 0, 35)}
    cat = M.catalogue()
    assert set(cat) == set(want)
    for name, (W, H, E, s, g) in want.items():
        m = cat[name]()
        assert (m.width, m.height, len(m.ops), m.start, m.goal) == (W, H, E, s, g)
        assert len(m.ops) == 2 * W * H - W - H
        assert M.reference_optimum(m) == OPTIMA[name]


@pytest.mark.parametrize("name", sorted(OPTIMA))
def test_reference_paths_score_the_optimum(name):
    """results.json: each published optimal path is a legal walk scoring the published optimum."""
    m = M.catalogue()[name]()
    path = json.loads((ROOT / "puzzles/data/maze/optima.json").read_text())[name]["path"]
    assert M.check(m, tuple(path)) == OPTIMA[name]


def test_sample1_rules_example():
    """README: ((1+1+2+1)*2+3)*3-4+1 = 36 by 0-1-2-5-4-3-6-7-8; the file's old walk scores 12."""
    m = M.catalogue()["sample1"]()
    assert m.ops[:5] == (("+", 1), ("+", 2), ("+", 4), ("-", 1), ("+", 1))
    assert M.check(m, (0, 1, 2, 5, 4, 3, 6, 7, 8)) == 36
    assert M.check(m, (0, 3, 6, 7, 8)) == 12


def test_text_round_trip_and_catalogue_names():
    for name, f in M.catalogue().items():
        m = f()
        assert M.parse_text(M.to_text(m), name) == m
        fam, again = load_instance(f"maze/{name}")
        assert fam.name == "maze" and again == m


def test_txt_file_loads_by_suffix(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text((ROOT / "puzzles/data/maze/sample2.txt").read_text())
    fam, m = load_instance(str(p))
    assert fam.name == "maze" and m.start == 12 and m.goal == 2 and m.name == "x"


def test_multi_digit_ops_comments_and_prefix():
    text = "3 2   # W H\n+12 *0\n-7 +3 *10\n+1 -100\n3 0 1 4 5\nignored last line\n"
    m = M.parse_text(text)
    assert m.ops == (("+", 12), ("*", 0), ("-", 7), ("+", 3), ("*", 10), ("+", 1), ("-", 100))
    assert m.start == 0 and m.goal == 5 and m.prefix == (0, 1, 4)
    # a walk must begin with the pre-walked path; it is scored from the start: 1+12+3-100
    assert M.check(m, (0, 1, 4, 5)) == -84
    with pytest.raises(CheckError, match="begin"):
        M.check(m, (0, 3, 4, 5))


def test_prefix_score_counts():
    m = M.parse_text("2 2\n+1\n+2 *3\n+4\n2 0 1 3\n")
    # walked 0-1 (+1) then 1-3 (*3): (1+1)*3 = 6
    assert M.check(m, (0, 1, 3)) == 6
    with pytest.raises(CheckError, match="twice"):
        M.check(m, (0, 1, 0, 2, 3))


def test_toml_form_equals_text_form():
    m = _toml('kind = "maze"\nname = "sample1"\nrows = 3\ncols = 3\n'
              'horizontal = ["+1 +2", ["+3", "*2"], "-4 +1"]\nvertical = ["+4 -1 +1", "*3 -2 +5"]\n'
              'start = [0, 0]\ngoal = 8\n')
    assert m == M.catalogue()["sample1"]()
    assert _toml(M.to_toml(m)) == m


def test_generator_is_seeded_and_loads_back():
    a, b, c = M.generate(4, 5, seed=3), M.generate(4, 5, seed=3), M.generate(4, 5, seed=4)
    assert a == b and a != c
    assert (a.width, a.height, a.start, a.goal, len(a.ops)) == (5, 4, 0, 19, 31)
    assert M.parse_text(M.to_text(a), a.name) == a
    assert _toml(M.to_toml(a)) == a


def test_render_marks_walk():
    m = M.catalogue()["sample1"]()
    out = M.render(m, (0, 1, 2, 5, 4, 3, 6, 7, 8))
    assert out.splitlines()[:2] == ["S=  +1 =o=  +2 =o", "|+4     |-1     #+1"]
    assert "score: 36" in out and M.render(m).splitlines()[0] == "S-  +1 -o-  +2 -o"


# ---- checker -------------------------------------------------------------------------------------
@pytest.mark.parametrize("walk,msg", [
    ((0, 1, 2, 5, 4, 3, 6, 7), "goal"),          # ends elsewhere
    ((1, 2, 5, 8), "begin"),                     # wrong start
    ((0, 2, 5, 8), "grid edge"),                 # jump
    ((0, 1, 0, 1, 4, 5, 8), "twice"),            # edge reused
    ((0, 1, 4, 9), "intersection"),              # off the grid
    ((), "empty"),
])
def test_checker_rejects(walk, msg):
    with pytest.raises(CheckError, match=msg):
        M.check(M.catalogue()["sample1"](), walk)


def test_checker_exact_big_integers():
    """Exact integers: 40 edges of *9 exceed int64; the checker does not overflow."""
    W = 41
    m = M.Maze("long", W, 1, tuple(("*", 9) for _ in range(W - 1)), 0, W - 1)
    m2 = M.Maze("long", W, 1, (("+", 1),) + tuple(("*", 9) for _ in range(W - 2)), 0, W - 1)
    assert M.check(m, tuple(range(W))) == 9 ** 40
    assert M.check(m2, tuple(range(W))) == 2 * 9 ** 39 > 2 ** 63


def test_start_equals_goal_empty_walk():
    m = M.Maze("sg", 2, 2, (("+", 1),) * 4, 0, 0)
    assert M.check(m, (0,)) == 1
    assert M.check(m, (0, 1, 3, 2, 0)) == 5


# ---- infeasibility -------------------------------------------------------------------------------
def test_stranding_prefix_is_infeasible():
    m = M.parse_text("2 2\n+1\n+1 +1\n+1\n5 0 1 3 2 0 3\n")  # walked around the square back to 0
    assert "no unused edges" in M.infeasible_reason(m)
    m2 = M.parse_text("2 2\n+1\n+1 +1\n+1\n3 0 1 3 3\n")   # ends at the goal: fine
    assert M.infeasible_reason(m2) is None
    for f in M.catalogue().values():
        assert M.infeasible_reason(f()) is None


# ---- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,line,msg", [
    ("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n", 7, "missing start/goal line"),
    ("3 3\n+1 +2\n+4 -1\n+3 *2\n*3 -2 +5\n-4 +1\n1 0 8\n", 3, "ragged"),
    ("3 3\n+1 +2\n+4 -1 +1\n+3 /2\n*3 -2 +5\n-4 +1\n1 0 8\n", 4, "bad operation '/2'"),
    ("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n1 0 9\n", 7, "off the 3x3 grid"),
    ("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n3 0 4 8 8\n", 7, "not a grid edge"),
    ("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n4 0 1 0 1 8\n", 7, "twice"),
    ("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n2 0 8\n", 7, r"m \+ 2 integers"),
    ("3\n", 1, "'W H'"),
    ("3 3\n+1 +2\n", 3, "file ends"),
])
def test_bad_text_names_line(text, line, msg):
    with pytest.raises(InputError, match=msg) as ei:
        M.parse_text(text, "bad", "bad.txt")
    assert ei.value.line == line and str(ei.value).startswith(f"bad.txt:{line}:")


@pytest.mark.parametrize("body,field,msg", [
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1 +2"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 3',
     "horizontal[1]", "ragged"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "%1"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 3',
     "horizontal[1]", "bad operation"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\nstart = [2, 0]\ngoal = 3',
     "start", "off the"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 4',
     "goal", "off the"),  # issue 17: a goal off the grid was reported under "start"
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 4\n'
     'walked = [0, 1]', "goal", "off the"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 3\n'
     'walked = [0, 7]', "walked", "off the"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\nstart = 0\ngoal = 3\n'
     'walked = [0, 3]', "walked", "not a grid edge"),
    ('rows = 2\ncols = 2\nhorizontal = ["+1", "+1"]\nvertical = ["+1 +1"]\ngoal = 3',
     "start", "missing"),
])
def test_bad_toml_names_field(body, field, msg):
    text = 'kind = "maze"\n' + body + "\n"
    with pytest.raises(InputError, match=msg) as ei:
        _toml(text)
    assert ei.value.field == field
    assert (ei.value.line is not None) == (msg != "missing")


def test_text_goal_error_names_the_goal():
    """The start/goal line's message says which part is wrong (issue 17)."""
    with pytest.raises(InputError, match=r"\(goal\): node 9 is off") as ei:
        M.parse_text("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n1 0 9\n", "bad", "bad.txt")
    assert ei.value.line == 7
    with pytest.raises(InputError, match=r"\(start\): node 10 is off"):
        M.parse_text("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n1 10 8\n", "bad", "bad.txt")


def test_cli_bad_file_exit_2(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("3 3\n+1 +2\n+4 -1 +1\n+3 *2\n*3 -2 +5\n-4 +1\n")
    import helpers
    res = helpers.cli("solve", str(p), cwd=ROOT, timeout=120)  # a fork of this process
    err = " ".join(res.stderr.split())  # the console may wrap the line
    assert res.returncode == 2
    assert "bad.txt:7:" in err and "missing start/goal line" in err


def test_cli_generate(tmp_path):
    cmd = [sys.executable, "-m", "puzzlesat", "generate", "maze", "--rows", "3", "--cols", "4",
           "--seed", "5"]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    assert M.parse_text(res.stdout, "random-3x4-s5") == M.generate(3, 4, seed=5)
    out = tmp_path / "g.toml"
    res = subprocess.run(cmd + ["--format", "toml", "-o", str(out)], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    assert load_instance(str(out))[1] == M.generate(3, 4, seed=5)
    res = subprocess.run(cmd + ["--goal", "12"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 2
