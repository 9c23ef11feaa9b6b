"""Certified answers end to end: engines run with certify=True write the proofs of their UNSAT
calls, the runner checks them with puzzlesat.certify, the Result carries the certificate (JSON,
records, compare, campaign store), the CLI's `certify` and `solve --certify`.

Facts asserted: published optima and counts (peg/hoppers 7, hoppers-first06 18 sequences,
8-puzzle hardest 31, pentomino 3x20 8 tilings), small tilings counted by the native search (an
engine sharing no code with the CNF), and proofs tampered with in a known way.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core.result import Outcome, Result, Status

PENTO_3X5 = 'kind = "pentomino"\nboard = """\n.....\n.....\n.....\n"""\npieces = "%s"'


def _proofs(r: Result) -> list[dict]:
    return (r.certificate or {}).get("proofs") or []


def _verified(r: Result, n_proofs: int) -> None:
    c = r.certificate
    assert c["verdict"] == "VERIFIED", c
    assert len(c["proofs"]) == n_proofs
    for p in c["proofs"]:
        assert p["verdict"] == "VERIFIED" and p["lemmas"] >= 0 and p["proof_bytes"] > 0
        assert len(p["sha256"]["cnf"]) == 64 and len(p["sha256"]["proof"]) == 64
        assert Path(p["files"]["cnf"]).is_file() and Path(p["files"]["proof"]).is_file()


# ---- engines -----------------------------------------------------------------------------------
def test_peg_hoppers_optimum_is_certified(tmp_path):
    r = ps.solve(ps.load("peg/hoppers"), "sat", "optimize", certify=True, proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 7)
    _verified(r, 1)
    assert r.certificate["proofs"][0]["claim"] == "no solution with <= 6 moves"
    assert Path(r.certificate["folder"]).parent == tmp_path
    # the refuted CNF holds the bound: its header names the variables and clauses written
    head = Path(r.certificate["files"]["cnf"]).read_text().split("\n", 1)[0]
    assert head.startswith("p cnf ")


def test_peg_hoppers_first06_count_is_certified(tmp_path):
    r = ps.solve(ps.load("peg/hoppers-first06"), "sat", "count", certify=True,
                 solver="glucose4", proof_dir=str(tmp_path))
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 7, 18)
    _verified(r, 2)  # moves <= 6 UNSAT, and moves <= 7 with the 18 blocking clauses UNSAT
    cnf = Path(r.certificate["proofs"][1]["files"]["cnf"]).read_text().splitlines()
    base = Path(r.certificate["proofs"][0]["files"]["cnf"]).read_text().splitlines()
    assert r.certificate["proofs"][1]["solver"] == "glucose4"
    assert int(cnf[0].split()[3]) > int(base[0].split()[3])  # the blocking clauses are in it


def test_sliding_8_hardest_optimum_is_certified(tmp_path):
    r = ps.solve(ps.load("sliding/8-hardest"), "sat", "optimize", certify=True,
                 proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 31)
    # horizons 21..29 by 2 (Manhattan bound 21, parity step) each refuted with its proof
    _verified(r, 5)
    assert [p["claim"] for p in r.certificate["proofs"]] == [
        f"no plan of exactly {t} moves" for t in (21, 23, 25, 27, 29)]
    assert "Manhattan" in r.certificate["trusted"]


@pytest.mark.slow
def test_fifteen_puzzle_optimum_40_is_certified(tmp_path):
    # 15-easy-40 (published optimum 40): a checked 40-move plan, horizons 32 (the Manhattan bound),
    # 34, 36, 38 refuted with a proof each, 39 and below of the other parity (measured: 21 s engine
    # CPU, 6 MB of proofs, 5 s to check, load 10)
    r = ps.solve(ps.load("sliding/15-easy-40"), "sat", "optimize", certify=True,
                 proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 40)
    _verified(r, 4)
    assert [p["claim"] for p in r.certificate["proofs"]] == [
        f"no plan of exactly {t} moves" for t in (32, 34, 36, 38)]


def test_sliding_optimum_at_the_lower_bound_has_no_refutation(tmp_path):
    r = ps.solve(ps.load("sliding/8-easy"), "sat", "optimize", certify=True, proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 2)
    assert r.certificate["verdict"] == "NOT-CERTIFIABLE"
    assert "Manhattan lower bound" in r.certificate["reason"]


def test_sliding_count_is_certified(tmp_path):
    r = ps.solve(ps.load("sliding/8-easy"), "sat", "count", certify=True, proof_dir=str(tmp_path))
    assert (r.status, r.count) == (Status.OPTIMAL, 1)
    _verified(r, 1)


@pytest.mark.parametrize("pieces,blocking", [("FPU", "placements"), ("LTY", "full")])
def test_small_tiling_count_is_certified_and_matches_native(pieces, blocking, tmp_path):
    inst = ps.load(PENTO_3X5 % pieces)
    native = ps.solve(inst, "native", "count")
    r = ps.solve(inst, "sat", "count", certify=True, blocking=blocking, proof_dir=str(tmp_path))
    assert r.status is Status.OPTIMAL and r.count == native.count == 4
    assert r.params["blocking"] == blocking
    _verified(r, 1)
    assert r.certificate["proofs"][0]["claim"].startswith("no tiling beyond the 4 blocked")


@pytest.mark.slow
def test_pentomino_3x20_count_is_certified(tmp_path):
    r = ps.solve(ps.load("pentomino/3x20"), "sat", "count", certify=True, proof_dir=str(tmp_path))
    assert (r.status, r.count) == (Status.OPTIMAL, 8)
    _verified(r, 1)


@pytest.mark.parametrize("breaking", [True, False])
def test_orbit_count_is_certified_from_the_full_enumeration(breaking, tmp_path):
    # 3x5 with F, P, U: 4 tilings (the native search's count), one orbit under the board's group
    inst = ps.load(PENTO_3X5 % "FPU")
    assert ps.solve(inst, "native", "count").count == 4
    assert ps.solve(inst, "native", "count", up_to_symmetry=True).count == 1
    r = ps.solve(inst, "sat", "count", certify=True, up_to_symmetry=True,
                 symmetry_breaking=breaking, proof_dir=str(tmp_path))
    assert (r.status, r.count) == (Status.OPTIMAL, 1)
    _verified(r, 1)
    o = r.certificate["orbits"]
    assert (o["solutions"], o["checked"], o["classes"]) == (4, 4, 1)
    assert ("second enumeration" in o["enumeration"]) == breaking
    assert ("second enumeration" in r.params["certify_full_enumeration"]) == breaking
    assert r.certificate["proofs"][0]["claim"].startswith("no tiling beyond the 4 blocked")


@pytest.mark.slow
def test_pentomino_3x20_orbit_count_is_certified(tmp_path):
    r = ps.solve(ps.load("pentomino/3x20"), "sat", "count", certify=True, up_to_symmetry=True,
                 proof_dir=str(tmp_path))
    assert (r.status, r.count) == (Status.OPTIMAL, 2)
    _verified(r, 1)
    assert (r.certificate["orbits"]["solutions"], r.certificate["orbits"]["classes"]) == (8, 2)


def _orbit_engine(tamper):
    """A user engine: sat:cover's orbit count with certify, its certificate then tampered with."""
    import dataclasses

    from puzzlesat.families.registry import family

    def engine(inst, task, ctx):
        from puzzlesat.models.pentomino.sat import run
        out = run(inst, task, ctx)
        return Outcome(out.status, out.objective, out.count, out.solutions, out.stats,
                       certificate=tamper(out.certificate))
    # sat:cover's options (up_to_symmetry is an identity option a function engine must declare)
    return dataclasses.replace(family("pentomino").engine("sat:cover"), name="user:tamper",
                               target=engine, aliases=(), user=True)


