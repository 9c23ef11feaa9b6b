"""The proof checker (puzzlesat.certify) and the proof producers (puzzlesat.models.proofs) against
independent oracles (tests/oracles.py, certify section):
brute-force satisfiability, naive unit propagation, a naive LRAT checker.

Mutated proofs are judged by what is actually true of them, never by a fixed expectation:
- VERIFIED must imply the CNF is unsatisfiable (brute force) and the LRAT the checker emits
  passes the naive LRAT checker;
- REJECTED at a lemma must imply that lemma is not RUP over the smallest database the checker could
  have had (every deletion done; the checker may keep a deleted unit clause, and RUP is monotone);
- REJECTED "no empty clause" must imply unit propagation finds no conflict at any step even over
  the smallest database (every deletion done);
- a proof in which every lemma is RUP over the smallest database (all deletions done) and whose
  clauses propagate to a conflict must be VERIFIED.
"""
from __future__ import annotations

import random
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from oracles import (brute_sat, cpsat_lrat_reference, is_rat, is_rup, live_sets, naive_lrat,
                     read_drat, up_conflict, write_dimacs, write_drat)
from strategies import cnf_small

from puzzlesat.certify import Verdict, certify
from puzzlesat.certify.parse import parse_cnf, parse_drat, parse_lrat
from puzzlesat.core.result import InputError
from puzzlesat.models.proofs import PROOF_SOLVERS, prove

PYSAT = ("cadical195", "glucose4", "lingeling")


def php(n: int) -> tuple[int, list[list[int]]]:
    """Pigeonhole PHP(n+1, n): pigeon i in hole j is variable i*n + j + 1."""
    def v(i: int, j: int) -> int:
        return i * n + j + 1
    cls = [[v(i, j) for j in range(n)] for i in range(n + 1)]
    cls += [[-v(i, j), -v(k, j)] for j in range(n) for i in range(n + 1) for k in range(i + 1, n + 1)]
    return n * (n + 1), cls


# ---- the oracle's judgement of a (possibly mutated) proof ---------------------------------------
def judge(cnf: Path, proof: Path, nvars: int, clauses, steps, *, rat: bool = True):
    """Check `proof` and assert that the verdict is true of it (see the module docstring).
    Returns the certificate."""
    lrat = proof.with_suffix(".emitted.lrat")
    c = certify(cnf, proof, format="drat" if rat else "drup", lrat=lrat)
    lives = live_sets(clauses, steps)
    if c.verdict is Verdict.VERIFIED:
        assert not brute_sat(nvars, clauses), "VERIFIED a satisfiable CNF"
        assert c.stats["lrat_verdict"] == "VERIFIED"
        assert naive_lrat(clauses, lrat.read_text()) is None
        return c
    assert c.verdict is Verdict.REJECTED
    if "no empty clause" in c.reason:
        # the checker's database at each step contains the smallest one (all deletions done)
        for _, smallest in lives:
            assert not up_conflict(smallest), c.reason
    else:
        n = int(c.reason.split()[1])  # "lemma N (line L) ..."
        s = [i for i, (d, _) in enumerate(steps) if not d][n - 1]
        assert not is_rup(steps[s][1], lives[s][1]), c.reason
    # completeness: every lemma RUP over the smallest database, and a conflict -> must verify
    forward_ok = all(d or is_rup(cl, lives[s][1]) for s, (d, cl) in enumerate(steps))
    conflict = any(up_conflict(lives[s][1]) for s in range(len(steps) + 1))
    assert not (forward_ok and conflict), f"rejected a forward-valid proof: {c.reason}"
    return c


# ---- random small CNFs --------------------------------------------------------------------------
def _mutants(steps, rnd: random.Random, nvars: int):
    """(name, steps) mutations: a lemma dropped, a literal flipped, a clause added."""
    adds = [i for i, (d, _) in enumerate(steps) if not d]
    out = []
    if adds:
        i = rnd.choice(adds)
        out.append(("dropped", steps[:i] + steps[i + 1:]))
        nonempty = [i for i in adds if steps[i][1]]
        if nonempty:
            i = rnd.choice(nonempty)
            c = list(steps[i][1])
            k = rnd.randrange(len(c))
            c[k] = -c[k]
            out.append(("flipped", steps[:i] + [(False, c)] + steps[i + 1:]))
    pos = rnd.randrange(len(steps) + 1)
    k = rnd.randint(1, min(3, nvars))
    extra = [v if rnd.random() < .5 else -v for v in rnd.sample(range(1, nvars + 1), k)]
    out.append(("added", steps[:pos] + [(False, extra)] + steps[pos:]))
    return out


@pytest.mark.parametrize("solver", ["glucose4", "lingeling",  # cadical195: ~2 s an example here
                                    pytest.param("cadical195", marks=pytest.mark.slow)])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=cnf_small(), seed=st.integers(0, 2**16))
