"""The native tiling search's fewest-options branching and its split into parts (issue 14):
the same tilings as first-cell branching, published counts, brute-force oracles on random small
instances, plain Python under NUMBA_DISABLE_JIT, and a count split into campaign jobs."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from puzzlesat.compare.campaign.report import merge_parts
from puzzlesat.compare.campaign.spec import load_spec
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.native_search.pentomino.dfs import orbit_piece, tilings, tilings_parallel, use_orbits
from puzzlesat.puzzles import pentomino as P
from puzzlesat.core.result import InputError
from oracles import PUBLISHED_TILINGS as PUBLISHED, tiling_oracle_count as oracle_count
from strategies import tilings_small


FAM = family("pentomino")
# Solid pentominoes in a 2x5x6 box: 264 up to the box's 8 symmetries — Polyform Puzzler
# (D. Goodger), puzzler/puzzles/solid_pentominoes.py, class SolidPentominoes2x5x6, "264
# solutions" (X restricted to one placement per orbit, as here); also C. J. Bouwkamp's 1960s-70s
# enumerations. All 2112 = 264 x 8 (every orbit has 8 tilings: no tiling is symmetric; tested).
KNOWN = {**PUBLISHED, "2x5x6": (2112, 264), "6x10": (9356, 2339)}


def inst(name):
    return P.catalogue()[name]()


@pytest.mark.parametrize("name,up", [("soma", False), ("soma", True), ("2x3x10", False),
                                     ("2x3x10", True), ("8x8-holes-2-5", False),
                                     ("8x8-holes-2-5", True), ("6x10", True), ("2x5x6", True)])
def test_fewest_options_finds_the_same_tilings_as_first_cell(name, up):
    t = inst(name)
    fewest = list(tilings(t, up_to_symmetry=up, branching="fewest"))
    first = list(tilings(t, up_to_symmetry=up, branching="first-cell"))
    assert len(fewest) == len(set(fewest)) == KNOWN[name][1 if up else 0]
    if up:  # the same orbits (the plan's representatives may differ only by dedup order)
        assert {P.canonical(t, s) for s in fewest} == {P.canonical(t, s) for s in first}
    else:
        assert set(fewest) == set(first)


@pytest.mark.parametrize("name,orbits", [("3x20", 2), pytest.param("soma", 240, marks=pytest.mark.slow)])
def test_fewest_options_without_the_plan_dedupes_by_canonical_form(name, orbits):
    """Up to symmetry without the symmetry-breaking plan: one tiling per orbit by canonical form
    (3x20: 2 orbits of its 8 tilings; soma: 240 of 11520), sequential and over 2 processes."""
    t = inst(name)
    assert len(list(tilings(t, up_to_symmetry=True, symmetry_breaking=False,
                            branching="fewest"))) == orbits
    assert len(list(tilings_parallel(t, 2, up_to_symmetry=True, symmetry_breaking=False,
                                     branching="fewest"))) == orbits


def test_2x5x6_264_orbits_2112_tilings():
    t = inst("2x5x6")
    reps = list(tilings(t, up_to_symmetry=True))
    assert len(reps) == 264 and len({P.canonical(t, s) for s in reps}) == 264
    group = P.symmetries(t)
    assert len(group) == 8
    assert sum(len({P.transform(s, g) for g in group}) for s in reps) == 2112
    r = solve(FAM, t, "native", "count", time_limit=600)
    assert (r.status.value, r.count, r.checked) == ("OPTIMAL", 2112, 2112), r.reason
    assert r.params["fewest_options"] is True  # auto: 3D


def test_auto_branching_rule():
    r = solve(FAM, inst("3x20"), "native", "count", time_limit=120)
    assert (r.count, r.params["branching"], r.params["fewest_options"]) == (8, "auto", False)
    r = solve(FAM, inst("3x20"), "native", "count", time_limit=120,
              options={"branching": "fewest"})
    assert (r.count, r.params["fewest_options"]) == (8, True)
    with pytest.raises(ValueError):
        list(tilings(inst("3x20"), branching="sideways"))


def test_fewest_options_on_random_instances_agrees_with_the_oracle():
    """Random small 2D/3D boards with holes, one-sided sets and pieces with copies (a monomino
    filler with a count above 1): the count of the oracle of test_pentomino_3d, by fewest options,
    and all tilings by placement orbits (square boards have 8 symmetries, boxes up to 16) equal to
    the plain search's."""
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(tilings_small())
    def check(t):
        if t is None:
            return
        want = oracle_count(t.cells, {p.name: (p.shape, p.count, p.one_sided) for p in t.pieces})
        every = list(tilings(t, branching="fewest"))
        assert len(every) == len(set(every)) == want
        canon = len({P.canonical(t, s) for s in every})
        assert len(list(tilings(t, up_to_symmetry=True, branching="fewest"))) == canon
        via = list(tilings(t, orbits=True))
        assert len(via) == len(set(via)) == want and set(via) == set(every)
    check()


