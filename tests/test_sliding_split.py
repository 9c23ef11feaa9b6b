"""IDA* iterations split into jobs on a Dask LocalCluster (127.0.0.1): the same optimum as one
process, the same count and node total when counting, and a job whose worker dies is re-run."""
from __future__ import annotations

import functools
import os
import sys

import pytest

distributed = pytest.importorskip("distributed")

from puzzlesat.native_search.sliding import cluster as S  # noqa: E402
from puzzlesat.families.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.native_search.sliding import ida as I  # noqa: E402
from puzzlesat.core.result import Status  # noqa: E402
from puzzlesat.puzzles.sliding import catalogue  # noqa: E402

FAM = family("sliding")
OPTS = {"pdb": "none"}  # Manhattan + linear conflicts: no database to build on the workers


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    c = distributed.Client(cluster, set_as_default=False)
    yield c
    c.close()
    cluster.close()


def _spec(inst, dual="off"):
    return {"instance": inst, "heuristic": "auto", "pdb": "none", "mirror": True, "dual": dual,
            "fill": False}


@pytest.mark.parametrize("name", ["15-easy-36", "15-easy-40"])
def test_dask_split_counts_like_one_process(client, name):
    """Counting finishes every iteration: one process, two forked processes and the Dask split
    find the same solutions and generate exactly the same nodes."""
    inst = catalogue()[name]()
    one = solve(FAM, inst, "native", "count", options=OPTS, isolate=False)
    fork = solve(FAM, inst, "native", "count", options={**OPTS, "processes": 2}, isolate=False)
    split = S.DaskSplit(client, _spec(inst), 0, split_nodes=3000)
    st, sols, stats, _ = I.deepen(inst, "auto", True, pdb="none", split=split)
    assert one.status is fork.status is st is Status.OPTIMAL
    assert sorted(one.solutions) == sorted(fork.solutions) == sorted(sols)
    assert one.count == len(sols) == inst_count(name)
    assert one.stats["nodes"] == fork.stats["nodes"] == stats["nodes"]
    assert stats["split"]["split_iterations"] > 0 and stats["split"]["jobs"] > 0


def inst_count(name: str) -> int:
    """The catalogue's number of optimal solutions (confirmed by bidirectional BFS)."""
    from puzzlesat.puzzles.sliding import EASY15
    return EASY15[name][2]


def test_dask_split_optimum_like_one_process(client):
    """Optimize on Korf #79 (42 moves): the same optimum, every iteration but the last generates
    the same nodes, and the last at most the whole last iteration (IDA*'s tie variance)."""
    inst = catalogue()["korf-079"]()
    whole = I.deepen(inst, "auto", True, pdb="555")  # the last iteration searched to the end
    one = I.deepen(inst, "auto", False, pdb="555")
    spec = {**_spec(inst), "pdb": "555"}
    st, sols, stats, _ = I.deepen(inst, "auto", False, pdb="555", split=S.DaskSplit(client, spec, 0, 0))
    assert one[0] is st is Status.OPTIMAL and len(sols[0]) == len(one[1][0]) == inst.optimal
    a, b = one[2]["iterations"], stats["iterations"]
    assert a[:-1] == b[:-1] and b[-1] <= whole[2]["iterations"][-1]