def test_random_cnfs_proofs_verified_mutants_judged(solver, f, seed):
    nvars, clauses = f
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / "f.cnf"
        write_dimacs(cnf, nvars, clauses)
        run = prove(cnf, solver=solver)
        unsat = not brute_sat(nvars, clauses)
        assert (run.status == "UNSAT") == unsat
        if not unsat:
            assert run.proof is None and run.certify().verdict is Verdict.NOT_CERTIFIABLE
            return
        c = run.certify()
        assert c.verdict is Verdict.VERIFIED, c.reason
        assert len(c.sha256["cnf"]) == 64 and c.lemmas == sum(not d for d, _ in read_drat(run.proof))
        steps = read_drat(run.proof)
        rnd = random.Random(seed)
        for name, mut in _mutants(steps, rnd, nvars):
            p = Path(tmp) / f"{name}.drat"
            write_drat(p, mut, binary=rnd.random() < .5)
            judge(cnf, p, nvars, clauses, mut)
        # the CNF with one clause removed: still refuted only if the proof says so truly
        i = rnd.randrange(len(clauses))
        fewer = clauses[:i] + clauses[i + 1:]
        cnf2 = Path(tmp) / "fewer.cnf"
        write_dimacs(cnf2, nvars, fewer)
        c2 = judge(cnf2, run.proof, nvars, fewer, steps)
        if brute_sat(nvars, fewer):
            assert c2.verdict is Verdict.REJECTED


def test_mutations_are_rejected_often():
    """On a fixed sample of random 3-SAT refutations (glucose4 is deterministic), mutations aimed at
    lemmas the checker used are judged by the oracle and must mostly be caught: the empty clause
    inserted first, a used lemma dropped, a literal of a used lemma flipped (often still a valid
    proof: the oracle says when). A checker that accepted everything fails here."""
    rnd = random.Random(7)
    caught = {"empty first": 0, "used lemma dropped": 0, "used lemma flipped": 0}
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        cnf, emitted = Path(tmp) / "f.cnf", Path(tmp) / "e.lrat"
        while total < 30:
            n = 9
            clauses = [[v if rnd.random() < .5 else -v for v in rnd.sample(range(1, n + 1), 3)]
                       for _ in range(45)]
            if brute_sat(n, clauses):
                continue
            write_dimacs(cnf, n, clauses)
            run = prove(cnf, solver="glucose4")
            steps = read_drat(run.proof)
            assert certify(cnf, run.proof, lrat=emitted).verified
            used = {tuple(sorted(map(int, t[1:t.index("0")])))
                    for t in map(str.split, emitted.read_text().splitlines()) if t[1] != "d"}
            targets = [i for i, (d, c) in enumerate(steps) if not d and c and tuple(sorted(c)) in used]
            if not targets:
                continue
            total += 1
            i = rnd.choice(targets)
            flipped = list(steps[i][1])
            k = rnd.randrange(len(flipped))
            flipped[k] = -flipped[k]
            for name, mut in [("empty first", [(False, [])] + steps),
                              ("used lemma dropped", steps[:i] + steps[i + 1:]),
                              ("used lemma flipped", steps[:i] + [(False, flipped)] + steps[i + 1:])]:
                p = Path(tmp) / "m.drat"
                write_drat(p, mut)
                caught[name] += judge(cnf, p, n, clauses, mut).verdict is Verdict.REJECTED
    assert caught["empty first"] >= 0.8 * total, caught
    assert caught["used lemma dropped"] >= 0.4 * total, caught
    assert caught["used lemma flipped"] >= 0.1 * total, caught


# ---- pigeonhole ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("solver", PYSAT)
def test_pigeonhole_verified(tmp_path, solver, n):
    nv, cls = php(n)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver=solver)
    assert run.status == "UNSAT"
    c = run.certify(lrat=tmp_path / "php.lrat")
    assert c.verdict is Verdict.VERIFIED, c.reason
    assert c.stats["lrat_verdict"] == "VERIFIED"
    if n <= 4:
        assert naive_lrat(cls, (tmp_path / "php.lrat").read_text()) is None


@pytest.mark.slow
@pytest.mark.parametrize("n", [7, 8])
@pytest.mark.parametrize("solver", PYSAT)
def test_pigeonhole_large_verified(tmp_path, solver, n):
    nv, cls = php(n)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver=solver)
    c = run.certify(lrat=tmp_path / "php.lrat")
    assert c.verdict is Verdict.VERIFIED and c.stats["lrat_verdict"] == "VERIFIED", c.reason


# ---- formats: DRUP, RAT, binary, LRAT -------------------------------------------------------------
# F is not refuted by unit propagation; (-1) is RAT on -1 but not RUP, and F + (-1) propagates to
# a conflict, so the proof "-1 0, 0" needs its RAT lemma (the oracle re-derives all of this).
RAT_F = [[4, 2], [-1, 4, -3], [4, 1], [-3, 4], [-4, -2, 3], [2, -4], [3, 4], [-1, -3, -2],
         [2, 1, 3], [1, -3]]