def test_a_tampered_orbit_certificate_makes_the_result_error(tmp_path):
    inst = ps.load(PENTO_3X5 % "FPU")

    def cut_proof(c):  # the refutation's binary DRAT cut to its first 40 bytes
        p = Path(c["proofs"][0]["proof"])
        p.write_bytes(p.read_bytes()[:40])
        return c

    def drop_one(c):  # one tiling left out of the enumeration the orbits are counted from
        return {**c, "orbits": {**c["orbits"], "solutions": c["orbits"]["solutions"][1:]}}

    def duplicate(c):  # one tiling listed twice in place of another
        sols = c["orbits"]["solutions"]
        return {**c, "orbits": {**c["orbits"], "solutions": sols[:-1] + sols[:1]}}

    for tamper, says in ((cut_proof, "proof 1 (no tiling beyond the 4 blocked"),
                         (drop_one, "blocks 4 solutions, the full enumeration has 3"),
                         (duplicate, "hold 3 distinct ones")):
        r = ps.solve(inst, _orbit_engine(tamper), "count", certify=True, up_to_symmetry=True,
                     proof_dir=str(tmp_path))
        assert r.status is Status.ERROR and r.certificate["verdict"] == "REJECTED", tamper
        assert says in r.reason, (tamper, r.reason)


