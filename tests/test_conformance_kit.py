"""The conformance kit (`puzzlesat.testing.assert_family_conforms`) fails a family that breaks the
contract, naming what is wrong: each case here is the n-queens example with one defect planted
(a checker that accepts anything, one that crashes on a malformed solution, a decoder that
crashes, a loader that crashes on a missing key, a lossy to_toml, an engine that miscounts,
describe that is not JSON, a collection reader that crashes, ...). The n-queens example itself
passes (the examples' own tests, and tests/test_plugins.py, run the kit on every example)."""
from __future__ import annotations

import dataclasses
import sys
import types
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core.family import Engine, record
from puzzlesat.engine import Outcome, Status, Task
from puzzlesat.testing import Conformance, assert_family_conforms

NQUEENS = Path(__file__).resolve().parents[1] / "examples" / "nqueens"


@pytest.fixture(scope="module")
def nq():
    """The n-queens example's family record and puzzle module (imported from its folder)."""
    sys.path.insert(0, str(NQUEENS))
    import puzzlesat_nqueens
    from puzzlesat_nqueens import puzzle
    yield puzzlesat_nqueens.FAMILY, puzzle
    sys.path.remove(str(NQUEENS))


def _kitq(nq, engines=None, **members):
    """The n-queens family as 'kitq', its puzzle's members replaced by `members`."""
    fam, puzzle = nq
    mod = types.ModuleType("kitq_puzzle")
    mod.__dict__.update({k: getattr(puzzle, k) for k in dir(puzzle) if not k.startswith("__")})
    mod.KIND = "kitq"
    mod.INSTANCE_TYPES = (puzzle.Queens,)
    base_to_toml = puzzle.to_toml
    mod.to_toml = lambda inst: base_to_toml(inst).replace('kind = "nqueens"', 'kind = "kitq"')
    mod.__dict__.update(members)
    return dataclasses.replace(fam, name="kitq", puzzle=mod, code="",
                               engines=fam.engines if engines is None else engines)


def _fails(fam, match: str, **kw) -> str:
    """The kit's AssertionError on `fam` (on queens-5 and queens-4, counting, native and sat).
    The instances are recorded as kitq's: with the n-queens example installed, its family claims
    their class too."""
    kw = {"engines": ["native", "sat"], "tasks": ["count"], "time_limit": 120, **kw}
    insts = [record(fam.module.Queens("q5", 5), fam), record(fam.module.Queens("q4", 4), fam)]
    with pytest.raises(AssertionError, match=match) as e:
        assert_family_conforms(fam, insts, **kw)
    assert "kitq" not in [f.family for f in ps.engines()]  # registered for the check only
    return str(e.value)


def test_the_undamaged_family_passes(nq):
    report = assert_family_conforms(_kitq(nq), ["kitq/queens-5"], engines=["native", "sat"],
                                    tasks=["count"], time_limit=120)
    assert isinstance(report, Conformance) and (report.instances, report.agreed) == (1, 1)
    assert report.solutions == 3 and report.mutations_rejected > 0 and report.bad_inputs_refused > 0
    assert "kitq" not in [f.family for f in ps.engines()]


def test_a_missing_member_breaks_the_contract(nq):
    fam = _kitq(nq)
    del fam.module.solution_from_json
    with pytest.raises(AssertionError, match="breaks the contract:\n  - family kitq: the puzzle "
                                             "lacks 'solution_from_json'"):
        assert_family_conforms(fam, ["kitq/queens-4"])


def test_a_checker_that_accepts_anything_fails(nq):
    text = _fails(_kitq(nq, check=lambda inst, sol: None), "does not conform")
    assert "which is not among the solutions every engine counted" in text


def test_a_checker_that_crashes_on_a_malformed_solution_fails(nq):
    def check(inst, sol):  # no length check: a dropped element is an IndexError
        for r1 in range(inst.n):
            for r2 in range(r1 + 1, inst.n):
                if sol[r1] == sol[r2] or abs(sol[r1] - sol[r2]) == r2 - r1:
                    raise ps.CheckError("attack")
    text = _fails(_kitq(nq, check=check), "made the decoder or the checker raise IndexError")
    assert "(the contract: CheckError)" in text


def test_a_decoder_that_crashes_fails(nq):
    _fails(_kitq(nq, solution_from_json=lambda inst, data: tuple(data["columns"])),
           r"made the decoder or the checker raise KeyError: 'columns' \(the contract: CheckError\)")