def test_rat_lemma_drat_verified_drup_rejected(tmp_path):
    assert not brute_sat(4, RAT_F) and not up_conflict(RAT_F)
    assert is_rat([-1], RAT_F) and not is_rup([-1], RAT_F) and up_conflict(RAT_F + [[-1]])
    write_dimacs(tmp_path / "f.cnf", 4, RAT_F)
    steps = [(False, [-1]), (False, [])]
    write_drat(tmp_path / "p.drat", steps)
    c = certify(tmp_path / "f.cnf", tmp_path / "p.drat", lrat=tmp_path / "p.lrat")
    assert c.verdict is Verdict.VERIFIED and c.stats["rat_lemmas"] == 1
    text = (tmp_path / "p.lrat").read_text()
    assert " -" in text.split("\n")[0].split(" 0 ", 1)[1]  # RAT hints in the first lemma
    assert naive_lrat(RAT_F, text) is None
    assert certify(tmp_path / "f.cnf", tmp_path / "p.lrat").verdict is Verdict.VERIFIED
    d = certify(tmp_path / "f.cnf", tmp_path / "p.drat", format="drup")
    assert d.verdict is Verdict.REJECTED and d.reason.startswith("lemma 1 (line 1) [-1] is not RUP")
    # the pivot is the first literal as written: (-1) with a useless literal 5 first is not RAT
    write_drat(tmp_path / "q.drat", [(False, [4, -1]), (False, [-1]), (False, [])])
    judge(tmp_path / "f.cnf", tmp_path / "q.drat", 4, RAT_F, read_drat(tmp_path / "q.drat"))


def test_rat_lrat_tampered_hints_rejected(tmp_path):
    write_dimacs(tmp_path / "f.cnf", 4, RAT_F)
    write_drat(tmp_path / "p.drat", [(False, [-1]), (False, [])])
    certify(tmp_path / "f.cnf", tmp_path / "p.drat", lrat=tmp_path / "p.lrat")
    lines = (tmp_path / "p.lrat").read_text().splitlines()
    head, hints = lines[0].split(" 0 ", 1)
    groups = hints.split(" -")
    bad = head + " 0 " + " -".join(groups[:-1]) + " 0"   # the last RAT candidate's hints dropped
    (tmp_path / "bad.lrat").write_text("\n".join([bad] + lines[1:]) + "\n")
    c = certify(tmp_path / "f.cnf", tmp_path / "bad.lrat")
    assert c.verdict is Verdict.REJECTED and "RAT on -1" in c.reason
    assert naive_lrat(RAT_F, (tmp_path / "bad.lrat").read_text()) is not None


def test_binary_and_text_drat_agree(tmp_path):
    nv, cls = php(4)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver="glucose4")
    steps = read_drat(run.proof)
    write_drat(tmp_path / "b.drat", steps, binary=True)
    t = certify(tmp_path / "php.cnf", run.proof)
    b = certify(tmp_path / "php.cnf", tmp_path / "b.drat")
    assert parse_drat(tmp_path / "b.drat").binary and not parse_drat(run.proof).binary
    assert t.verdict is b.verdict is Verdict.VERIFIED
    assert (t.lemmas, t.stats["core_lemmas"]) == (b.lemmas, b.stats["core_lemmas"])
    cad = prove(tmp_path / "php.cnf", tmp_path / "cad.drat", solver="cadical195")
    assert parse_drat(cad.proof).binary  # CaDiCaL's bytes, copied as written
    assert cad.certify().verdict is Verdict.VERIFIED


@pytest.mark.parametrize("solver", PYSAT)
def test_proof_copied_raw_or_through_get_proof_alike(tmp_path, solver):
    """The solver's own proof file, copied byte for byte, and python-sat's get_proof() text
    (the fallback) hold the same steps."""
    from puzzlesat.models import proofs
    nv, cls = php(4)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    a = proofs._prove_pysat(tmp_path / "php.cnf", tmp_path / "raw.drat", cls, solver)
    b = proofs._prove_pysat(tmp_path / "php.cnf", tmp_path / "text.drat", cls, solver, raw=False)
    assert (a.stats["copied"], b.stats["copied"]) == ("raw", "get_proof")
    assert read_drat(a.proof) == read_drat(b.proof)
    assert a.certify().verified and b.certify().verified