# ---- CP-SAT engines: CP-SAT on the formulation's CNF, with LRAT -------------------------------
@pytest.mark.slow
def test_cpsat_hoppers_optimum_is_certified_through_the_cnf(tmp_path):
    r = ps.solve(ps.load("peg/hoppers"), "cpsat", "optimize", certify=True, proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 7)
    _verified(r, 1)
    p = r.certificate["proofs"][0]
    assert (p["claim"], p["format"], p["solver"]) == ("no solution with moves <= 6", "lrat", "cpsat")
    assert p["producer_check"] == "VALID"  # CP-SAT's own LRAT check agrees with ours
    assert "CNF form of puzzlesat.models.peg.sat:decision" in r.params["certify_route"]
    assert r.params["cnf_encoding"] == "seqcounter" and r.params["cpsat_cnf"]["num_workers"] == 1


@pytest.mark.slow
def test_cpsat_peg_count_is_certified_through_the_cnf(tmp_path):
    r = ps.solve(ps.load("peg/hoppers-first06"), "cpsat", "count", certify=True,
                 cnf_encoding="totalizer", proof_dir=str(tmp_path))
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 7, 18)
    _verified(r, 2)  # moves <= 6, and moves <= 7 beyond the 18 blocked
    assert r.certificate["proofs"][1]["claim"].startswith("no solution with moves <= 7 beyond the 18 blocked")
    assert "totalizer" in r.params["certify_route"]


def test_cpsat_counts_and_infeasible_are_certified_through_the_cnf(tmp_path):
    # stand-ins for the slow peg cases: a tiling count (4, the native count), its orbit count
    # (1: 4 tilings certified, their classes counted by the runner), a peg refutation
    t = ps.solve(ps.load(PENTO_3X5 % "FPU"), "cpsat", "count", certify=True, up_to_symmetry=True,
                 proof_dir=str(tmp_path))
    assert (t.status, t.count) == (Status.OPTIMAL, 1)
    _verified(t, 1)
    assert t.certificate["proofs"][0]["claim"].startswith("no solution beyond the 4 blocked")
    assert t.certificate["proofs"][0]["producer_check"] == "VALID"  # CP-SAT's own check agrees
    assert (t.certificate["orbits"]["solutions"], t.certificate["orbits"]["classes"]) == (4, 1)
    peg = ps.load('kind = "peg"\nboard = "hoppers"\nempty = [0]\nfinish = [4]\n')
    r = ps.solve(peg, "cpsat", "optimize", certify=True, proof_dir=str(tmp_path),
                 **{"cnf_encoding": "totalizer"})
    assert r.status is Status.INFEASIBLE
    _verified(r, 1)
    assert r.certificate["proofs"][0]["format"] == "lrat"
    assert "CNF form of puzzlesat.models.peg.sat:decision (cardinality encoding totalizer)" \
        in r.params["certify_route"]


