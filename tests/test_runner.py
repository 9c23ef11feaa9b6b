"""The runner's discipline: every solution checked, false claims become ERROR, limits hold."""
from __future__ import annotations

import time

import pytest

from puzzlesat.compare.crossval import Verdict, judge
from puzzlesat.families.instances import load_instance
from puzzlesat.core.family import Engine, Option
from puzzlesat.families.registry import family
from puzzlesat.compare.runner import solve
from puzzlesat.core.result import InputError, Outcome, Status, Task

PEG = family("peg")
FAM, HOP = load_instance("peg/hoppers-first06")
GOOD = solve(FAM, HOP, "native", "count", isolate=False).solutions  # 18 checked sequences


def fake(fn_name: str, tasks=(Task.OPTIMIZE, Task.COUNT, Task.FEASIBLE), options=()) -> Engine:
    return Engine(f"fake:{fn_name}", f"{__name__}:{fn_name}", tasks, options)


def lies_about_solution(inst, task, ctx):
    a, b, c = GOOD[0][0]
    return Outcome(Status.OPTIMAL, 7, None, (((c, b, a),) + GOOD[0][1:],))


def lies_about_optimum(inst, task, ctx):
    return Outcome(Status.OPTIMAL, 6, None, (GOOD[0],))


def miscounts(inst, task, ctx):
    return Outcome(Status.OPTIMAL, 7, 18, GOOD[:17])


def duplicates(inst, task, ctx):
    return Outcome(Status.OPTIMAL, 7, 18, GOOD[:17] + GOOD[:1])


def infeasible_with_solution(inst, task, ctx):
    return Outcome(Status.INFEASIBLE, None, None, GOOD[:1])


def sleeps(inst, task, ctx):
    ctx.found(GOOD[0])
    time.sleep(60)
    return Outcome(Status.OPTIMAL, 7, None, (GOOD[0],))


def crashes(inst, task, ctx):
    raise RuntimeError("boom")


@pytest.mark.parametrize("fn,task", [("lies_about_solution", "optimize"), ("lies_about_optimum", "optimize"),
                                     ("miscounts", "count"), ("duplicates", "count"),
                                     ("infeasible_with_solution", "optimize"), ("crashes", "optimize")])
def test_false_claims_become_error(fn, task):
    r = solve(FAM, HOP, fake(fn), task)
    assert r.status is Status.ERROR, r
    assert r.reason


def test_a_disagreeing_engine_makes_disagree():
    c = [solve(FAM, HOP, "native", "optimize"), solve(FAM, HOP, fake("lies_about_optimum"), "optimize")]
    assert judge(c, "min", Task.OPTIMIZE)[0] is Verdict.DISAGREE


def test_hard_limit_kills_and_keeps_the_streamed_solution():
    t0 = time.monotonic()
    r = solve(FAM, HOP, fake("sleeps"), "optimize", time_limit=0.5)
    assert time.monotonic() - t0 < 30  # killed, not waited for (a generous sanity bound)
    assert r.status is Status.FEASIBLE and r.objective == 7 and r.checked == 1


def test_killed_count_is_unknown_with_a_lower_bound():
    r = solve(FAM, HOP, fake("sleeps"), "count", time_limit=0.5)
    assert r.status is Status.UNKNOWN and r.count is None
    assert r.stats["count_lower_bound"] == 1


def test_verdicts():
    ok = solve(FAM, HOP, "native", "count")
    r2 = solve(FAM, HOP, "sat", "count")
    assert judge([ok, r2], "min", Task.COUNT) == (Verdict.AGREE, [])
    cut = solve(FAM, HOP, fake("sleeps"), "count", time_limit=0.3)
    assert judge([ok, cut], "min", Task.COUNT)[0] is Verdict.INCOMPLETE


def test_options_are_validated_and_recorded():
    e = fake("lies_about_optimum", options=(Option("k", 3), Option("enc", "a", choices=("a", "b"))))
    assert e.resolve_options({"k": "5"}) == {"k": 5, "enc": "a"}
    for bad in ({"k": "x"}, {"enc": "c"}, {"nope": 1}):
        with pytest.raises(InputError):
            e.resolve_options(bad)
    r = solve(FAM, HOP, "sat", "optimize", options={"encoding": "totalizer"})
    assert r.params["encoding"] == "totalizer" and r.params["solver"] == "cadical195"
    r = solve(FAM, HOP, "cpsat", "optimize")
    assert r.params["cpsat"]["num_workers"] == 1 and r.params["cpsat"]["linearization_level"] == 0


def test_unsupported_task_is_input_error():
    with pytest.raises(InputError):
        solve(FAM, HOP, "native:bfs", "count")


