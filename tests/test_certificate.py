"""The typed certificate (core/result.py): an engine hands over a CertificateClaim, only the
runner's checker makes a Certificate, and every stored shape reads back byte for byte.

tests/data/certificates_0_4.json holds the certificate of one record of each shape, written by
the code before certificates were typed (main at 2e70288: solve --json records, a peg cubes
report)."""
import json
from pathlib import Path

import pytest

import puzzlesat as ps
from puzzlesat.core.result import (CERTIFICATE_KINDS, CertificateClaim, Certificate, CertVerdict,
                                   InputError, Outcome, ProofArtifact, ProofCheck, Result, Status)

BEFORE = json.loads((Path(__file__).parent / "data" / "certificates_0_4.json").read_text())
KINDS = {"sat_optimize_drat": "proofs", "sat_count_blocking": "proofs", "cpsat_lrat": "proofs",
         "orbit_count": "proofs", "invariant_precheck": "invariant", "invariant_engine": "invariant",
         "feasible_not_certifiable": "none", "peg_cubes": "cubes"}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_stored_shape_reads_back_byte_for_byte(name):
    d = BEFORE[name]
    c = Certificate.from_json(d)
    assert c.kind == KINDS[name] and c.verdict.value == d["verdict"]
    assert json.dumps(c.to_json()) == json.dumps(d)  # same keys, same order, same values
    assert Certificate.from_json(json.loads(json.dumps(c.to_json()))) == c
    assert list(d)[:2] == list(CERTIFICATE_KINDS[c.kind])[:2] and not c.extra


def test_the_typed_fields_hold_what_the_record_said():
    c = Certificate.from_json(BEFORE["sat_optimize_drat"])
    assert c.verified and c.format == "drat" and len(c.proofs) >= 1
    assert all(isinstance(p, ProofCheck) and p.verified and p.files and p.lemmas is not None for p in c.proofs)
    assert c.lemmas == sum(p.lemmas for p in c.proofs) and c.proof_bytes == sum(p.proof_bytes for p in c.proofs)
    lrat = Certificate.from_json(BEFORE["cpsat_lrat"]).proofs[0]
    assert lrat.format == "lrat" and set(lrat.extra) == {"solve_seconds", "producer_check"}  # the producer's
    o = Certificate.from_json(BEFORE["orbit_count"])
    assert (o.orbits["solutions"], o.orbits["classes"]) == (4, 1)
    cubes = Certificate.from_json(BEFORE["peg_cubes"])
    assert (cubes.proof_count, cubes.proofs) == (3, ())
    inv = Certificate.from_json(BEFORE["invariant_precheck"])
    assert (inv.format, inv.proofs) == ("invariant:parity", ()) and inv.claim.startswith("no solution: parity")
    # the mapping view keeps code written before the types working
    assert c["verdict"] == "VERIFIED" and c.get("nothing") is None and "files" in c and {**c} == c.to_json()


def test_a_result_record_from_before_reads_back_equal():
    rec = {"instance": "hoppers", "family": "peg", "engine": "sat:time", "config": "sat:time",
           "task": "optimize", "status": "OPTIMAL", "objective": 7, "count": None, "solutions": [],
           "solutions_checked": 1, "solutions_failed": 0, "seconds": 0.1, "startup_seconds": 0.2,
           "check_seconds": 0.3, "over_limit": False, "params": {}, "stats": {}, "reason": None,
           "certificate": BEFORE["sat_optimize_drat"], "answer": None}
    r = Result.from_record(json.loads(json.dumps(rec)))
    assert isinstance(r.certificate, Certificate) and r.certified
    assert json.dumps(r.to_record()) == json.dumps(rec)
    assert Result.from_record(r.to_record()) == r


def test_keys_a_later_version_adds_are_kept_and_a_bad_verdict_is_an_input_error():
    d = {**BEFORE["invariant_engine"], "later": [1, 2]}
    c = Certificate.from_json(d)
    assert c.extra == {"later": [1, 2]} and c.to_json() == d
    for bad in ({"verdict": "PROVED"}, {"reason": "no verdict"}, ["VERIFIED"], "VERIFIED"):
        with pytest.raises(InputError, match="certificate"):
            Certificate.from_json(bad)
    with pytest.raises(ValueError, match="kind"):
        Certificate(CertVerdict.VERIFIED, kind="trust-me")


def test_claims_round_trip_and_carry_no_verdict():
    proof = {"claim": "no solution with moves <= 6", "cnf": "/x/1.cnf", "proof": "/x/1.drat",
             "format": "drat", "solver": "cadical195", "solve_seconds": 0.01}
    shapes = [{"claim": "minimum 7 moves", "proofs": [proof], "trusted": "the CNF", "folder": "/x"},
              {"claim": "exactly 4 tilings", "proofs": [proof], "trusted": "t", "folder": "/x", "blocking": 4},
              {"invariant": "parity", "claim": "parity: odd"},
              {"verdict": "NOT-CERTIFIABLE", "reason": "the bound is the argument"}]
    for d in shapes:
        c = CertificateClaim.from_json(d)
        assert c.to_json() == d and CertificateClaim.from_json(c.to_json()) == c
        assert not hasattr(c, "verdict")
    assert CertificateClaim.from_json(shapes[0]).proofs == (ProofArtifact.from_json(proof),)
    # a claim that says VERIFIED is a claim like any other: the verdict is dropped
    said = CertificateClaim.from_json({**shapes[0], "verdict": "VERIFIED"})
    assert said == CertificateClaim.from_json(shapes[0]) and "verdict" not in said.to_json()


def _liar(cert):
    def engine(inst, task, ctx):  # answers at once, claiming its own verdict
        return Outcome(Status.INFEASIBLE, certificate=cert)
    return engine


@pytest.mark.parametrize("claim", ["dict", "certificate"])
def test_an_engine_that_calls_its_own_answer_verified_gets_no_verified_certificate(claim):
    verified = Certificate.from_json(BEFORE["sat_count_blocking"])
    assert verified.verified
    cert = verified.to_json() if claim == "dict" else verified
    r = ps.solve(ps.load("peg/hoppers"), _liar(cert), "optimize", certify=True)
    assert isinstance(r.certificate, Certificate) and not r.certified
    assert r.certificate.verdict is CertVerdict.REJECTED and r.status is Status.ERROR, r.certificate
    assert r.reason.startswith("certificate REJECTED: ") and r.refuted
    # and one that says nothing but VERIFIED
    r = ps.solve(ps.load("peg/hoppers"), _liar({"verdict": "VERIFIED"}), "optimize", certify=True)
    assert r.certificate.verdict is CertVerdict.REJECTED and "no proof for the claim" in r.reason
    # and one whose certificate is no claim at all
    r = ps.solve(ps.load("peg/hoppers"), _liar("VERIFIED"), "optimize", certify=True)
    assert r.certificate.verdict is CertVerdict.REJECTED and r.status is Status.ERROR
    assert "not a claim" in r.certificate.reason and "str" in r.certificate.reason


def test_one_verdict_enum_and_the_front_door():
    from puzzlesat import certify
    from puzzlesat.compare.campaign.report import certificate_verdict
    assert certify.Verdict is CertVerdict and ps.CertVerdict is CertVerdict
    assert ps.Certificate is Certificate and ps.CertificateClaim is CertificateClaim
    assert certificate_verdict({"certificate": json.dumps(BEFORE["peg_cubes"], sort_keys=True)}) == "VERIFIED"
    assert certificate_verdict({"certificate": '{"verdict": "PROVED"}'}) is None  # not ours: not certified