def test_a_json_round_trip_that_loses_the_solution_fails(nq):
    _fails(_kitq(nq, solution_from_json=lambda inst, data: tuple(sorted(data["columns"]))
                 if isinstance(data.get("columns"), list) else (_ for _ in ()).throw(ps.CheckError("no"))),
           r"solution_from_json\(solution_json\(s\)\) is not s")


def test_a_loader_that_crashes_on_a_missing_key_fails(nq):
    fam, puzzle = nq
    base = puzzle.from_toml

    def from_toml(data, src):
        data["n"] + 0  # KeyError when n is missing, TypeError when it is text
        return base({k: v for k, v in data.items() if k != "kind"}, src)
    text = _fails(_kitq(nq, from_toml=from_toml), r"q5: n deleted: the loader raised instead of "
                  r"refusing: <kit>: plug-in family kitq \(module kitq_puzzle\): from_toml raised "
                  r"KeyError: 'n' \(at test_conformance_kit.py:\d+\)")
    assert 'q5: n = "x": the loader raised instead of refusing' in text and "TypeError" in text


def test_a_lossy_to_toml_fails(nq):
    _fails(_kitq(nq, to_toml=lambda inst: f'kind = "kitq"\nname = "{inst.name}"\nn = {inst.n + 1}\n'),
           "q5: to_toml then from_toml gives another instance")


def test_describe_that_is_not_json_fails(nq):
    _fails(_kitq(nq, describe=lambda inst: {"name": inst.name, "cells": {1, 2}}),
           "q5: describe is not JSON")
    _fails(_kitq(nq, describe=lambda inst: {"n": inst.n}), "describe must be a dict whose 'name'")


def test_engines_that_disagree_fail(nq):
    fam, _ = nq

    def miscounts(inst, task, ctx):
        return Outcome(Status.OPTIMAL, count=0)
    engines = (*fam.engines, Engine("native:wrong", miscounts, (Task.COUNT,)))
    text = _fails(_kitq(nq, engines=engines), r"q5: count: the engines native, native:wrong do not "
                                                "agree", engines=["native", "native:wrong"])
    assert "q4: count" in text  # every problem is listed, not just the first


def test_bad_toml_cases_must_be_refused_as_told(nq):
    fam = _kitq(nq)
    with pytest.raises(AssertionError) as e:
        assert_family_conforms(fam, ["kitq/queens-4"], engines=["native"], tasks=["count"],
                               bad_toml={'kind = "kitq"\nn = 0\n': r"n: expected an integer",
                                         'kind = "kitq"\nn = 70\n': r"no such words",
                                         'kind = "kitq"\nn = 7\n': r"anything"})
    text = str(e.value)
    assert "(2 problems)" in text and "does not match 'no such words'" in text
    assert "loaded, but should be refused ('anything')" in text


def test_a_collection_reader_that_crashes_or_forgets_the_line_fails(nq, tmp_path):
    fam, puzzle = nq

    def crashes(line, src):
        return puzzle.Queens(src.name, int(line))  # ValueError on a damaged line

    p = tmp_path / "boards.kq"
    p.write_text("5\n4\n")
    text = _fails(_kitq(nq, COLLECTIONS={".kq": crashes}), "the reader raised", files=[p])
    assert "boards.kq#1 changed to '5?'" in text and "ValueError" in text

    def unnamed(line, src):  # an InputError naming no place: the loader gives it the file and line
        if not line.strip().isdigit():
            raise ps.InputError("not a number")
        return puzzle.Queens(src.name, int(line))
    kq = _kitq(nq, COLLECTIONS={".kq": unnamed})
    report = assert_family_conforms(kq, [record(puzzle.Queens("q4", 4), kq)],
                                    engines=["native"], tasks=["count"], files=[p])
    assert report.instances == 1 and report.bad_inputs_refused > 0

    def elsewhere(line, src):  # an InputError naming another file and no line
        if not line.strip().isdigit():
            raise ps.InputError("not a number", file="sizes.txt")
        return puzzle.Queens(src.name, int(line))
    _fails(_kitq(nq, COLLECTIONS={".kq": elsewhere}), r"boards.kq#2 changed to '4\?': the error does "
           r"not name the file and line \(sizes.txt: not a number\)", files=[p])