def test_emitted_lrat_rechecked_and_tampering_caught(tmp_path):
    nv, cls = php(5)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver="cadical195")
    c = run.certify(lrat=tmp_path / "php.lrat")
    assert c.verdict is Verdict.VERIFIED and c.stats["lrat_verdict"] == "VERIFIED"
    assert c.files["lrat"] == str(tmp_path / "php.lrat")
    # the trimmed proof holds the core lemmas and the empty clause, no more
    assert c.stats["lrat_lemmas"] in (c.stats["core_lemmas"], c.stats["core_lemmas"] + 1)
    again = certify(tmp_path / "php.cnf", tmp_path / "php.lrat")
    assert again.verdict is Verdict.VERIFIED and again.format == "lrat"
    lines = (tmp_path / "php.lrat").read_text().splitlines()
    lemma = [i for i, ln in enumerate(lines) if " d " not in ln and len(ln.split(" 0 ")[1].split()) > 2][0]
    head, hints = lines[lemma].split(" 0 ")
    h = hints.split()
    tampered = head + " 0 " + " ".join(h[1:])  # its first unit hint dropped
    (tmp_path / "t.lrat").write_text("\n".join(lines[:lemma] + [tampered] + lines[lemma + 1:]) + "\n")
    t = certify(tmp_path / "php.cnf", tmp_path / "t.lrat")
    assert t.verdict is Verdict.REJECTED and f"lemma id {head.split()[0]} (line {lemma + 1})" in t.reason
    assert naive_lrat(cls, (tmp_path / "t.lrat").read_text()) is not None
    # a literal flipped in the empty clause's predecessor: hints no longer unit or no conflict
    (tmp_path / "trunc.lrat").write_text("\n".join(lines[:-1]) + "\n")
    tr = certify(tmp_path / "php.cnf", tmp_path / "trunc.lrat")
    assert tr.verdict is Verdict.REJECTED and tr.reason.startswith("no empty clause")