def _die_once(marker: str, *args):
    """A subtree job that kills its own worker the first time any job runs."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return S.subtree_job(*args)


def test_a_job_lost_with_its_worker_is_rerun(client, tmp_path):
    """The first job kills its worker: the scheduler runs it again on a live worker, and the
    count and node total are still those of one process."""
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    inst = catalogue()["15-easy-36"]()
    marker = str(tmp_path / "died")
    split = S.DaskSplit(client, _spec(inst), 0, 0, task=functools.partial(_die_once, marker))
    st, sols, stats, _ = I.deepen(inst, "auto", True, pdb="none", split=split)
    one = I.deepen(inst, "auto", True, pdb="none")
    assert os.path.exists(marker)  # a worker did die
    assert st is Status.OPTIMAL and sorted(sols) == sorted(one[1])
    assert stats["nodes"] == one[2]["nodes"]


def test_dask_engine_option(client):
    """-o dask=local runs the split through the engine (its own LocalCluster); a bad address is
    refused before anything runs."""
    from puzzlesat.core.result import InputError
    inst = catalogue()["15-easy-26"]()
    r = solve(FAM, inst, "native", "count", isolate=False,
              options={**OPTS, "dask": "local", "processes": 2, "split_nodes": 0})
    assert (r.status, r.objective, r.count) == (Status.OPTIMAL, 26, 6)
    assert r.stats["split"]["jobs"] > 0
    with pytest.raises(InputError, match="'local' or a scheduler address"):
        solve(FAM, inst, "native", "optimize", options={"dask": "here"}, isolate=False)


def test_dual_lookup_split_counts_like_one_process(client):
    """With dual lookups (5-5-5), one process, two forked processes and the Dask split count the
    same optimal solutions (node totals differ a little: pathmax and BPMX act only below the cut)."""
    inst = catalogue()["15-easy-36"]()
    opts = {"pdb": "555", "dual": "lookup"}
    one = solve(FAM, inst, "native", "count", options=opts, isolate=False)
    fork = solve(FAM, inst, "native", "count", options={**opts, "processes": 2}, isolate=False)
    spec = {**_spec(inst, "lookup"), "pdb": "555"}
    st, sols, stats, _ = I.deepen(inst, "auto", True, pdb="555", dual="lookup",
                                  split=S.DaskSplit(client, spec, 0, 100))
    assert one.status is fork.status is st is Status.OPTIMAL
    assert sorted(one.solutions) == sorted(fork.solutions) == sorted(sols)
    assert one.count == 12 and stats["split"]["jobs"] > 0


def test_dask_split_time_limit_gives_a_lower_bound(client):
    """Korf #88 (65 moves) with linear conflicts takes minutes: a 3 s limit on the split run ends
    UNKNOWN with the bound of the iteration cut short, a true lower bound."""
    from puzzlesat.core.result import Context
    inst = catalogue()["korf-088"]()
    split = S.DaskSplit(client, _spec(inst), 0, 0)
    st, sols, stats, reason = I.deepen(inst, "auto", False, Context({}, time_limit=3), pdb="none",
                                       split=split)
    assert st is Status.UNKNOWN and sols == [] and "time limit" in reason
    assert stats["h0"] <= stats["lower_bound"] <= 65 and stats["split"]["jobs"] > 0


def test_zero_aware_catalogue_split_like_one_process(client):
    """The zero-aware catalogue (zpdb-small4, its databases in the workers' cache) over the Dask
    split: a count finds the same solutions with the same nodes generated and expanded as one
    process; optimize with the loops-12 automaton proves the same optimum, each iteration but the
    last generating the same nodes."""
    from puzzlesat.puzzles.sliding import check
    inst = catalogue()["15-easy-30"]()
    spec = {**_spec(inst), "pdb": "zpdb-small4"}
    one = I.deepen(inst, "auto", True, pdb="zpdb-small4")
    st, sols, stats, _ = I.deepen(inst, "auto", True, pdb="zpdb-small4",
                                  split=S.DaskSplit(client, spec, 0, 0))
    assert one[0] is st is Status.OPTIMAL and sorted(one[1]) == sorted(sols)
    assert (one[2]["nodes"], one[2]["expanded"]) == (stats["nodes"], stats["expanded"])
    assert stats["split"]["jobs"] > 0 and all(check(inst, s) == 30 for s in sols)
    fsm = {**spec, "fsm": "loops-12"}
    a = I.deepen(inst, "auto", False, pdb="zpdb-small4", fsm="loops-12")
    st, sols, stats, _ = I.deepen(inst, "auto", False, pdb="zpdb-small4", fsm="loops-12",
                                  split=S.DaskSplit(client, fsm, 0, 0))
    assert a[0] is st is Status.OPTIMAL and len(sols[0]) == len(a[1][0]) == 30 == check(inst, sols[0])
    assert a[2]["iterations"][:-1] == stats["iterations"][:-1] and stats["split"]["jobs"] > 0
