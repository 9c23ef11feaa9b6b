"""Properties over random inputs: the configuration grammar round-trips; a Formulation has the
same projected models in CNF, in CP-SAT and by brute force; every family's solutions round-trip
through their JSON form; campaign job keys are stable (golden keys written by puzzlesat 0.2)."""
from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import puzzlesat as ps
from puzzlesat.core.config import Config, parse, parse_many
from puzzlesat.models.formulation import (AtLeast, AtMost, AtMostOne, Clause, ExactlyOne,
                                          Formulation, Xor, to_cnf, to_cpsat)
from oracles import constraint_holds

# ---- the configuration grammar --------------------------------------------------------------------
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,8}", fullmatch=True)
ENGINES = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_\-:./]{0,12}", fullmatch=True)
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
VALUES = st.from_regex(r"[A-Za-z0-9_.:/+\-]{1,10}", fullmatch=True)


@st.composite
def configs(draw) -> Config:
    engine = draw(ENGINES)
    opts = draw(st.dictionaries(KEYS, VALUES, max_size=4))
    spec = Config("", engine, tuple(sorted(opts.items()))).spec
    return Config(draw(st.one_of(st.just(spec), NAMES)), engine, tuple(sorted(opts.items())))


@settings(max_examples=200, deadline=None)
@given(configs())
def test_config_parse_of_format_is_the_identity(c):
    assert parse(str(c)) == c
    assert parse(f"  {c}  ") == c


@settings(max_examples=50, deadline=None)
@given(st.lists(configs(), min_size=1, max_size=4, unique_by=lambda c: c.name))
def test_config_lists_round_trip(cs):
    assert parse_many(",".join(map(str, cs))) == cs


# ---- Formulation: CNF, CP-SAT and brute force count the same projected models --------------------
@st.composite
def formulations(draw) -> Formulation:
    n = draw(st.integers(2, 6))
    keys = [("x", i) for i in range(n)]
    key = st.sampled_from(keys)
    subset = st.lists(key, min_size=1, max_size=n, unique=True).map(tuple)
    f = Formulation("random", "hypothesis")
    for i in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["clause", "exactly", "amo", "atmost", "atleast", "xor"]))
        if kind == "clause":
            c = Clause(tuple((k, draw(st.booleans())) for k in draw(subset)))
        elif kind == "exactly":
            c = ExactlyOne(draw(subset))
        elif kind == "amo":
            c = AtMostOne(draw(subset))
        elif kind in ("atmost", "atleast"):
            ks = draw(subset)
            k = draw(st.integers(0, len(ks)))
            c = AtMost(ks, k) if kind == "atmost" else AtLeast(ks, k)
        else:
            c = Xor(draw(subset), draw(st.integers(0, 1)))
        f.add(f"g{i % 2}", c)
    f.projection = tuple(keys[: draw(st.integers(1, n))])  # a projection, maybe not every key
    return f


_holds = constraint_holds


def brute_projected(f: Formulation) -> set[frozenset]:
    keys = sorted({k for _, c in f.constraints() for k in
                   (c.keys if not isinstance(c, Clause) else [k for k, _ in c.lits])} | set(f.projection))
    out = set()
    for bits in itertools.product((False, True), repeat=len(keys)):
        val = dict(zip(keys, bits))
        if all(_holds(c, val) for _, c in f.constraints()):
            out.add(frozenset(k for k in f.projection if val[k]))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulations(), st.sampled_from(["seqcounter", "totalizer", "sortnetwrk", "cardnetwrk",
                                        "mtotalizer", "kmtotalizer"]))
def test_formulation_cnf_and_cpsat_have_the_same_projected_models(f, encoding):
    want = brute_projected(f)
    cnf = {frozenset(m) for m in to_cnf(f, encoding).models()}
    assert cnf == want
    from puzzlesat.core.result import Context, Status
    from puzzlesat.engine import cpsat_enumerate
    cp = to_cpsat(f)
    status, sols = cpsat_enumerate(cp.model, cp.projection_vars(), Context())
    got = {frozenset(k for k, v in zip(f.projection, t) if v) for t in sols}
    assert got == want and status is (Status.OPTIMAL if want else Status.INFEASIBLE)


# ---- solutions round-trip through their JSON form, for every family -------------------------------
SMALL = {"peg": ("peg/hoppers-first06", "count"), "pentomino": ("pentomino/3x20", "count"),
         "sliding": ("sliding/8-hardest", "count"), "maze": ("maze/sample2", "count")}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_solution_json_round_trip(name):
    inst_name, task = SMALL[name]
    inst = ps.load(inst_name)
    fam = ps.family_of(inst)
    r = ps.solve(inst, "native", task)
    assert r.status is ps.Status.OPTIMAL and r.solutions
    for s in r.solutions:
        d = json.loads(json.dumps(fam.solution_json(inst, s)))
        back = fam.solution_from_json(inst, d)
        assert fam.solution_key(inst, back) == fam.solution_key(inst, s)
        assert fam.check(inst, back) == fam.check(inst, s)
    rec = json.loads(json.dumps(r.to_record()))
    again = ps.Result.from_record(rec, fam, inst)
    assert again.to_record() == r.to_record()
    with pytest.raises(ps.CheckError):
        fam.solution_from_json(inst, {"no": "such field"})


# ---- campaign job keys ------------------------------------------------------------------------
SPEC = '''name = "keys"
instances = ["peg/hoppers", "sliding/8-easy"]
time_limit = 30
memory_limit_mb = 2048
seeds = [0, 1]
[configs]
native = "native"
tot = "sat:time[encoding=totalizer]"
cp = "cpsat[workers=1]"
'''
# computed by puzzlesat 0.2 (before the layers moved), so a store written then still resumes
GOLDEN_KEYS = {
    ("peg/hoppers", "native", 0, None): "9d8366c2482b48ab694b146e2568b286",
    ("peg/hoppers", "native", 1, None): "f97ad0b745a8115d03f1e1126c8620ae",
    ("peg/hoppers", "tot", 0, None): "fcde81c8a79ccc28d59a22269f41bdaa",
    ("peg/hoppers", "tot", 1, None): "8e3cd220277071244b2b24adfe5eb0ff",
    ("peg/hoppers", "cp", 0, 0): "fd1c97e9287fb677714ff227e8df3392",
    ("peg/hoppers", "cp", 1, 1): "c825cae19f35d442a9c76db4606022f9",
    ("sliding/8-easy", "native", 0, None): "a95b1713a2c7e2f860e5e0c0e048ce72",
    ("sliding/8-easy", "native", 1, None): "3498050dd297c9248e15c3dc3b7e0673",
    ("sliding/8-easy", "tot", 0, None): "80920ed420f03d7d878fdca042995f01",
    ("sliding/8-easy", "tot", 1, None): "6152e68e05dc25d0338c9c897be74e52",
    ("sliding/8-easy", "cp", 0, 0): "83a1d7cd48ba081d8d4cff899a907abb",
    ("sliding/8-easy", "cp", 1, 1): "ba232f3730f761cb69d79e97b2cf8b27",
}


def test_campaign_job_keys_are_stable(tmp_path):
    from puzzlesat.compare.campaign.spec import load_spec
    p = tmp_path / "keys.toml"
    p.write_text(SPEC)
    jobs = load_spec(p).jobs()
    again = load_spec(p).jobs()
    assert [j.key for j in jobs] == [j.key for j in again]
    assert len({j.key for j in jobs}) == len(jobs) == 12
    keys = {(j.instance, j.config, j.repeat, j.seed): j.key for j in jobs}
    assert keys == GOLDEN_KEYS