# ---- all tilings by placement orbits ---------------------------------------------------------
@pytest.mark.parametrize("name,branching", [("soma", "fewest"), ("2x3x10", "fewest"),
                                            ("8x8-holes-2-5", "first-cell"),
                                            ("6x10", "first-cell"), ("2x5x6", "fewest"),
                                            ("tetracubes-2x4x4", "fewest")])
def test_orbit_branches_give_every_tiling_once(name, branching):
    """The pinned piece on one placement per orbit, each tiling mapped onto its orbit: exactly
    the tilings of the plain search, none twice."""
    t = inst(name)
    k, orbits = orbit_piece(t)
    mine = [i for i, p in enumerate(P.placements(t)) if p.piece == k]
    assert sum(len(tr) for _, tr in orbits) == len(mine)  # the orbits partition k's placements
    assert all(tr[0] is P.symmetries(t)[0] for _, tr in orbits)  # identity first
    via = list(tilings(t, orbits=True, branching=branching))
    plain = list(tilings(t, branching=branching))
    assert len(via) == len(set(via)) == len(plain)
    assert set(via) == set(plain)
    if name in KNOWN:
        assert len(via) == KNOWN[name][0]
    for sol in via[:50]:
        P.check(t, sol)


def test_orbit_branches_only_where_they_pay():
    assert not use_orbits(inst("one-sided-3x30"), False)  # 3 wide, first cell: plain search
    assert use_orbits(inst("one-sided-3x30"), True) and use_orbits(inst("6x10"), False)
    r = solve(FAM, inst("3x20"), "native", "count", time_limit=120)
    assert (r.count, r.params["orbit_images"]) == (8, False)
    asym = P.make("asym", "..........\n.....", "LPY")
    assert orbit_piece(asym) is None  # no symmetry but the identity
    r = solve(FAM, inst("soma"), "native", "count", time_limit=120)
    assert (r.status.value, r.count, r.checked, r.params["orbit_images"]) == \
        ("OPTIMAL", 11520, 11520, True)
    r = solve(FAM, inst("soma"), "native", "count", time_limit=120,
              options={"symmetry_breaking": False})
    assert (r.count, r.params["orbit_images"]) == (11520, False)
    r = solve(FAM, inst("8x8-holes-2-5"), "native", "count", time_limit=120,
              options={"processes": 2})
    assert (r.status.value, r.count, r.checked, r.params["orbit_images"]) == \
        ("OPTIMAL", 168, 168, True)


def test_numba_disabled_fewest_options_runs_as_python(no_jit):
    code = ("from puzzlesat.puzzles.pentomino import catalogue, make\n"
            "from puzzlesat.native_search.pentomino.dfs import tilings, tilings_parallel\n"
            "t = catalogue()['soma']()\n"
            "s = make('2x5', '.....' + chr(10) + '.....', 'PP')\n"
            "print(len(list(tilings(t, up_to_symmetry=True, branching='fewest'))),"
            " len(list(tilings_parallel(t, 2, up_to_symmetry=True, branching='fewest'))),"
            " len(list(tilings(s, branching='fewest'))),"
            " len(list(tilings(t, orbits=True, branching='fewest'))))\n")
    stdout = no_jit(code)
    assert stdout.split() == ["240", "240", "2", "11520"]


# ---- a count split into parts -------------------------------------------------------------------
@pytest.mark.parametrize("name,up,branching", [("6x10", True, "first-cell"),
                                               ("soma", False, "fewest"),
                                               ("2x3x10", True, "fewest")])
def test_parts_partition_the_tilings(name, up, branching):
    t = inst(name)
    whole = set(tilings(t, up_to_symmetry=up, branching=branching))
    parts = [set(tilings_parallel(t, 1, up_to_symmetry=up, branching=branching, part=k, parts=3))
             for k in range(3)]
    assert sum(map(len, parts)) == len(whole) == KNOWN[name][1 if up else 0]
    assert set().union(*parts) == whole


def test_part_runs_through_the_runner_and_an_empty_part_is_a_zero_count():
    counts = []
    for k in range(3):
        r = solve(FAM, inst("3x20"), "native", "count", time_limit=120,
                  options={"up_to_symmetry": True, "parts": 3, "part": k})
        assert r.status.value == "OPTIMAL" and r.count == r.checked, r.reason
        assert (r.params["parts"], r.params["part"]) == (3, k)
        counts.append(r.count)
    assert sum(counts) == 2 and 0 in counts  # 2 tilings in 3 parts: one part holds none
    with pytest.raises(InputError):
        FAM.engine("native").resolve_options({"parts": 0})