def test_cut_short_reports_its_best_checked_solution_first():
    """Streamed solutions of a run cut short: the objective is the best one's, and solutions[0] is
    that solution (a run streaming 28 moves then 27 reported 27 with the 28-move one first)."""
    import puzzlesat as ps
    from puzzlesat.engine import Outcome, Status as S
    best = ps.solve(ps.load("peg/hoppers"), "native").solutions[0]
    worse = ps.solve(ps.load("peg/hoppers"), "native:iddfs", "feasible").solutions[0]

    def streams(inst, task, ctx):
        for sol in (worse, best):
            ctx.found(sol)
        return Outcome(S.UNKNOWN)
    r = ps.solve(ps.load("peg/hoppers"), streams)
    assert r.status is S.FEASIBLE and r.objective == 7
    assert ps.check(ps.load("peg/hoppers"), r.solutions[0]) == r.objective


def test_isolated_runs_hand_their_numba_kernels_to_the_parent():
    """A worker reports the kernels it loaded; the parent loads them before its next run (outside
    that run's clock), so later workers inherit them; the answers stay the same. In a fresh
    interpreter, so that nothing was loaded before."""
    import json
    import subprocess
    import sys
    code = """if True:
        import json
        from puzzlesat.compare import runner
        from puzzlesat.compare.runner import solve
        from puzzlesat.core import procs
        from puzzlesat.families.instances import load_instance
        peg = lambda ks: sorted({(m, a) for m, a, _ in ks if m.startswith("puzzlesat.native_search.peg.")})
        fam, inst = load_instance("peg/hoppers")
        before = peg(procs.loaded_kernels())
        first = solve(fam, inst, "native", "optimize")
        import pickle  # the worker sends its kernels pickled: unpickled only before another fork
        reported = peg([k for blob in runner._KERNELS for k in pickle.loads(blob)])
        second = solve(fam, inst, "native", "optimize")
        print(json.dumps({"before": before, "reported": reported, "after": peg(procs.loaded_kernels()),
                          "answers": [[r.status.value, r.objective, r.checked] for r in (first, second)]}))
    """
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["before"] == [] and d["reported"]       # nothing here; the worker held peg kernels
    assert set(map(tuple, d["reported"])) <= set(map(tuple, d["after"]))  # loaded here since
    assert d["answers"] == [["OPTIMAL", 7, 1], ["OPTIMAL", 7, 1]]  # Hoppers: 7 moves (SPEC.md)


def test_a_worker_reports_kernels_of_indexed_modules_and_of_modules_it_imported(tmp_path):
    """After `index_kernels` a forked worker looks only at the indexed modules that hold kernels
    and at the modules imported since; both kinds of kernel it compiled are reported, nothing of
    a module without kernels. In a fresh interpreter (nothing compiled before)."""
    import json
    import subprocess
    import sys
    for name, body in (("mine_old", "@njit(cache=False)\ndef twice(x):\n    return 2 * x\n"),
                       ("mine_new", "@njit(cache=False)\ndef thrice(x):\n    return 3 * x\n"),
                       ("mine_plain", "def twice(x):\n    return 2 * x\n")):
        (tmp_path / f"{name}.py").write_text("from numba import njit\n\n" + body)
    code = """if True:
        import json, os, sys
        sys.path.insert(0, sys.argv[1])
        from puzzlesat.core import procs
        import mine_old, mine_plain
        procs.index_kernels()
        r, w = os.pipe()
        if os.fork() == 0:
            import mine_new
            mine_old.twice(2), mine_new.thrice(2), mine_plain.twice(2)
            os.write(w, json.dumps([(m, a) for m, a, s in procs.loaded_kernels() if s]).encode())
            os._exit(0)
        os.close(w)
        print(os.read(r, 1 << 16).decode())
    """
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    got = {tuple(k) for k in json.loads(p.stdout)}
    assert {("mine_old", "twice"), ("mine_new", "thrice")} <= got
    assert not any(m == "mine_plain" for m, _ in got)


def test_a_worker_forked_while_another_thread_compiles_does_not_hang():
    """A thread holding numba's compiler lock (compiling, or loading kernels for the next worker)
    while the runner forks: the fork waits for the lock, so the worker does not inherit it
    locked and hang at its own first kernel load until the time limit. In a fresh interpreter
    (the worker has kernels to load)."""
    import json
    import subprocess
    import sys
    code = """if True:
        import json, threading, time
        from numba.core.compiler_lock import global_compiler_lock
        from puzzlesat.compare.runner import solve
        from puzzlesat.families.instances import load_instance
        fam, inst = load_instance("peg/hoppers")
        held = threading.Event()
        def compiling():
            with global_compiler_lock:
                held.set()
                time.sleep(1.0)
        threading.Thread(target=compiling).start()
        held.wait()
        r = solve(fam, inst, "native", "optimize", time_limit=20)
        print(json.dumps([r.status.value, r.objective]))
    """
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == ["OPTIMAL", 7]


