"""Lying engines and unfinished certificates: an engine cannot set what only the runner measures
(its clock, a count's lower bound: the distinct solutions the checker passed), so a claimed
`count_lower_bound = 10**9` with no solution makes no DISAGREE; the proof checker's first compile
is never a run's time; under --certify an OPTIMAL or INFEASIBLE answer whose certificate is not
VERIFIED exits 3 with one `uncertified:` line (README, Exit status)."""
from __future__ import annotations

import time

import pytest

import helpers
from puzzlesat.compare import runner
from puzzlesat.compare.crossval import Verdict, assess
from puzzlesat.core.result import Certificate, CertVerdict, Outcome, Status, Task
from puzzlesat.families.instances import load_instance
from puzzlesat.families.registry import register_engine, unregister_engine

TRIED = {"inputs": 0}


@pytest.fixture
def liar():
    """A user engine of the peg family that returns what the test tells it to."""
    said: dict = {}

    def run(inst, task, ctx):
        return said["outcome"]
    register_engine("peg", "user:liar", run, tasks=["optimize", "count"])
    yield said
    unregister_engine("peg", "user:liar")


def test_an_engine_cannot_set_the_runners_fields(liar):
    fam, inst = load_instance("peg/hoppers-first06")
    liar["outcome"] = Outcome(Status.UNKNOWN, stats={"engine_seconds": 1e-9, "cpu_seconds": -5,
                                                     "count_lower_bound": 10 ** 9,
                                                     "streamed_checked": 10 ** 9, "nodes": 3})
    TRIED["inputs"] += 1
    r = runner.solve(fam, inst, "user:liar", "count", isolate=False)
    assert r.status is Status.UNKNOWN and r.stats["nodes"] == 3  # the engine's own figures stay
    assert "count_lower_bound" not in r.stats and "streamed_checked" not in r.stats
    assert r.stats.get("cpu_seconds", 0) >= 0 and r.stats.get("engine_seconds") != 1e-9
    assert r.seconds != 1e-9  # the engine's time is the runner's clock


def test_a_claimed_lower_bound_without_solutions_makes_no_disagree(liar):
    """The review's wrong verdict: 'count >= 10^9' with no solution beside the exact count 18
    made compare say DISAGREE and blame the correct engine."""
    fam, inst = load_instance("peg/hoppers-first06")
    liar["outcome"] = Outcome(Status.UNKNOWN, stats={"count_lower_bound": 10 ** 9})
    TRIED["inputs"] += 1
    honest = runner.solve(fam, inst, "native", "count", isolate=False)
    lying = runner.solve(fam, inst, "user:liar", "count", isolate=False)
    a = assess([honest, lying], fam.sense, Task.COUNT)
    assert honest.status is Status.OPTIMAL and a.verdict is not Verdict.DISAGREE, a


def test_the_checker_compile_is_outside_the_runs_clock(monkeypatch):
    """The checker's first load (20-45 s on a fresh install) was timed as the run's: its check
    found the time limit gone and the certificate came back UNKNOWN. A load of 12 s against a
    limit of 10 s: it happens before the clock starts, so the proof is checked."""
    from puzzlesat.certify import check
    slept = []
    real = check.preload

    def slow():
        if not slept:
            time.sleep(12)
            slept.append(1)
        real()
    monkeypatch.setattr(check, "preload", slow)
    monkeypatch.setattr(runner, "_CHECKER_WARM", False)
    fam, inst = load_instance("peg/hoppers-first06")
    TRIED["inputs"] += 1
    r = runner.solve(fam, inst, "sat", "optimize", options={"certify": True}, time_limit=10)
    assert slept and r.status is Status.OPTIMAL, r
    assert r.certificate["verdict"] == "VERIFIED", r.certificate


@pytest.mark.parametrize("verdict", ["UNKNOWN", "NOT-CERTIFIABLE"])
def test_an_uncertified_answer_under_certify_exits_3(monkeypatch, verdict):
    monkeypatch.setattr(runner, "check_certificate",
                        lambda *a, **k: Certificate(CertVerdict(verdict), "time limit: checking stopped"))
    TRIED["inputs"] += 1
    p = helpers.cli("solve", "peg/hoppers", "-e", "sat", "--certify", "--time-limit", "120")
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("puzzlesat: uncertified: OPTIMAL of sat")
    assert verdict in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("isolate", [True, False])
def test_a_proof_check_out_of_memory_is_unknown_never_rejected(monkeypatch, isolate):
    """A check that runs out of memory says nothing against the proof: the certificate is
    UNKNOWN ('memory limit') and the answer stands. It was REJECTED and the answer ERROR (numba's
    MemoryError 'Allocation failed (probably too large).' checking a 1.6 GB LRAT under an 8 GiB
    address-space cap, the English lab core's re-check)."""
    import puzzlesat.certify as certify

    def oom(*a, **k):
        raise MemoryError("Allocation failed (probably too large).")
    monkeypatch.setattr(certify, "certify", oom)
    TRIED["inputs"] += 1
    fam, inst = load_instance("peg/hoppers")
    r = runner.solve(fam, inst, "sat", "optimize", options={"certify": True}, time_limit=120,
                     isolate=isolate)
    assert (r.status, r.objective) == (Status.OPTIMAL, 7), r.reason
    assert r.certificate["verdict"] == "UNKNOWN", r.certificate
    assert r.certificate["reason"].startswith("memory limit (Allocation failed") and runner.uncertified(r)


def test_a_certified_answer_exits_0_and_a_feasible_one_needs_no_proof():
    TRIED["inputs"] += 1
    p = helpers.cli("solve", "peg/hoppers", "-e", "sat", "--certify", "--time-limit", "120")
    assert p.returncode == 0 and "certificate: VERIFIED" in p.stdout, p.stderr
    fam, inst = load_instance("peg/hoppers")
    r = runner.solve(fam, inst, "sat", "feasible", options={"certify": True}, isolate=False)
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL) and runner.uncertified(r) is None


def test_figures():
    print(f"hostile engine inputs tried: {TRIED['inputs']}")