# ---- INFEASIBLE, one per family with a SAT engine ---------------------------------------------
def test_peg_infeasible_is_certified(tmp_path):
    # hoppers from hole 0 to hole 4: no position-class argument refutes it (the precheck passes);
    # the native searches exhaust it, the SAT engine refutes the CNF with a proof
    inst = ps.load('kind = "peg"\nboard = "hoppers"\nempty = [0]\nfinish = [4]\n')
    assert ps.solve(inst, "native", "optimize").status is Status.INFEASIBLE
    r = ps.solve(inst, "sat", "optimize", certify=True, proof_dir=str(tmp_path))
    assert r.status is Status.INFEASIBLE and r.reason is None
    _verified(r, 1)
    assert r.certificate["claim"] == "no solution"


def test_pentomino_infeasible_is_certified(tmp_path):
    inst = ps.load(PENTO_3X5 % "LPU")
    assert ps.solve(inst, "native", "count").count == 0
    for task in ("count", "feasible"):
        r = ps.solve(inst, "sat", task, certify=True, proof_dir=str(tmp_path))
        assert r.status is Status.INFEASIBLE
        _verified(r, 1)


SLIDING = 'kind = "sliding"\nrows = %d\ncols = %d\nstart = %s\n'
UNSOLVABLE = {"8-unsolvable": "sliding/8-unsolvable",
              "2x3": SLIDING % (2, 3, [2, 1, 3, 4, 5, 0]),
              "4x4": SLIDING % (4, 4, list(range(1, 14)) + [15, 14, 0])}


@pytest.mark.parametrize("name", sorted(UNSOLVABLE))
def test_sliding_infeasible_is_certified_by_the_parity_invariant(name, tmp_path):
    inst = ps.load(UNSOLVABLE[name])
    # before any solver call (the precheck), and inside the engines (precheck off)
    for engine, precheck in (("sat", True), ("sat", False), ("cpsat", False)):
        r = ps.solve(inst, engine, "optimize", certify=True, precheck=precheck, proof_dir=str(tmp_path))
        assert r.status is Status.INFEASIBLE and "parity" in r.reason, (engine, precheck)
        c = r.certificate
        assert (c["verdict"], c["format"], c["proofs"]) == ("VERIFIED", "invariant:parity", []), c
        assert "check_infeasible" in c["trusted"] and c["claim"].startswith("no solution: parity")


def test_a_wrong_parity_claim_is_rejected(monkeypatch, tmp_path):
    # a solvable start declared unsolvable by a broken invariant: the independent check refuses it
    import puzzlesat.puzzles.sliding as sliding
    monkeypatch.setattr(sliding, "infeasible_reason", lambda inst: "parity: (claimed)")
    r = ps.solve(ps.load("sliding/8-easy"), "sat", "optimize", certify=True, proof_dir=str(tmp_path))
    assert r.status is Status.ERROR and r.certificate["verdict"] == "REJECTED"
    assert r.reason.startswith("certificate REJECTED: the start is in the goal's parity class")
    # the same claim made inside the engines (precheck off; the forked worker inherits the patch)
    for engine in ("sat", "cpsat"):
        e = ps.solve(ps.load("sliding/8-easy"), engine, "optimize", certify=True, precheck=False,
                     proof_dir=str(tmp_path))
        assert e.status is Status.ERROR and e.certificate["verdict"] == "REJECTED", engine
        assert "parity does not rule it out" in e.reason