def test_a_child_forked_by_forking_lets_its_own_threads_compile():
    """`procs.forking` holds numba's compiler lock across the fork; the child lets go of it at
    once, so a thread the child starts can take it (a child command that compiles or loads
    kernels in threads would hang otherwise). The parent holds it until the block ends."""
    import os
    import threading
    from numba.core.compiler_lock import global_compiler_lock
    from puzzlesat.core import procs

    def takes_lock() -> bool:
        got = []

        def take():
            ok = global_compiler_lock._lock.acquire(timeout=5)
            got.append(ok)
            if ok:
                global_compiler_lock._lock.release()
        t = threading.Thread(target=take)
        t.start()
        t.join()
        return got == [True]

    with procs.forking():
        pid = os.fork()
        if pid == 0:
            os._exit(0 if takes_lock() else 3)
        parent_locked = not takes_lock()
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert parent_locked
    assert procs._HELD is None and takes_lock()


def test_a_module_that_cannot_be_looked_into_does_not_stop_runs(monkeypatch):
    """A module whose namespace raises when read (a lazy proxy, say) is skipped by the kernel
    index the runner makes before each fork; runs go on."""
    import sys
    import types
    from puzzlesat.core import procs

    class Lazy(types.ModuleType):
        def __getattribute__(self, name):
            if name == "__dict__":
                raise RuntimeError("not loaded yet")
            return super().__getattribute__(name)
    monkeypatch.setitem(sys.modules, "puzzlesat_lazy_proxy", Lazy("puzzlesat_lazy_proxy"))
    procs.index_kernels()
    assert "puzzlesat_lazy_proxy" in procs._KERNEL_INDEX
    fam, inst = load_instance("peg/hoppers")
    r = solve(fam, inst, "native", "optimize")
    assert (r.status, r.objective) == (Status.OPTIMAL, 7)


KERNEL_ENGINE = """
from numba import njit
from puzzlesat.engine import Outcome, Status


@njit(cache=True)
def spin(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s


def run(inst, task, ctx):
    return Outcome(Status.UNKNOWN, reason=f"the kernel says {spin(1000)}")
"""


def test_kernels_load_before_the_clock_and_jit_in_the_call_is_not_engine_time(tmp_path):
    """An engine whose numba kernel is not in numba's cache compiles it in its call: the run says
    how long (jit_seconds) and its engine `seconds` leave it out; the process's next run
    inherits the kernel (no JIT); a fresh process loads it from the cache before the engine's
    clock starts (start-up, not JIT). In fresh interpreters with their own empty numba cache."""
    import json
    import os
    import subprocess
    import sys
    (tmp_path / "k.py").write_text(KERNEL_ENGINE)
    code = """if True:
        import json, sys
        from puzzlesat.compare.runner import solve
        from puzzlesat.families.instances import load_instance
        fam, inst = load_instance("peg/hoppers")
        rs = [solve(fam, inst, sys.argv[1] + "/k.py:run", "optimize") for _ in range(int(sys.argv[2]))]
        print(json.dumps([[r.reason, r.seconds, r.stats.get("jit_seconds"), r.startup_seconds] for r in rs]))
    """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for n in (2, 1):
        p = subprocess.run([sys.executable, "-c", code, str(tmp_path), str(n)], capture_output=True,
                           text=True, timeout=300, env=env)
        assert p.returncode == 0, p.stderr
        runs += json.loads(p.stdout)
    (why1, s1, j1, u1), (_, s2, j2, _), (why3, s3, j3, u3) = runs
    assert why1 == why3 == "the kernel says 2997"
    assert j1 > 0 and s1 < j1  # compiled in the call: JIT, not engine time
    assert j2 == 0.0 and j3 == 0.0  # inherited from the parent; loaded from the cache before the clock
    assert u1 > 0 and u3 > 0


@pytest.mark.parametrize("exc", [MemoryError(), SystemError("error return without exception set"),
                                 RuntimeError("std::bad_alloc")])
def test_an_allocation_failure_under_a_memory_cap_is_unknown_memory(exc):
    """Under a memory cap, an engine failure that names an allocation (a C extension returning
    NULL without an exception, as numba compiling under a 300 MB cap did) is UNKNOWN 'memory';
    without a cap the same SystemError is ERROR."""
    from puzzlesat.compare import runner

    def boom(inst, task, ctx):
        raise exc
    eng = Engine("test:boom", "x:y", (Task.OPTIMIZE,))
    capped, _ = runner._call(eng, None, Task.OPTIMIZE, None, capped=True, fn=boom)
    assert capped.status is Status.UNKNOWN and capped.reason.startswith("memory")
    if isinstance(exc, SystemError):
        free, _ = runner._call(eng, None, Task.OPTIMIZE, None, capped=False, fn=boom)
        assert free.status is Status.ERROR