def _split_spec(tmp_path, split=3, task="count", extra=""):
    f = tmp_path / "split.toml"
    f.write_text(textwrap.dedent(f"""\
        name = "split"
        instances = ["pentomino/6x10"]
        task = "{task}"
        time_limit = 300
        split = {split}
        {extra}
        [configs]
        native = "native[up_to_symmetry=true]"
        """))
    return f


def test_campaign_split_expands_jobs_and_rejects_bad_specs(tmp_path):
    jobs = load_spec(_split_spec(tmp_path, 4)).jobs()
    assert len(jobs) == 4 and len({j.key for j in jobs}) == 4
    assert sorted('"part": %d' % k in j.options for j in jobs for k in range(4)).count(True) == 4
    for split, task, extra, match in ((0, "count", "", "positive integer"),
                                      (2, "feasible", "", "needs task"),
                                      (2, "count", "repeat = 1", None)):
        f = _split_spec(tmp_path, split, task, extra)
        if match is None:
            assert len(load_spec(f).jobs()) == 2
            continue
        with pytest.raises(InputError, match=match) as e:
            load_spec(f)
        assert e.value.field == "split" and e.value.line is not None
    f = tmp_path / "both.toml"
    f.write_text(_split_spec(tmp_path, 2).read_text().replace(
        "native[up_to_symmetry=true]", "native[up_to_symmetry=true,parts=2]"))
    with pytest.raises(InputError, match="parts/part"):
        load_spec(f)


def _run_campaign(tmp_path, *extra):
    spec = _split_spec(tmp_path, 3)
    store = tmp_path / "split.db"
    out = subprocess.run([sys.executable, "-m", "puzzlesat", "campaign", "run", str(spec),
                          "--store", str(store), "--jobs", "2", *extra],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    from puzzlesat.compare.campaign.store import Store
    rows = Store.open_read(store).rows()
    assert len(rows) == 3
    for r in rows:  # each part: an exact count, every tiling checked
        assert (r["status"], r["termination"]) == ("OPTIMAL", "done"), r["reason"]
        assert r["count"] == r["solutions_checked"] and r["cpu_seconds"] > 0
    merged, splits = merge_parts(rows)
    assert len(merged) == 1 and merged[0]["count"] == 2339 and merged[0]["status"] == "OPTIMAL"
    (s,) = splits
    assert (s["parts"], s["finished"], s["count"], s["solutions_checked"]) == (3, 3, 2339, 2339)
    assert sum(s["part_counts"]) == 2339 and s["seconds_min"] <= s["seconds_max"]
    rep = subprocess.run([sys.executable, "-m", "puzzlesat", "campaign", "report", "--store",
                          str(store)], capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0 and "2339" in rep.stdout and "split counts" in rep.stdout
    return rows


def test_campaign_split_count_local_executor(tmp_path):
    _run_campaign(tmp_path)


def test_campaign_split_count_dask_local_cluster(tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    rows = _run_campaign(tmp_path, "--executor", "dask")
    assert all(r["worker"] for r in rows)


def test_merge_parts_never_sums_an_unfinished_split():
    base = {"instance": "i", "task": "count", "config": "c", "repeat": 0, "family": "pentomino",
            "seconds": 1.0, "wall_seconds": 1.0, "cpu_seconds": 1.0, "solutions_checked": 5,
            "started": "a", "finished": "b", "params": "{}", "reason": None}
    rows = [{**base, "options": '{"parts": 2, "part": 0}', "status": "OPTIMAL", "count": 5,
             "termination": "done"},
            {**base, "options": '{"parts": 2, "part": 1}', "status": "UNKNOWN", "count": None,
             "termination": "time"}]
    merged, splits = merge_parts(rows)
    assert merged[0]["status"] == "UNKNOWN" and merged[0]["count"] is None
    assert splits[0]["finished"] == 1 and splits[0]["count"] is None
    merged, _ = merge_parts(rows[:1])  # a part missing from the store
    assert merged[0]["count"] is None


@pytest.mark.slow
def test_native_3x4x5_all_31520():
    """3x4x5 all tilings: 31520 = Σ orbit sizes of the 3940 (every orbit has 8); ~1-2 min."""
    r = solve(FAM, inst("3x4x5"), "native", "count", options={"processes": 2})
    assert (r.status.value, r.count, r.checked) == ("OPTIMAL", 31520, 31520), r.reason


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["cpsat", "sat"])
def test_models_2x5x6_264(engine):
    """The models on the 2x5x6 box up to symmetry: about 25 s (cpsat) and 80 s (sat)."""
    r = solve(FAM, inst("2x5x6"), engine, "count", options={"up_to_symmetry": True},
              time_limit=600)
    assert (r.status.value, r.count, r.checked) == ("OPTIMAL", 264, 264), r.reason