def test_parity_check_agrees_with_reachability_on_every_2x3_start():
    # brute-force oracle: breadth-first search from the goal over all 720 boards of a 2x3 puzzle
    import itertools

    from puzzlesat.puzzles.sliding import check_infeasible, parse_inline
    goal = (1, 2, 3, 4, 5, 0)
    seen, todo = {goal}, [goal]
    while todo:
        b = todo.pop()
        z = b.index(0)
        for d in (-3, 3, -1, 1):
            n = z + d
            if 0 <= n < 6 and (d in (-3, 3) or n // 3 == z // 3):
                nb = list(b)
                nb[z], nb[n] = nb[n], 0
                if tuple(nb) not in seen:
                    seen.add(tuple(nb))
                    todo.append(tuple(nb))
    assert len(seen) == 360
    for start in itertools.permutations(range(6)):
        fmt, why = check_infeasible(parse_inline(2, 3, list(start), list(goal)))
        assert fmt == "invariant:parity" and (why is None) == (start not in seen), start


def test_ext_dimacs_cadical_writes_checked_proofs(tmp_path):
    import shutil
    if shutil.which("cadical") is None:
        pytest.skip("no cadical binary on PATH")
    r = ps.solve(ps.load("peg/hoppers"), "ext:dimacs", "optimize", certify=True,
                 proof_dir=str(tmp_path))
    assert (r.status, r.objective) == (Status.OPTIMAL, 7)
    _verified(r, 1)
    easy = ps.solve(ps.load("sliding/8-easy"), "ext:dimacs", "optimize", certify=True,
                    proof_dir=str(tmp_path))  # optimum 2 = the Manhattan bound: nothing refuted
    assert (easy.status, easy.objective) == (Status.OPTIMAL, 2)
    assert easy.certificate["verdict"] == "NOT-CERTIFIABLE" and "lower bound" in easy.certificate["reason"]


# ---- refusals ------------------------------------------------------------------------------------
def test_a_solver_without_proofs_is_refused_by_name():
    with pytest.raises(ps.InputError, match="'minisat22' of engine sat:time cannot log proofs"):
        ps.solve(ps.load("peg/hoppers"), "sat", "optimize", certify=True, solver="minisat22")


def test_engines_without_proofs_are_not_certifiable():
    r = ps.solve(ps.load("peg/hoppers"), "native", "optimize", certify=True)
    assert r.status is Status.OPTIMAL and r.certificate["verdict"] == "NOT-CERTIFIABLE"
    assert "native search writes no proof" in r.certificate["reason"]
    maze = ps.load("maze/sample1")
    m = ps.solve(maze, "cpsat", certify=True)
    assert m.certificate["verdict"] == "NOT-CERTIFIABLE"
    assert "CP-SAT with linear constraints" in m.certificate["reason"]
    assert "family maze has no engine that logs proofs" in m.certificate["reason"]
    # without certify: no certificate at all
    assert ps.solve(ps.load("peg/hoppers"), "sat", "optimize").certificate is None


def test_feasible_answers_need_no_refutation(tmp_path):
    r = ps.solve(ps.load("peg/hoppers"), "sat", "feasible", certify=True, proof_dir=str(tmp_path))
    assert r.status is Status.FEASIBLE and r.certificate["verdict"] == "NOT-CERTIFIABLE"
    assert "nothing to refute" in r.certificate["reason"]


# ---- a proof tampered with makes the result ERROR -----------------------------------------------
def _tampering_engine(keep_lines: int | None):
    """A user engine: sat:time's run with certify (glucose4: text DRUP), whose proof is then cut
    down to its first `keep_lines` lines and the empty clause (None: replaced by garbage)."""
    def tamper(inst, task, ctx):
        from puzzlesat.families.registry import family
        from puzzlesat.models.peg.sat import run
        opts = family("peg").engine("sat:time").resolve_options(
            {"certify": True, "solver": "glucose4", "proof_dir": ctx.options["proof_dir"]}, task)
        out = run(inst, task, ctx.sub(opts))
        proof = Path(out.certificate["proofs"][0]["proof"])
        if keep_lines is None:
            proof.write_text("1 2 x 0\n")
        else:
            lines = proof.read_text().splitlines()
            proof.write_text("\n".join(lines[:keep_lines] + ["0"]) + "\n")
        return out
    return tamper


def test_a_tampered_proof_makes_the_result_error(tmp_path):
    inst = ps.load("peg/hoppers")
    r = ps.solve(inst, _tampering_engine(10), "optimize", certify=True, proof_dir=str(tmp_path))
    assert r.status is Status.ERROR and r.objective == 7  # the solution itself was fine
    assert r.certificate["verdict"] == "REJECTED"
    assert r.reason.startswith("certificate REJECTED: proof 1 (no solution with <= 6 moves)")
    assert "empty clause" in r.reason or "not RUP" in r.reason
    bad = ps.solve(inst, _tampering_engine(None), "optimize", certify=True, proof_dir=str(tmp_path))
    assert bad.status is Status.ERROR and bad.certificate["verdict"] == "REJECTED"
    assert "1.drat:1: unexpected character" in bad.reason  # the parser's file/line error, as the reason


def test_a_count_that_does_not_match_its_blocking_clauses_is_rejected(tmp_path):
    def liar(inst, task, ctx):
        from puzzlesat.families.registry import family
        from puzzlesat.models.peg.sat import run
        opts = family("peg").engine("sat:time").resolve_options(
            {"certify": True, "proof_dir": ctx.options["proof_dir"]}, task)
        out = run(inst, task, ctx.sub(opts))
        return Outcome(out.status, out.objective, out.count, out.solutions, out.stats,
                       certificate={**out.certificate, "blocking": 17})
    r = ps.solve(ps.load("peg/hoppers-first06"), liar, "count", certify=True, proof_dir=str(tmp_path))
    assert r.status is Status.ERROR and "blocks 17 solutions, the count is 18" in r.reason


# ---- checking under the run's limits ---------------------------------------------------------------
def test_checking_that_outlasts_the_time_limit_leaves_the_answer_uncertified(tmp_path):
    from puzzlesat.core.result import Context, Task
    from puzzlesat.families.registry import family
    from puzzlesat.models.pentomino.sat import run
    inst = ps.load(PENTO_3X5 % "FPU")
    opts = family("pentomino").engine("sat:cover").resolve_options(
        {"certify": True, "proof_dir": str(tmp_path)}, Task.COUNT)
    out = run(inst, Task.COUNT, Context(opts))  # 4 tilings and the refutation's proof, made here
    cert = {**out.certificate, "proofs": out.certificate["proofs"] * 5000}  # ~1 min of checking

    def ready(inst, task, ctx):  # an engine that answers at once, with that certificate
        return Outcome(out.status, out.objective, out.count, out.solutions, out.stats, certificate=cert)
    r = ps.solve(inst, ready, "count", certify=True, time_limit=0.3)
    assert (r.status, r.count) == (Status.OPTIMAL, 4)  # the answer stands, checked solutions
    c = r.certificate
    assert c["verdict"] == "UNKNOWN" and not r.certified, c["verdict"]
    # under load the engine may use the whole limit: "time limit (none of the run's time was left): …"
    assert c["reason"].startswith("time limit") and "checking stopped after " in c["reason"] \
        and "of 5000 proofs" in c["reason"], c["reason"]
    assert len(c["proofs"]) < 5000 and all(p["verdict"] == "VERIFIED" for p in c["proofs"])


# ---- records ----------------------------------------------------------------------------------
def test_certificate_round_trips_through_records(tmp_path):
    r = ps.solve(ps.load("peg/hoppers"), "sat", "optimize", certify=True, proof_dir=str(tmp_path))
    rec = json.loads(json.dumps(r.to_record()))
    assert rec["certificate"] == r.certificate.to_json()
    back = Result.from_record(rec)
    assert back.certificate == r.certificate and back.certified
    assert json.dumps(back.to_record()["certificate"]) == json.dumps(rec["certificate"])


def test_compare_reports_certified_agreement(tmp_path):
    c = ps.compare(ps.load("peg/hoppers-first06"), ["native", "sat"], "count", certify=True,
                   proof_dir=str(tmp_path))
    assert c.verdict.value == "AGREE" and c.certified == ["sat:time"]
    assert c.verdict_text() == "AGREE + certified (sat:time)"
    assert [row["certificate"] for row in c.table()] == ["NOT-CERTIFIABLE", "VERIFIED"]
    assert c.to_json()["certified"] == ["sat:time"]


# ---- CLI ----------------------------------------------------------------------------------------
def _cli(*args, cwd=None):
    import helpers
    return helpers.cli(*args, cwd=cwd)  # a fork of this process


PHP = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"


def test_cli_certify_exit_codes(tmp_path):
    from click.testing import CliRunner

    from puzzlesat.cli import cli
    (tmp_path / "f.cnf").write_text(PHP)
    (tmp_path / "good.drat").write_text("2 0\n0\n")
    (tmp_path / "bad.drat").write_text("1 -2 0\n0\n")
    (tmp_path / "broken.drat").write_text("1 2 x 0\n0\n")

    def run(*args):
        return CliRunner().invoke(cli, ["certify", *map(str, args)])
    ok = run(tmp_path / "f.cnf", tmp_path / "good.drat", "--json", "--emit-lrat", tmp_path / "f.lrat")
    assert ok.exit_code == 0, ok.output
    j = json.loads(ok.output)
    assert j["verdict"] == "VERIFIED" and j["stats"]["lrat_verdict"] == "VERIFIED"
    again = run(tmp_path / "f.cnf", tmp_path / "f.lrat", "--format", "lrat")
    assert again.exit_code == 0 and "VERIFIED" in again.output
    bad = run(tmp_path / "f.cnf", tmp_path / "bad.drat")
    assert bad.exit_code == 1 and "REJECTED" in bad.output and "lemma 2 (line 2)" in bad.output
    drup = run(tmp_path / "f.cnf", tmp_path / "good.drat", "--format", "drup")
    assert drup.exit_code == 0
    # bad input: one line naming the file and line, exit 2 (as the console entry point prints it)
    broken = _cli("certify", str(tmp_path / "f.cnf"), str(tmp_path / "broken.drat"))
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.count("\n") == 1 and "broken.drat:1" in broken.stderr
    assert run(tmp_path / "nope.cnf", tmp_path / "good.drat").exit_code == 2


def test_cli_certify_out_of_memory_is_not_checked_never_rejected(tmp_path, monkeypatch):
    """A check that runs out of memory (numba's MemoryError on a 1.6 GB LRAT under an 8 GiB
    cap) is exit 3 and one line: it says nothing against the proof (it was a traceback)."""
    from click.testing import CliRunner

    import puzzlesat.certify as certify
    from puzzlesat.cli.main import cli

    def oom(*a, **k):
        raise MemoryError("Allocation failed (probably too large).")
    monkeypatch.setattr(certify, "certify", oom)
    (tmp_path / "f.cnf").write_text(PHP)
    (tmp_path / "good.drat").write_text("2 0\n0\n")
    r = CliRunner().invoke(cli, ["certify", str(tmp_path / "f.cnf"), str(tmp_path / "good.drat")])
    assert r.exit_code == 3 and r.exception is not None and not isinstance(r.exception, MemoryError)
    assert "out of memory checking" in r.output and "not checked" in r.output
    assert "REJECTED" not in r.output and "Traceback" not in r.output


def test_api_certify_is_the_checker(tmp_path):
    (tmp_path / "f.cnf").write_text(PHP)
    (tmp_path / "p.drat").write_text("2 0\n0\n")
    c = ps.certify(tmp_path / "f.cnf", tmp_path / "p.drat")
    assert c.verdict.value == "VERIFIED" and c.lemmas == 2
    import puzzlesat.certify.check  # noqa: F401  (the subpackage is still importable)


def test_cli_solve_certify(tmp_path):
    ok = _cli("solve", "peg/hoppers", "-e", "sat", "--certify", "--json", "-o",
              f"proof_dir={tmp_path}")
    assert ok.returncode == 0, ok.stderr
    rec = json.loads(ok.stdout)
    assert rec["certificate"]["verdict"] == "VERIFIED" and rec["objective"] == 7
    maze = _cli("solve", "maze/sample1", "--certify")
    assert maze.returncode == 2 and "NOT-CERTIFIABLE" in maze.stderr and maze.stdout == ""
    assert maze.stderr.count("\n") == 1


# ---- campaigns -----------------------------------------------------------------------------------
def test_campaign_store_has_a_certificate_column_and_the_report_counts_certified(tmp_path):
    import sqlite3

    from helpers import rows, spec
    proofs = tmp_path / "proofs"
    proofs.mkdir()
    sp = spec(tmp_path, 'name = "cert"\ninstances = ["peg/hoppers-first06"]\ntask = "count"\n'
                        'time_limit = 60\n[configs]\nnative = "native"\n'
                        f'sat = "sat:time[certify=true,proof_dir={proofs}]"\n')
    db = tmp_path / "cert.db"
    p = _cli("campaign", "run", str(sp), "--store", str(db), "--allow-code")  # its proof_dir
    assert p.returncode == 0, p.stderr
    got = {r["config"]: r for r in rows(db)}
    assert got["native"]["certificate"] is None
    cert = json.loads(got["sat"]["certificate"])
    assert cert["verdict"] == "VERIFIED" and len(cert["proofs"]) == 2 and got["sat"]["count"] == 18
    rep = json.loads(_cli("campaign", "report", "--store", str(db), "--json").stdout)
    assert rep["configs"]["sat"]["certified"] == 1 and rep["configs"]["native"]["certified"] == 0
    text = _cli("campaign", "report", "--store", str(db)).stdout
    assert "certified" in text
    page = tmp_path / "report.html"
    assert _cli("campaign", "report", "--store", str(db), "--html", str(page)).returncode == 0
    assert '"certified":"VERIFIED"' in page.read_text()  # the page's data, per run
    # a store written before the column existed gets it on open (its rows: NULL)
    con = sqlite3.connect(db)
    with con:
        con.execute("ALTER TABLE runs DROP COLUMN certificate")
    con.close()
    again = _cli("campaign", "run", str(sp), "--store", str(db), "--allow-code")
    assert again.returncode == 0 and "2 already stored, 0 to run" in again.stderr
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(runs)")]
    vals = [r[0] for r in con.execute("SELECT certificate FROM runs")]
    con.close()
    assert "certificate" in cols and vals == [None, None]


def test_lab_has_proof_size_and_checking_seconds(tmp_path):
    from puzzlesat.compare.lab import lab_instance
    from puzzlesat.families.instances import load_instance
    fam, inst = load_instance("peg/hoppers")
    rep = lab_instance(fam, inst, ["native", "sat"], "optimize",
                       options={"certify": True, "proof_dir": str(tmp_path)})
    native, sat = rep["configs"]
    assert (native["certificate"], native["proof_bytes"], native["check_seconds"]) == (
        "NOT-CERTIFIABLE", None, None)
    assert sat["certificate"] == "VERIFIED" and sat["proof_bytes"] > 0 and sat["check_seconds"] >= 0
    run = rep["runs"][sat["config"]][0]
    assert run["proof_bytes"] == sat["proof_bytes"] == Path(
        run["certificate"]["files"]["proof"]).stat().st_size


def test_export_dimacs_with_a_proof(tmp_path):
    from click.testing import CliRunner

    from puzzlesat.cli import cli
    cnf, proof = tmp_path / "h6.cnf", tmp_path / "h6.drat"
    r = CliRunner().invoke(cli, ["export", "peg/hoppers", "-e", "sat", "--bound", "6", "--format",
                                 "dimacs", "-o", str(cnf), "--proof", str(proof), "--json"])
    assert r.exit_code == 0, r.output
    p = json.loads(r.output)["proof"]
    assert (p["answer"], p["verdict"], p["file"]) == ("UNSAT", "VERIFIED", str(proof))
    assert ps.certify(cnf, proof).verified  # the same files, checked again from the outside
    sat = CliRunner().invoke(cli, ["export", "peg/hoppers", "-e", "sat", "--bound", "7", "--format",
                                   "dimacs", "-o", str(tmp_path / "h7.cnf"), "--proof",
                                   str(tmp_path / "h7.drat"), "--json"])
    assert sat.exit_code == 0 and json.loads(sat.output)["proof"]["answer"] == "SAT"
    assert not (tmp_path / "h7.drat").exists()
    wrong = CliRunner().invoke(cli, ["export", "peg/hoppers", "-e", "sat", "--format", "opb", "-o",
                                     str(tmp_path / "x.opb"), "--proof", str(proof)])
    assert wrong.exit_code == 2