def test_truncated_and_no_empty_clause(tmp_path):
    nv, cls = php(5)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver="glucose4")
    steps = read_drat(run.proof)
    assert steps[-1] == (False, [])
    half = steps[:len(steps) // 2]
    write_drat(tmp_path / "half.drat", half)
    c = judge(tmp_path / "php.cnf", tmp_path / "half.drat", nv, cls, half)
    assert c.verdict is Verdict.REJECTED and c.reason.startswith("no empty clause")
    # without its final `0` line the proof still propagates to a conflict: drat-trim's rule
    write_drat(tmp_path / "noempty.drat", steps[:-1])
    assert certify(tmp_path / "php.cnf", tmp_path / "noempty.drat").verdict is Verdict.VERIFIED
    # cut in the middle of a line: malformed, named by line
    text = run.proof.read_text()
    cut = text[: text.index("\n", len(text) // 2) - 2]
    (tmp_path / "cut.drat").write_text(cut)
    with pytest.raises(InputError) as e:
        certify(tmp_path / "php.cnf", tmp_path / "cut.drat")
    assert "not terminated by 0" in str(e.value) and e.value.line == cut.count("\n") + 1
    # an empty proof of a formula unit propagation cannot refute
    (tmp_path / "empty.drat").write_text("")
    c = certify(tmp_path / "php.cnf", tmp_path / "empty.drat")
    assert c.verdict is Verdict.REJECTED and c.reason.startswith("no empty clause") and c.lemmas == 0


def test_explicit_empty_clause_not_rup_is_named(tmp_path):
    nv, cls = php(3)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    (tmp_path / "p.drat").write_text("c a comment\n1 2 3 0\n0\n")
    c = certify(tmp_path / "php.cnf", tmp_path / "p.drat")
    assert c.verdict is Verdict.REJECTED
    assert c.reason == "lemma 2 (line 3) is the empty clause, but unit propagation finds no conflict"


# ---- deletions ----------------------------------------------------------------------------------
def test_deletions_undone_backward_and_unit_deletions_ignored(tmp_path):
    f = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    write_dimacs(tmp_path / "f.cnf", 2, f)
    # (2) needs clauses 1 and 2, deleted after it: the backward pass brings them back
    ok = [(False, [2]), (True, [1, 2]), (True, [-1, 2]), (False, [])]
    write_drat(tmp_path / "ok.drat", ok)
    c = judge(tmp_path / "f.cnf", tmp_path / "ok.drat", 2, f, ok)
    assert c.verdict is Verdict.VERIFIED
    # deleted before the lemma that needs them: rejected, and the lemma is named
    bad = [(True, [1, 2]), (True, [-1, 2]), (False, [2]), (False, [])]
    write_drat(tmp_path / "bad.drat", bad)
    c = certify(tmp_path / "f.cnf", tmp_path / "bad.drat")
    assert c.verdict is Verdict.REJECTED and c.reason.startswith("lemma 1 (line 3) [2] is not RUP")
    # the unit (2) is the reason of the top-level assignment 2: its deletion is ignored (drat-trim's
    # default: the lemma (3) needs it), and a deletion matching no clause is counted and ignored
    g = [[1, 2], [-1, 2], [-2, 3, 4], [-2, 3, -4], [-3, 5], [-3, -5]]
    write_dimacs(tmp_path / "g.cnf", 5, g)
    unit = [(False, [2]), (True, [2]), (True, [1, 3]), (False, [3]), (False, [])]
    assert not is_rup([3], g) and is_rup([3], g + [[2]])
    write_drat(tmp_path / "unit.drat", unit)
    c = certify(tmp_path / "g.cnf", tmp_path / "unit.drat")
    assert c.verdict is Verdict.VERIFIED
    assert (c.stats["ignored_unit_deletions"], c.stats["missing_deletions"]) == (1, 1)


def test_duplicate_and_tautological_clauses(tmp_path):
    f = [[1, 1, 2], [-1, 2, -1], [1, -2], [-1, -2], [1, -1, 3]]
    write_dimacs(tmp_path / "f.cnf", 3, f)
    steps = [(False, [2, 2]), (False, [3, -3]), (True, [2, 1, 1]), (False, [])]
    write_drat(tmp_path / "p.drat", steps)
    c = certify(tmp_path / "f.cnf", tmp_path / "p.drat", lrat=tmp_path / "p.lrat")
    assert c.verdict is Verdict.VERIFIED, c.reason
    assert naive_lrat([[1, 2], [-1, 2], [1, -2], [-1, -2], [1, -1, 3]],
                      (tmp_path / "p.lrat").read_text()) is None


def test_cnf_with_empty_clause_and_formula_refuted_by_propagation(tmp_path):
    write_dimacs(tmp_path / "e.cnf", 1, [[1], []])
    (tmp_path / "none.drat").write_text("")
    assert certify(tmp_path / "e.cnf", tmp_path / "none.drat").verdict is Verdict.VERIFIED
    (tmp_path / "none.lrat").write_text("")
    assert certify(tmp_path / "e.cnf", tmp_path / "none.lrat").verdict is Verdict.VERIFIED
    write_dimacs(tmp_path / "u.cnf", 2, [[1], [-1, 2], [-2]])
    c = certify(tmp_path / "u.cnf", tmp_path / "none.drat", lrat=tmp_path / "u.lrat")
    assert c.verdict is Verdict.VERIFIED and c.lemmas == 0
    assert (tmp_path / "u.lrat").read_text() == "4 0 1 2 3 0\n"


# ---- malformed input -----------------------------------------------------------------------------
@pytest.mark.parametrize("text,line,words", [
    ("c hi\np cnf 2 1\n1 2 x 0\n", 3, "unexpected character 'x'"),
    ("1 2 0\n", 1, "expected the header"),
    ("p cnf 2 2\n1 2 0\n", 2, "announces 2 clauses"),
    ("p cnf 2 1\n1 3 0\n", 2, "exceeds the header's 2 variables"),
    ("p cnf 2 1\n1 2\n", 2, "not terminated by 0"),
    ("p cnf 2 1\n1 -- 0\n", 2, "malformed number"),
    ("p cnf 2 1\nd 1 0\n", 2, "unexpected 'd'"),
])
def test_malformed_cnf_names_line(tmp_path, text, line, words):
    (tmp_path / "bad.cnf").write_text(text)
    with pytest.raises(InputError) as e:
        parse_cnf(tmp_path / "bad.cnf")
    assert e.value.line == line and words in str(e.value) and "bad.cnf" in str(e.value)


@pytest.mark.parametrize("text,line,words", [
    ("1 2 0\n1 d 2 0\n", 2, "'d' must start a step"),
    ("1 2 0\n1 2y 0\n", 2, "malformed number"),
    ("1 2 0\np 3 0\n", 2, "unexpected character 'p'"),
    ("1 2 0\n3 4", 2, "not terminated by 0"),
    ("99999999999999999999 0\n", 1, "too large"),
])
def test_malformed_drat_names_line(tmp_path, text, line, words):
    (tmp_path / "bad.drat").write_text(text)
    with pytest.raises(InputError) as e:
        parse_drat(tmp_path / "bad.drat")
    assert e.value.line == line and words in str(e.value) and "bad.drat" in str(e.value)


def test_malformed_binary_drat_and_lrat(tmp_path):
    (tmp_path / "b.drat").write_bytes(b"a\x02\x04\x00x\x02\x00")
    with pytest.raises(InputError, match="byte offset 4: a step must start with 'a' or 'd'"):
        parse_drat(tmp_path / "b.drat")
    (tmp_path / "t.drat").write_bytes(b"a\x02\x84")
    with pytest.raises(InputError, match="not terminated"):
        parse_drat(tmp_path / "t.drat")
    for text, line, words in [("5 1 0 1 2 0\n-6 0 5 0\n", 2, "positive integer"),
                              ("5 1 0 1 2 0\n6 1 0 2 d 0\n", 2, "'d' inside"),
                              ("5 1 0 1 2 0\n6 d 5", 2, "not terminated")]:
        (tmp_path / "x.lrat").write_text(text)
        with pytest.raises(InputError) as e:
            parse_lrat(tmp_path / "x.lrat")
        assert e.value.line == line and words in str(e.value)
    with pytest.raises(InputError, match="cannot read the file"):
        certify(tmp_path / "missing.cnf", tmp_path / "x.lrat")


def test_lrat_ids_defined_twice_or_unknown(tmp_path):
    write_dimacs(tmp_path / "f.cnf", 2, [[1, 2], [-1, 2], [1, -2], [-1, -2]])
    (tmp_path / "a.lrat").write_text("5 2 0 1 2 0\n5 0 5 3 4 0\n")
    c = certify(tmp_path / "f.cnf", tmp_path / "a.lrat")
    assert c.verdict is Verdict.REJECTED and "clause id 5 (line 2) is defined twice" in c.reason
    (tmp_path / "b.lrat").write_text("5 2 0 1 9 0\n6 0 5 3 4 0\n")
    c = certify(tmp_path / "f.cnf", tmp_path / "b.lrat")
    assert c.verdict is Verdict.REJECTED and "hint 9 is not a clause" in c.reason
    (tmp_path / "c.lrat").write_text("5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 4 0\n")  # id reuse by d is fine
    assert certify(tmp_path / "f.cnf", tmp_path / "c.lrat").verdict is Verdict.VERIFIED
    (tmp_path / "d.lrat").write_text("5 2 0 1 2 0\n5 d 5 0\n6 0 5 3 4 0\n")  # used after deletion
    c = certify(tmp_path / "f.cnf", tmp_path / "d.lrat")
    assert c.verdict is Verdict.REJECTED and "hint 5 is not a clause" in c.reason
    (tmp_path / "e.lrat").write_text("5 2 0 1 0\n6 0 5 3 4 0\n")
    c = certify(tmp_path / "f.cnf", tmp_path / "e.lrat")
    assert c.verdict is Verdict.REJECTED and "reach no conflict" in c.reason


# ---- producers -----------------------------------------------------------------------------------
def _compare_conversion(monkeypatch):
    """Make every CP-SAT conversion also run the reference (tests/oracles.py) on the same files
    and record (kernel text, reference text, kernel counts, reference counts)."""
    import puzzlesat.models.proofs as proofs
    seen = []
    real = proofs.convert_cpsat_lrat

    def both(files, clauses, out):
        counts = real(files, clauses, out)
        text, ref = cpsat_lrat_reference(files, clauses)
        seen.append((Path(out).read_text(), text, counts, ref))
        return counts
    monkeypatch.setattr(proofs, "convert_cpsat_lrat", both)
    return seen


def test_solver_without_proofs_refused(tmp_path):
    write_dimacs(tmp_path / "f.cnf", 1, [[1], [-1]])
    with pytest.raises(InputError, match="cannot log proofs.*cadical195, glucose4, lingeling, cpsat"):
        prove(tmp_path / "f.cnf", solver="minisat22")
    assert "cpsat" in PROOF_SOLVERS


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(f=cnf_small())
def test_cpsat_lrat_own_check_agrees_with_ours(f, monkeypatch):
    """CP-SAT's own LRAT check, ours and a naive one agree; the text LRAT is byte for byte what
    the reference conversion (tests/oracles.py) writes from the same binary files."""
    nvars, clauses = f
    assume(not brute_sat(nvars, clauses))
    seen = _compare_conversion(monkeypatch)
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / "f.cnf"
        write_dimacs(cnf, nvars, clauses)
        run = prove(cnf, solver="cpsat")
        assert run.status == "UNSAT" and run.proof.name == "f.lrat"
        assert run.params["num_workers"] == 1 and run.params["cp_model_presolve"] is False
        c = run.certify()
        # CP-SAT checks its LRAT when its search ran (None: refuted while loading the model)
        if run.producer_check is not None:
            assert (run.producer_check == "VALID") == c.verified, (run.producer_check, c.reason)
        assert (naive_lrat(clauses, run.proof.read_text()) is None) == c.verified, c.reason
    [(text, ref_text, counts, ref)] = seen
    assert text == ref_text and {k: counts[k] for k in ref} == ref


def test_cpsat_duplicate_clauses_matched_to_live_copies(tmp_path):
    """CP-SAT imports, uses and deletes each copy of a clause the CNF has twice: the conversion
    must name a copy still live each time (found by the hypothesis test above)."""
    f = [[-1], [-4, 3, -6], [-1], [-6, -4, 3], [1, 4], [-4, 3, -2], [2], [-5, -3, 1], [5]]
    write_dimacs(tmp_path / "f.cnf", 6, f)
    run = prove(tmp_path / "f.cnf", solver="cpsat")
    c = run.certify()
    assert run.producer_check == "VALID" and c.verified, c.reason
    assert naive_lrat(f, run.proof.read_text()) is None


def test_cpsat_many_imports_of_one_clause_share_a_live_copy(tmp_path, monkeypatch):
    """Several CP-SAT ids imported as one live copy (a clause the CNF has many times), then
    deleted: the copy goes only with the last id that names it (found by the hypothesis test
    above: the conversion removed one copy twice)."""
    f = [[1, 2], [-1, -2, -3], [-1, -2, -3], [-1, -2], [-1, -2], [-1, -2, -3], [-1, -2, -3],
         [-1, -2, -3], [-1, -2], [-1, -2], [-1, -2, -3], [-1, -2, -3], [-1, -2, -3], [-1, 2],
         [-1, -2, -3], [-1, -2, -3], [-1, -2], [4], [1, -2], [-1, -2], [4], [-1, -2], [-1, -2]]
    seen = _compare_conversion(monkeypatch)
    write_dimacs(tmp_path / "f.cnf", 4, f)
    run = prove(tmp_path / "f.cnf", solver="cpsat")
    c = run.certify()
    assert run.producer_check == "VALID" and c.verified, c.reason
    assert naive_lrat(f, run.proof.read_text()) is None
    assert [t == r for t, r, _, _ in seen] == [True]


def test_cpsat_pigeonhole_and_private_folder(tmp_path, monkeypatch):
    seen = _compare_conversion(monkeypatch)
    nv, cls = php(5)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    before = set(Path("/tmp").glob("lrat*.bin"))
    run = prove(tmp_path / "php.cnf", solver="cpsat")
    assert set(Path("/tmp").glob("lrat*.bin")) == before  # nothing written to the shared names
    c = run.certify()
    assert run.producer_check == "VALID" and c.verdict is Verdict.VERIFIED, c.reason
    [(text, ref_text, counts, _)] = seen     # the kernels write what the reference writes
    assert text == ref_text and counts["lemmas"] > 100 and counts["empty"]
    write_dimacs(tmp_path / "sat.cnf", 2, [[1, 2]])
    assert prove(tmp_path / "sat.cnf", solver="cpsat").status == "SAT"


def _pb_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 127
        v >>= 7
        out.append(b | (128 if v else 0))
        if not v:
            return bytes(out)


def _pb_field(num: int, value, packed: bool = True) -> bytes:
    """A protocol-buffer field: an int (varint), bytes (a message), or a list of ints (packed, or
    one varint per element when packed is False)."""
    if isinstance(value, int):
        return _pb_varint(num << 3) + _pb_varint(value)
    if isinstance(value, bytes):
        return _pb_varint(num << 3 | 2) + _pb_varint(len(value)) + value
    if packed:
        body = b"".join(_pb_varint(x) for x in value)
        return _pb_varint(num << 3 | 2) + _pb_varint(len(body)) + body
    return b"".join(_pb_varint(num << 3) + _pb_varint(x) for x in value)


def test_cpsat_lrat_kernels_on_hand_made_files(tmp_path):
    """Fields out of their usual order, unpacked repeated fields, unknown fields, RAT steps,
    imports that match no clause, many hints naming ids the file never defined (the id arrays
    grow), and a tiny output buffer (it grows and is flushed): the kernels write what the
    reference (ortools' own parser) writes; a truncated file is refused."""
    from puzzlesat.models.cpsat_lrat import Converter, Steps
    def lit(d):  # DIMACS -> CP-SAT literal index
        return 2 * (abs(d) - 1) + (d < 0)
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2, 3]]

    def step(kind, body):
        return _pb_field(kind, body)

    def imp(cid, lits):
        return step(1, _pb_field(2, [lit(x) for x in lits]) + _pb_field(1, cid))
    rat = _pb_field(2, [7, 8]) + _pb_field(1, 3)      # unit ids before the resolvant
    f0 = [imp(1, [2, 1]), imp(2, [2, -1]), imp(3, [-2, 1]), imp(4, [5, 6]),
          step(2, _pb_field(4, rat) + _pb_field(3, [1, 2], packed=False) + _pb_field(1, 5)
               + _pb_field(2, [lit(2)]) + _pb_field(5, 1) + _pb_field(9, 77)),
          step(4, _pb_field(1, [4])),
          step(2, _pb_field(1, 6) + _pb_field(2, [lit(-1), lit(2)])
               + _pb_field(3, list(range(1000, 3500)))),
          step(3, _pb_field(1, 9) + _pb_field(2, [lit(1)])),
          step(2, _pb_field(1, 7) + _pb_field(2, [lit(3)]) + _pb_field(3, [5, 3, 4]))]
    f1 = [imp(1, [2]), imp(2, [1, 2]), step(4, _pb_field(1, [2, 1])),
          step(2, _pb_field(1, 3) + _pb_field(3, [1, 40, 2]))]
    paths = []
    for i, steps in enumerate((f0, f1)):
        paths.append(tmp_path / f"lrat{i}.bin")
        paths[-1].write_bytes(b"".join(_pb_varint(len(m)) + m for m in steps))
    want, ref = cpsat_lrat_reference(paths, clauses)
    chosen = [Steps(paths[0]), Steps(paths[1])]
    with open(tmp_path / "out.lrat", "wb") as out:
        w = Converter(clauses, chosen, out, chunk=8)
        w.convert(chosen[0], deletions=False)
        w.convert(chosen[1], deletions=True)
    assert (tmp_path / "out.lrat").read_text() == want
    assert w.counts == ref and ref["unknown_hints"] > 2000 and ref["unmatched_imports"] >= 1
    assert " -" in want.splitlines()[0]                # the RAT step's negated resolvant
    cut = tmp_path / "cut.bin"
    cut.write_bytes(paths[0].read_bytes()[:-3])
    with pytest.raises(ValueError, match="truncated record"):
        Steps(cut)


FAKE_CADICAL = """#!{python}
# A stand-in for Debian's cadical: `cadical -q [--binary=false] CNF PROOF` -> exit 10 / 20.
import sys
from pysat.formula import CNF
from pysat.solvers import Solver
args = [a for a in sys.argv[1:] if not a.startswith("-")]
with Solver(name="glucose4", bootstrap_with=CNF(from_file=args[0]).clauses, with_proof=True) as s:
    if s.solve():
        print("s SATISFIABLE"); sys.exit(10)
    open(args[1], "w").write("\\n".join(s.get_proof()) + "\\n")
    print("s UNSATISFIABLE"); sys.exit(20)
"""


def test_external_solver_path(tmp_path):
    exe = tmp_path / "bin" / "cadical"
    exe.parent.mkdir()
    exe.write_text(FAKE_CADICAL.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    nv, cls = php(4)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    run = prove(tmp_path / "php.cnf", solver=f"ext:{exe}", binary=False)
    assert run.status == "UNSAT" and run.params["argv"] == ["cadical", "-q", "--binary=false"]
    assert run.certify().verdict is Verdict.VERIFIED
    write_dimacs(tmp_path / "sat.cnf", 2, [[1, 2]])
    assert prove(tmp_path / "sat.cnf", solver=f"ext:{exe}").status == "SAT"
    with pytest.raises(InputError, match="not found on PATH"):
        prove(tmp_path / "php.cnf", solver="ext:no-such-solver-here")


@pytest.mark.skipif(shutil.which("cadical") is None,
                    reason="Debian's cadical is not installed on this machine (apt install cadical)")
def test_real_cadical(tmp_path):
    nv, cls = php(5)
    write_dimacs(tmp_path / "php.cnf", nv, cls)
    for binary in (True, False):
        run = prove(tmp_path / "php.cnf", tmp_path / f"p{binary}.drat", solver="ext:cadical", binary=binary)
        assert run.status == "UNSAT" and run.certify().verdict is Verdict.VERIFIED


# ---- plain Python ----------------------------------------------------------------------------------
def test_kernels_as_plain_python(tmp_path, no_jit):
    """The numba kernels run as plain Python under NUMBA_DISABLE_JIT=1 (same verdicts; the CP-SAT
    LRAT conversion's kernels write what the reference writes)."""
    out = no_jit(f"""
        import sys
        sys.path.insert(0, "tests")
        from pathlib import Path
        from oracles import write_dimacs, write_drat, read_drat
        from puzzlesat.certify import certify
        from puzzlesat.models.proofs import prove
        d = Path({str(tmp_path)!r})
        n = 3
        v = lambda i, j: i * n + j + 1
        cls = [[v(i, j) for j in range(n)] for i in range(n + 1)]
        cls += [[-v(i, j), -v(k, j)] for j in range(n) for i in range(n + 1) for k in range(i + 1, n + 1)]
        write_dimacs(d / "php.cnf", n * (n + 1), cls)
        run = prove(d / "php.cnf", solver="cadical195")
        c = run.certify(lrat=d / "php.lrat")
        print(c.verdict, c.stats["lrat_verdict"], certify(d / "php.cnf", d / "php.lrat").verdict)
        steps = read_drat(run.proof)
        write_drat(d / "half.drat", steps[:2])
        print(certify(d / "php.cnf", d / "half.drat").verdict)
        write_dimacs(d / "r.cnf", 4, {RAT_F!r})
        write_drat(d / "r.drat", [(False, [-1]), (False, [])])
        print(certify(d / "r.cnf", d / "r.drat").verdict,
              certify(d / "r.cnf", d / "r.drat", format="drup").verdict)
        import puzzlesat.models.proofs as proofs        # CP-SAT's LRAT conversion's kernels
        from oracles import cpsat_lrat_reference
        same = []
        real = proofs.convert_cpsat_lrat
        def both(files, clauses, out):
            counts = real(files, clauses, out)
            same.append(Path(out).read_text() == cpsat_lrat_reference(files, clauses)[0])
            return counts
        proofs.convert_cpsat_lrat = both
        print(proofs.prove(d / "php.cnf", solver="cpsat").certify().verdict, same)
        """)
    assert out.split() == ["VERIFIED", "VERIFIED", "VERIFIED", "REJECTED", "VERIFIED", "REJECTED",
                           "VERIFIED", "[True]"]


def test_checker_imports_nothing_of_ours_but_input_error_and_no_solver():
    """The checker shares no code with any solver and takes only InputError, the project's one
    certificate verdict enum (CertVerdict, which certify.Verdict is) and the one bounded reader of
    input files (core.inputs.open_regular: regular files only, no solver code) from the project."""
    import ast
    root = Path(__file__).resolve().parents[1] / "certify"
    seen = set()
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                seen.add((node.module, tuple(a.name for a in node.names)))
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                    [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            assert not any(m.split(".")[0] in ("pysat", "ortools", "pysolvers", "puzzlesat")
                           for m in mods), (path.name, mods)
    assert seen <= {("core.result", ("InputError",)), ("core.result", ("CertVerdict", "InputError")),
                    ("core.inputs", ("open_regular",))}
