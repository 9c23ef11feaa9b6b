"""A run is planned once: the command line is a client of the library that plans its runs
(every input error before any work) and executes those plans; neither it nor the API plans the
same run again. Planning is counted at `admit_family`, the first step of every `plan` call."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import puzzlesat as ps
from puzzlesat.cli.main import cli
from puzzlesat.compare import plan as plan_module


@pytest.fixture
def plans(monkeypatch):
    """The number of `plan` calls made so far in this test."""
    calls = []
    admit = plan_module.admit_family

    def counted(*args, **kw):
        calls.append(args[0].name)
        return admit(*args, **kw)
    monkeypatch.setattr(plan_module, "admit_family", counted)
    return calls


def run_cli(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_solve_plans_its_run_once(plans):
    out = run_cli("solve", "peg/hoppers-first06", "-e", "native", "--task", "count", "--json")
    assert json.loads(out)["count"] == 18
    assert plans == ["peg"]


def test_compare_plans_once(plans):
    out = run_cli("compare", "peg/hoppers-first06", "--engines", "native,again=native", "--task",
                  "count", "--json")
    assert json.loads(out)["verdict"] == "AGREE"
    assert plans == ["peg"]


def test_the_api_plans_once_per_call(plans):
    inst = ps.load("peg/hoppers-first06")
    assert ps.solve(inst, "native", "count").count == 18
    assert ps.compare(inst, ["native", "again=native"], "count").verdict.value == "AGREE"
    assert plans == ["peg", "peg"]
