"""Every minimum and every upper bound of `peg problems --least` comes with a solution the
independent checker (puzzles.peg.check) replayed before it was reported: a beam's solution is
replayed, printed and kept in the work folder (a later run replays it again before using it); one
that does not replay is never reported."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from puzzlesat.cli import cli
from puzzlesat.core.result import CheckError
from puzzlesat.native_search.peg import table
from puzzlesat.native_search.peg.problems import problem_instance
from puzzlesat.native_search.peg.table import least_by_bound
from puzzlesat.puzzles.peg import board, check

A6 = 9   # OEIS A127500: triangle6's least minimum over all single-vacancy problems
A7 = 12  # and triangle7's


def _stored(tmp_path) -> dict:
    (path,) = tmp_path.glob("peg-least-upper-*.json")
    return json.loads(path.read_text())


def test_beam_upper_bound_is_replayed_printed_and_kept(tmp_path):
    """triangle7 with K = 9: K refuted (>= 10), the beam's solution (13 moves) is an upper bound;
    it is replayed, printed with its jumps and stored; a run without a beam takes it from the
    folder (replayed again): K = 11 refuted proves 12, the stored solution stays the upper bound;
    with a beam after K = 11 (the known solution is longer than 12) a 12-move one settles it.
    (triangle6's K = 7 served here until the backward bound was corrected: it now refutes K = 7 in
    84 nodes, too few for a beam.)"""
    b = board("triangle7")
    said: list[str] = []
    r = least_by_bound(b, max_moves=9, beam_width=20, work_dir=str(tmp_path), progress=said.append)
    assert r.moves is None and r.lower == 10 and r.solution is not None
    up = check(problem_instance(b, *r.pair), r.solution)
    assert up >= A7
    line = next(s for s in said if s.startswith("beam of 20"))
    assert f"a solution of {up} moves, replayed by the checker" in line
    assert table.solution_text(b, r.pair, r.solution) in line
    d = _stored(tmp_path)
    assert d["moves"] == up and tuple(d["pair"]) == r.pair
    assert check(problem_instance(b, *d["pair"]), tuple(map(tuple, d["solution"]))) == up
    said.clear()
    again = least_by_bound(b, max_moves=11, work_dir=str(tmp_path), progress=said.append)
    assert any(s.startswith(f"stored solution of {up} moves, replayed by the checker")
               for s in said)
    assert again.lower == A7 and (again.moves == A7) == (up == A7)
    assert check(problem_instance(b, *again.pair), again.solution) == up
    third = least_by_bound(b, max_moves=11, beam_width=100, work_dir=str(tmp_path))
    assert third.moves == A7                # a beam after K = 11: a shorter solution, stored
    assert check(problem_instance(b, *third.pair), third.solution) == A7 == _stored(tmp_path)["moves"]
    fourth = least_by_bound(b, max_moves=11, work_dir=str(tmp_path))  # no beam: K = 11 refuted
    assert fourth.moves == fourth.lower == A7   # and the stored 12, replayed again, settles it


def test_the_minimum_is_replayed_and_kept(tmp_path):
    b = board("triangle6")
    said: list[str] = []
    r = least_by_bound(b, work_dir=str(tmp_path), progress=said.append)
    assert r.moves == A6
    assert any("met at" in s and "replayed by the checker" in s for s in said)
    d = _stored(tmp_path)
    assert d["moves"] == A6
    assert check(problem_instance(b, *d["pair"]), tuple(map(tuple, d["solution"]))) == A6


def test_a_stored_solution_that_does_not_replay_is_not_used(tmp_path):
    b = board("triangle6")
    least_by_bound(b, max_moves=8, beam_width=100, work_dir=str(tmp_path))
    (path,) = tmp_path.glob("peg-least-upper-*.json")
    d = json.loads(path.read_text())
    d["solution"][0], d["solution"][1] = d["solution"][1], d["solution"][0]  # out of order
    path.write_text(json.dumps(d))
    said: list[str] = []
    r = least_by_bound(b, max_moves=8, work_dir=str(tmp_path), progress=said.append)
    assert any("is not used" in s for s in said)
    assert r.moves is None and r.lower == A6 and r.solution is None


@pytest.mark.parametrize("fault", ["broken", "miscounted"])
def test_a_beam_solution_that_does_not_replay_is_never_reported(monkeypatch, fault):
    b = board("triangle6")
    good = least_by_bound(b)
    sol = good.solution
    if fault == "broken":
        sol = (sol[1], sol[0]) + sol[2:]
    claim = A6 - 1 if fault == "miscounted" else A6
    monkeypatch.setattr(table, "_beam_from", lambda *a: (claim, good.pair, sol))
    with pytest.raises(CheckError):
        least_by_bound(b, max_moves=8, beam_width=100)


def test_least_command_prints_the_upper_bound_solution(tmp_path):
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle7", "--least", "--max-moves", "9",
                                 "--beam", "20", "--work-dir", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["minimum"] is None and d["lower_bound"] == 10 and d["upper_bound"] >= A7
    got = check(problem_instance(board("triangle7"), *d["pair"]), tuple(map(tuple, d["solution"])))
    assert got == d["upper_bound"] == _stored(tmp_path)["moves"]
    r = CliRunner().invoke(cli, ["peg", "problems", "triangle7", "--least", "--max-moves", "9",
                                 "--work-dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert f"not settled: at least 10, at most {got}" in r.stdout
    assert "one solution (" in r.stdout
