"""Sliding-tile benchmark: native IDA* on Korf's 100 and Korf & Felner's 24-puzzles, whole state
spaces by BFS, the models, and a peer.

Run: python bench/sliding.py [--korf all|N|a-b|i,j,k] [--pdb 663|555|78|none]
                             [--model-limit S] [--skip-models] [--skip-peer]
     python bench/sliding.py --only kf24 --kf24 25,40 --processes 1,2 --kf24-limit 600
     python bench/sliding.py --only kf24-screen --kf24 all --screen 60 --kf24-limit 600
                             (how many of the 50 finish within the limit, 1 process)
     python bench/sliding.py --only korf-avg --pdb 663      (average nodes over Korf's 100)
     python bench/sliding.py --only explore                 (2x6, 6x2, 4x3, 3x4: time and memory)
     python bench/sliding.py --only zpdb --kf24 38,40,44 --processes 1 [--fsm loops-16]
                             (zero-aware zpdb-small: expansions beside Clausecker & Reinefeld's)
     python bench/sliding.py --only zpdb-screen --kf24 all --processes 2 --work DIR [--fsm ...]
                             (how many of the 50 within --kf24-limit s on 2 cores; resumable)
     python bench/sliding.py --only zpdb-peer --kf24 38,40,44 --peer24 DIR --peer24-pdb DIR [--zpdb-parts 0,1 --work DIR]
                             (Clausecker's C implementation, built by you, and ours side by side)
     python bench/sliding.py --only unsolved24 --c24u 1, --workers 2 --kf24-limit 3600
                             (a 24-puzzle with no published optimum: the bound one hour proves)
     add --dual lookup|search [--dual-fill] [--no-mirror] to any IDA* part
Every native and model answer goes through the family's checker (compare.runner.solve) and is
compared with the published optimal length; any mismatch is printed as MISMATCH and fails the run.
The peer `slidingpuzzle` (PyPI) pins numpy==1.23.5, so install it beside the venv without its
dependencies (pip install --no-deps --target DIR slidingpuzzle; PYTHONPATH=DIR) to time it.
"""
from __future__ import annotations

import argparse
import random
import sys
import time


from puzzlesat.families.registry import family  # noqa: E402
from puzzlesat.compare.runner import solve  # noqa: E402
from puzzlesat.puzzles.sliding import Sliding, catalogue, default_goal, neighbours  # noqa: E402


def korf_ids(spec: str) -> list[int]:
    if spec == "all":
        return list(range(1, 101))
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    if "," in spec:
        return [int(x) for x in spec.split(",") if x]
    return list(range(1, int(spec) + 1))


def random_walk(seed: int, length: int, rows: int = 4, cols: int = 4) -> tuple[int, ...]:
    """The generator of the catalogue's easy 15-puzzle positions (no immediate undo)."""
    rng = random.Random(seed)
    b = list(default_goal(rows, cols))
    prev = None
    for _ in range(length):
        z = b.index(0)
        c = rng.choice([x for x in neighbours(rows, cols, z) if x != prev])
        b[z], b[c] = b[c], 0
        prev = z
    return tuple(b)


def engine_options(a) -> dict:
    """The native:ida options the command line asks for (recorded with every table)."""
    return {"dual": a.dual, "dual_fill": a.dual_fill, "dual_fill_max": a.dual_fill_max,
            "mirror": not a.no_mirror, "order": a.order}


def _cpu(r) -> float:
    """CPU seconds of the engine (the runner measures them in the engine's process)."""
    return float(r.stats.get("cpu_seconds", r.seconds))


def bench_korf(ids: list[int], pdb: str, opts: dict | None = None) -> bool:
    """Korf's 100, per instance: moves, our nodes and CPU seconds, and Korf's (1985) published
    Manhattan-IDA* node count beside them (the only per-instance count published for all 100)."""
    from puzzlesat.puzzles.sliding import korf100
    fam = family("sliding")
    cat = catalogue()
    opts = {"pdb": pdb, **(opts or {})}
    pub = {r["id"]: r.get("korf1985_ida_nodes_generated") for r in korf100()}
    ok = True
    if pdb != "none":
        load_pdb(4, 4, pdb, opts.get("dual", "off"), fill_of(opts))
    print(f"\n## native IDA* on Korf's 100, options {opts}")
    print(f"{'#':>4} {'len':>4} {'pub':>4} {'nodes':>14} {'Mnodes/s':>9} {'CPU s':>8} {'Korf 1985 (MD) nodes':>21}")
    tot_nodes, tot_cpu = 0, 0.0
    worst = (0.0, 0)
    for i in ids:
        inst = cat[f"korf-{i:03d}"]()
        r = solve(fam, inst, "native:ida", "optimize", options=opts, isolate=False)
        nodes = r.stats.get("nodes", 0)
        cpu = _cpu(r)
        rate = nodes / cpu / 1e6 if cpu > 0 else 0.0
        bad = r.status.value != "OPTIMAL" or r.objective != inst.optimal or r.checked != 1
        ok &= not bad
        tot_nodes += nodes
        tot_cpu += cpu
        worst = max(worst, (cpu, i))
        print(f"{i:4d} {r.objective!s:>4} {inst.optimal:4d} {nodes:14,d} {rate:9.1f} {cpu:8.2f} "
              f"{pub.get(i) or 0:21,d}" + ("  MISMATCH " + str(r.status) if bad else ""), flush=True)
    print(f"total: {len(ids)} instances, {tot_nodes:,d} nodes ({tot_nodes / max(len(ids), 1):,.0f} per "
          f"instance), {tot_cpu:.1f} CPU s, {tot_nodes / max(tot_cpu, 1e-9) / 1e6:.1f} Mnodes/s; "
          f"slowest #{worst[1]} {worst[0]:.1f} s")
    return ok


def fill_of(opts: dict):
    """The searches' `fill` argument for these engine options (native_search.sliding.engines.fill_of)."""
    from puzzlesat.native_search.sliding.engines import fill_of as f
    return f({"dual_fill": False, "dual_fill_max": 0, **opts})


def load_pdb(rows: int, cols: int, name: str, dual: str = "off", fill: bool | int = False) -> None:
    """Build or read a partition's databases (before any timing), and print their sizes."""
    from puzzlesat.native_search.sliding import pattern_db as P
    from puzzlesat.native_search.sliding.dida import tables
    info: dict = {}
    t0 = time.perf_counter()
    blank = rows * cols - 1
    parts = [P.PARTITIONS[(rows, cols)][x] for x in name.split("+")]
    h = tables(rows, cols, parts, blank, True, dual != "off", info=info, fill=fill)
    print(f"pattern databases {rows}x{cols} {name} (dual {dual}, fill {fill}): "
          f"{time.perf_counter() - t0:.1f} s, {h.dbs.nbytes / 1e6:.1f} MB in memory")
    for f, i in info.items():
        print(f"  {f}: {i['entries']:,} entries, {i['bytes'] / 1e6:.1f} MB, {i['source']}"
              + (f" in {i['build_seconds']:.1f} s" if i["source"] == "built" else ""))


# Published averages over Korf's 100 with the mirror lookup (Felner, Korf & Hanan, JAIR 22, 2004),
# and over 1000 random instances with 7-8 + mirror + dual lookups (Felner et al. 2005) and DIDA*
# (Zahavi et al. 2008), as the issue quotes them.
FKH_AVERAGE = {"663": 617_555, "78": 36_710}
DUAL_78 = {"lookup": 18_601, "search": 13_687}


def bench_korf_average(pdb: str, opts: dict | None = None) -> bool:
    """Average IDA* nodes and total CPU seconds over Korf's 100 against the published averages."""
    fam = family("sliding")
    cat = catalogue()
    opts = {"pdb": pdb, **(opts or {})}
    load_pdb(4, 4, pdb, opts.get("dual", "off"), fill_of(opts))
    ok = True
    print(f"\n## Korf's 100: average IDA* nodes, options {opts}")
    nodes, cpu = 0, 0.0
    for i in range(1, 101):
        inst = cat[f"korf-{i:03d}"]()
        r = solve(fam, inst, "native:ida", "optimize", options=opts, isolate=False)
        ok &= r.status.value == "OPTIMAL" and r.objective == inst.optimal and r.checked == 1
        nodes += r.stats["nodes"]
        cpu += _cpu(r)
    pubs = []
    if opts.get("mirror", True) and pdb in FKH_AVERAGE:
        pubs.append(f"FKH 2004 {pdb} + mirror: {FKH_AVERAGE[pdb]:,d}")
    if pdb == "78" and opts.get("dual", "off") in DUAL_78:
        pubs.append(f"published 7-8 + mirror + dual {opts['dual']} (1000 random): {DUAL_78[opts['dual']]:,d}")
    print(f"{nodes / 100:,.0f} nodes per instance, {cpu:.1f} CPU s for all 100"
          + (f"; published {'; '.join(pubs)}" if pubs else ""), flush=True)
    return ok


def kf24_published() -> dict:
    """Per id: the published node counts of Korf & Felner's 50 (instance data)."""
    from puzzlesat.puzzles.sliding import korf_felner24
    return {r["id"]: r["published_nodes"] for r in korf_felner24()}


def bench_kf24(ids: list[int], processes: list[int], limit: float, opts: dict | None = None) -> bool:
    """Korf & Felner's 24-puzzles (6-6-6-6 + mirror and the options asked for): per instance moves,
    nodes, CPU seconds, and the published counts beside them."""
    fam = family("sliding")
    cat = catalogue()
    opts = dict(opts or {})
    pub = kf24_published()
    load_pdb(5, 5, opts.get("pdb", "6666"), opts.get("dual", "off"), fill_of(opts))
    print(f"\n## Korf & Felner's 24-puzzles, options {opts} (limit {limit:.0f} s each)")
    print(f"{'#':>3} {'opt':>4} {'h0':>4} {'procs':>5} {'status':<8} {'len':>4} {'nodes':>16} {'Mnodes/s':>9} "
          f"{'CPU s':>9} {'wall s':>8} {'KF 2002 nodes':>17} {'best published':>16}  source")
    ok = True
    for i in ids:
        inst = cat[f"kf24-{i:02d}"]()
        for p in processes:
            r = solve(fam, inst, "native:ida", "optimize", options={**opts, "processes": p},
                      time_limit=limit)
            bad = r.status.value == "OPTIMAL" and (r.objective != inst.optimal or r.checked != 1)
            ok &= not bad
            nodes = r.stats.get("nodes", 0)
            cpu = _cpu(r)
            pn = pub[i]
            print(f"{i:3d} {inst.optimal:4d} {r.stats.get('h0', '-')!s:>4} {p:5d} {r.status.value:<8} "
                  f"{r.objective!s:>4} {nodes:16,d} {nodes / max(r.seconds, 1e-9) / 1e6:9.2f} {cpu:9.1f} "
                  f"{r.seconds:8.1f} {pn['korf_felner_2002']:17,d} {pn['best']:16,d}  {pn['best_source']}"
                  + ("  MISMATCH" if bad else "")
                  + (f"  (lower bound {r.stats.get('lower_bound')})" if r.status.value == "UNKNOWN" else ""),
                  flush=True)
    return ok


def _projected_seconds(r, optimal: int) -> float | None:
    """CPU seconds an unfinished IDA* run would still need to finish the iteration at `optimal`,
    extrapolated from its completed iterations (nodes grow by the last ratio per bound step of 2;
    the last iteration is counted whole, though IDA* stops at its first solution)."""
    its = [x for x in r.stats.get("iterations", []) if x > 0]
    lb = r.stats.get("lower_bound")
    cpu = r.stats.get("cpu_seconds")
    if lb is None or not cpu or len(its) < 3:
        return None
    done = its[:-1]  # the last entry is the iteration the limit cut
    ratio = done[-1] / done[-2]
    nodes, cur = 0.0, float(done[-1])
    for _ in range(lb, optimal + 1, 2):
        cur *= ratio
        nodes += cur
    return max(nodes - its[-1], 0.0) / (r.stats.get("nodes", 0) / cpu)


def bench_kf24_screen(ids: list[int], screen: float, limit: float, factor: float, slack: float,
                      opts: dict | None = None) -> bool:
    """How many of Korf & Felner's 24-puzzles finish within `limit` CPU seconds (1 process), the
    instances taken in the order of Korf & Felner's published node counts (easiest first): every
    instance runs `screen` wall seconds; an unfinished one whose extrapolated CPU time is under
    `factor` times the limit runs again, with a wall limit of `slack` x `limit` (a shared machine
    gives the process less than a core); it counts as finished when it proves the optimum within
    `limit` seconds of CPU. Each row has the published counts beside ours."""
    fam = family("sliding")
    cat = catalogue()
    opts = {**(opts or {}), "processes": 1}
    pub = kf24_published()
    ids = sorted(ids, key=lambda i: pub[i]["korf_felner_2002"])
    load_pdb(5, 5, opts.get("pdb", "6666"), opts.get("dual", "off"), fill_of(opts))
    print(f"\n## Korf & Felner's 24-puzzles within {limit:.0f} CPU s, options {opts} (screen {screen:.0f} s, "
          f"then up to {slack * limit:.0f} s wall where the projection is under {factor:g} times the limit)")
    print(f"{'#':>3} {'opt':>4} {'h0':>4} {'status':<8} {'len':>4} {'bound':>5} {'nodes':>16} {'wall s':>8} "
          f"{'CPU s':>8} {'projected CPU s':>15} {'KF 2002 nodes':>17} {'best published':>16}  source")
    ok, solved = True, []
    for i in ids:
        inst = cat[f"kf24-{i:02d}"]()
        r = solve(fam, inst, "native:ida", "optimize", options=opts, time_limit=screen)
        proj = None
        if r.status.value == "UNKNOWN":
            proj = _projected_seconds(r, inst.optimal)
            if proj is not None and r.stats.get("cpu_seconds", 0) + proj < factor * limit:
                r = solve(fam, inst, "native:ida", "optimize", options=opts, time_limit=slack * limit)
                proj = None if r.status.value == "OPTIMAL" else _projected_seconds(r, inst.optimal)
        bad = r.status.value == "OPTIMAL" and (r.objective != inst.optimal or r.checked != 1)
        ok &= not bad
        cpu = r.stats.get("cpu_seconds", 0.0)
        if r.status.value == "OPTIMAL" and not bad and cpu <= limit:
            solved.append((i, cpu))
        bound = r.objective if r.status.value == "OPTIMAL" else r.stats.get("lower_bound", "-")
        pn = pub[i]
        print(f"{i:3d} {inst.optimal:4d} {r.stats.get('h0', '-')!s:>4} {r.status.value:<8} {r.objective!s:>4} "
              f"{bound!s:>5} {r.stats.get('nodes', 0):16,d} {r.seconds:8.1f} {cpu:8.1f} "
              f"{'' if proj is None else f'{proj:15,.0f}':>15} {pn['korf_felner_2002']:17,d} {pn['best']:16,d}  "
              f"{pn['best_source']}" + ("  MISMATCH" if bad else ""), flush=True)
    print(f"finished within {limit:.0f} CPU s: {len(solved)} of {len(ids)} "
          f"({', '.join(f'#{i} {s:.0f} s' for i, s in solved)})")
    return ok


def _load() -> str:
    """The machine's load averages (1, 5, 15 min) and core count, for the tables."""
    import os
    la = os.getloadavg()
    return f"load {la[0]:.1f}/{la[1]:.1f}/{la[2]:.1f} on {os.cpu_count()} cores"


def load_zpdb(name: str) -> None:
    """Build or read a zero-aware catalogue (before any timing) and print its databases."""
    from puzzlesat.native_search.sliding import zpdb as Z
    info: dict = {}
    t0 = time.perf_counter()
    Z.catalogue(name, info=info)
    built = [i for i in info.values() if i["source"] == "built"]
    print(f"zero-aware catalogue {name}: {len(info)} databases, "
          f"{sum(i['bytes'] for i in info.values()) / 1e6:.1f} MB memory-mapped, {time.perf_counter() - t0:.1f} s"
          + (f" ({len(built)} built, {sum(i['build_seconds'] for i in built):.0f} s)" if built else ""))


def bench_zpdb(ids: list[int], processes: list[int], limit: float, fsm: str, name: str = "zpdb-small") -> bool:
    """Korf & Felner's 24-puzzles on a zero-aware catalogue: per instance our expansions beside
    Clausecker & Reinefeld's published ones (same catalogue; fsm simple is their move pruning),
    nodes generated, CPU seconds of the search (every process) and expansions per CPU second."""
    fam = family("sliding")
    cat = catalogue()
    pub = kf24_published()
    load_zpdb(name)
    opts = {"pdb": name, "fsm": fsm}
    print(f"\n## Korf & Felner's 24-puzzles, options {opts} (limit {limit:.0f} s wall each; {_load()})")
    print(f"{'#':>3} {'opt':>4} {'h0':>4} {'procs':>5} {'status':<8} {'len':>4} {'expanded':>15} "
          f"{'C&R 2020 expanded':>17} {'ratio':>6} {'generated':>15} {'CPU s':>8} {'wall s':>8} "
          f"{'Mexp/CPU s':>10}  load")
    ok = True
    for i in ids:
        inst = cat[f"kf24-{i:02d}"]()
        for p in processes:
            r = solve(fam, inst, "native:ida", "optimize", options={**opts, "processes": p},
                      time_limit=limit)
            bad = r.status.value == "OPTIMAL" and (r.objective != inst.optimal or r.checked != 1)
            ok &= not bad
            st = r.stats
            exp, cpu = st.get("expanded", 0), st.get("search_cpu_seconds", 0.0)
            ref = pub[i]["cr2020_small_zpdb"]
            print(f"{i:3d} {inst.optimal:4d} {st.get('h0', '-')!s:>4} {p:5d} {r.status.value:<8} "
                  f"{r.objective!s:>4} {exp:15,d} {ref:17,d} {exp / ref:6.3f} {st.get('nodes', 0):15,d} "
                  f"{cpu:8.1f} {st.get('search_seconds', 0.0):8.1f} {exp / max(cpu, 1e-9) / 1e6:10.2f}  "
                  f"{_load()}" + ("  MISMATCH" if bad else "")
                  + (f"  (lower bound {st.get('lower_bound')})" if r.status.value == "UNKNOWN" else ""),
                  flush=True)
    return ok


def bench_zpdb_screen(ids: list[int], limit: float, fsm: str, work: str, rate: float,
                      factor: float, processes: int = 2, name: str = "zpdb-small") -> bool:
    """How many of Korf & Felner's 50 a zero-aware catalogue proves within `limit` seconds on
    `processes` cores, resumable: instances in the order of the published expansions; each runs
    to the end (no wall limit: a shared machine's wall clock says nothing) unless its projection
    (published expansions / `rate` expansions per CPU second, or our measured rate once known)
    is above `factor` times the CPU budget (limit x processes), then it is listed as projected,
    not run. Rows go to WORK/screen.jsonl as they finish; a rerun skips the ones there. An
    instance counts when its search CPU seconds (every process) fit the budget."""
    import json
    import os
    from pathlib import Path
    fam = family("sliding")
    cat = catalogue()
    pub = kf24_published()
    budget = limit * processes
    out = Path(work)
    out.mkdir(parents=True, exist_ok=True)
    rows = {}
    log = out / "screen.jsonl"
    if log.exists():
        for line in log.read_text().splitlines():
            if line.strip():
                d = json.loads(line)
                rows[d["id"]] = d
    ids = sorted(ids, key=lambda i: pub[i]["cr2020_small_zpdb"])
    load_zpdb(name)
    opts = {"pdb": name, "fsm": fsm, "processes": processes}
    ok = True
    for i in ids:
        if i in rows:
            continue
        measured = [d["expanded"] / d["cpu"] for d in rows.values() if d.get("status") == "OPTIMAL" and d["cpu"] > 30]
        r_exp = sorted(measured)[len(measured) // 2] if measured else rate
        ratio = [d["expanded"] / pub[d["id"]]["cr2020_small_zpdb"] for d in rows.values()
                 if d.get("status") == "OPTIMAL"]
        ratio_m = sorted(ratio)[len(ratio) // 2] if ratio else 1.0
        proj = pub[i]["cr2020_small_zpdb"] * ratio_m / r_exp
        inst = cat[f"kf24-{i:02d}"]()
        if proj > factor * budget:
            d = {"id": i, "status": "PROJECTED", "projected_cpu": round(proj), "opt": inst.optimal}
        else:
            la0 = os.getloadavg()
            r = solve(fam, inst, "native:ida", "optimize", options=opts, time_limit=0)
            bad = r.status.value == "OPTIMAL" and (r.objective != inst.optimal or r.checked != 1)
            ok &= not bad
            st = r.stats
            d = {"id": i, "status": r.status.value + (" MISMATCH" if bad else ""), "opt": inst.optimal,
                 "len": r.objective, "h0": st.get("h0"), "expanded": st.get("expanded", 0),
                 "generated": st.get("nodes", 0), "cpu": st.get("search_cpu_seconds", 0.0),
                 "wall": st.get("search_seconds", 0.0), "load_before": [round(x, 1) for x in la0],
                 "load_after": [round(x, 1) for x in os.getloadavg()],
                 "published": pub[i]["cr2020_small_zpdb"], "options": opts}
        rows[i] = d
        with log.open("a") as f:
            f.write(json.dumps(d) + "\n")
    print(f"\n## Korf & Felner's 50 on {name}, {processes} processes, options {opts}: within "
          f"{limit:.0f} s each = {budget:.0f} CPU s (work folder {out})")
    print(f"{'#':>3} {'opt':>4} {'status':<10} {'expanded':>15} {'C&R 2020':>15} {'ratio':>6} {'CPU s':>8} "
          f"{'wall s':>8} {'Mexp/CPU s':>10} {'fits':>4}  load before/after")
    fit = []
    for i in ids:
        d = rows[i]
        if d["status"] == "PROJECTED":
            print(f"{i:3d} {d['opt']:4d} {'projected':<10} {'':>15} {pub[i]['cr2020_small_zpdb']:15,d} {'':>6} "
                  f"{d['projected_cpu']:8,d} (projected CPU s)")
            continue
        good = d["status"] == "OPTIMAL" and d["cpu"] <= budget
        if good:
            fit.append(i)
        print(f"{i:3d} {d['opt']:4d} {d['status']:<10} {d['expanded']:15,d} {d['published']:15,d} "
              f"{d['expanded'] / d['published']:6.3f} {d['cpu']:8.1f} {d['wall']:8.1f} "
              f"{d['expanded'] / max(d['cpu'], 1e-9) / 1e6:10.2f} {'yes' if good else 'no':>4}  "
              f"{d['load_before']} / {d['load_after']}")
    print(f"proved within {budget:.0f} CPU s ({processes} x {limit:.0f} s): {len(fit)} of {len(ids)}")
    return ok


def _peer_blank_path(inst: Sliding, cells: list[int]) -> tuple[int, ...]:
    """Clausecker's solution (the cells the blank enters, blank-first frame as ours) as tiles moved."""
    board = list(inst.start)
    out = []
    for c in cells:
        z = board.index(0)
        out.append(board[c])
        board[z], board[c] = board[c], 0
    return tuple(out)


def _sub_catalogue(parts: list[int], work: str) -> tuple[str, str]:
    """A catalogue of some of zpdb-small's 14 partitions (`parts`: their places in
    Clausecker's small-t.cat, 0 = partition 0, 1 = its transposition, ...), for a side-by-side
    run on the databases the peer has: (our catalogue's name, registered for this process only,
    and the peer's .cat file written into `work`)."""
    from pathlib import Path
    from puzzlesat.native_search.sliding import zpdb as Z
    rows, cols, all_parts = Z.CATALOGUES["zpdb-small"]
    chosen = tuple(all_parts[i] for i in parts)
    name = "zpdb-small[" + ",".join(map(str, parts)) + "]"
    Z.CATALOGUES[name] = (rows, cols, chosen)
    out = Path(work)
    out.mkdir(parents=True, exist_ok=True)
    cat = out / ("small-t-" + "-".join(map(str, parts)) + ".cat")
    cat.write_text("".join(f"# small-t.cat partition {i}\n" + "".join("0," + ",".join(map(str, x)) + "\n"
                                                                    for x in all_parts[i]) + "\n"
                           for i in parts))
    return name, str(cat)


def _solve_zpdb(inst: Sliding, name: str, fsm: str, limit: float):
    """native:ida on the zero-aware catalogue `name` (a bench-only sub-catalogue runs through
    the search driver itself; its solution is replayed by the checker here): (status, length,
    stats, checked)."""
    from puzzlesat.families.sliding import ZPDB_CHOICES
    if name in ZPDB_CHOICES:
        r = solve(family("sliding"), inst, "native:ida", "optimize", options={"pdb": name, "fsm": fsm},
                  time_limit=limit)
        return r.status.value, r.objective, r.stats, r.checked == 1
    from puzzlesat.core.result import Context
    from puzzlesat.native_search.sliding import ida as I
    from puzzlesat.puzzles.sliding import check
    st, sols, stats, _ = I.deepen(inst, "auto", False, Context({}, time_limit=limit), pdb=name, fsm=fsm)
    length = check(inst, sols[0]) if sols else None
    return st.value, length, stats, bool(sols) and length == len(sols[0])


def bench_zpdb_peer(ids: list[int], peer: str, pdbdir: str, fsm: str, limit: float,
                    parts: list[int] | None = None, work: str = "zpdb-peer") -> bool:
    """Clausecker's C implementation (`cmd/pdbsearch` of github.com/clausecker/24puzzle, built by
    the user from its own Makefile; its zero-aware byte databases of catalogues/small-t.cat in
    `pdbdir`, generated by it on first use) and ours (zpdb-small, 1 process), one after the
    other per instance: expansions, CPU seconds of the search and expansions per CPU second.
    `parts` (places in small-t.cat) runs both on those partitions only (ours: a catalogue
    registered for this run; the peer's .cat written into `work`). The peer's counts and CPU
    seconds are its own (IDA_VERBOSE output: thread CPU time); its solution is replayed by our
    checker. Runs only on this machine; the peer never builds here."""
    import re
    import resource
    import subprocess
    from pathlib import Path
    from puzzlesat.puzzles.sliding import check
    cat = catalogue()
    pub = kf24_published()
    exe = Path(peer) / "cmd" / "pdbsearch"
    catfile = Path(peer) / "catalogues" / "small-t.cat"
    if not exe.exists() or not catfile.exists():
        print(f"\npeer not built: {exe} (build github.com/clausecker/24puzzle with its Makefile)")
        return True
    name = "zpdb-small"
    if parts:
        name, sub = _sub_catalogue(parts, work)
        catfile = Path(sub).resolve()
    load_zpdb(name)
    print(f"\n## Clausecker's C implementation ({exe}, {catfile.name}, byte zpdbs in {pdbdir}) and ours "
          f"({name}, 1 bit, fsm {fsm}), one after the other, 1 thread each")
    print(f"{'#':>3} {'opt':>4} {'who':<6} {'len':>4} {'expanded':>15} {'CPU s':>9} {'Mexp/CPU s':>10} "
          f"{'wall s':>8} {'maxRSS MB':>9}  load")
    ok = True
    for i in ids:
        inst = cat[f"kf24-{i:02d}"]()
        line = ",".join(map(str, inst.start)) + "\n"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            pr = subprocess.run([str(exe), "-d", pdbdir, str(catfile)], input=line, capture_output=True,
                                text=True, timeout=limit, cwd=peer)
            err, outp = pr.stderr, pr.stdout
        except subprocess.TimeoutExpired as e:
            err, outp = (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or ""), ""
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        m_exp = re.search(r"Expanded (\d+) nodes in total", err)
        m_cpu = re.search(r"Spent ([\d.]+) seconds in total", err)
        m_sol = re.search(r"Solution found: ([\d,]+)", outp)
        length = None
        if m_sol:
            cells = [int(x) for x in m_sol.group(1).split(",") if x]
            length = check(inst, _peer_blank_path(inst, cells))
        good = m_exp is not None and length == inst.optimal
        ok &= good or m_exp is None
        if m_exp:
            e_c, c_c = int(m_exp.group(1)), float(m_cpu.group(1)) if m_cpu else float("nan")
            print(f"{i:3d} {inst.optimal:4d} {'C':<6} {length!s:>4} {e_c:15,d} {c_c:9.1f} "
                  f"{e_c / c_c / 1e6:10.2f} {wall:8.1f} {after.ru_maxrss / 1024:9.0f}  {_load()}"
                  + ("" if good else "  MISMATCH"), flush=True)
        else:
            print(f"{i:3d} {inst.optimal:4d} {'C':<6} no answer within {limit:.0f} s "
                  f"({after.ru_utime - before.ru_utime:.0f} CPU s)", flush=True)
        status, obj, st, checked = _solve_zpdb(inst, name, fsm, limit)
        bad = status == "OPTIMAL" and (obj != inst.optimal or not checked)
        ok &= not bad
        e_o, c_o = st.get("expanded", 0), st.get("search_cpu_seconds", 0.0)
        print(f"{i:3d} {inst.optimal:4d} {'ours':<6} {obj!s:>4} {e_o:15,d} {c_o:9.1f} "
              f"{e_o / max(c_o, 1e-9) / 1e6:10.2f} {st.get('search_seconds', 0.0):8.1f} "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:9.0f}  {_load()}"
              + ("  MISMATCH" if bad else "") + ("" if status == "OPTIMAL" else f"  {status}"),
              flush=True)
        if not parts:
            print(f"{'':3} {'':4} {'pub':<6} {'':>4} {pub[i]['cr2020_small_zpdb']:15,d}  (Clausecker & Reinefeld 2020)")
    return ok


def bench_unsolved(ids: list[int], workers: int, limit: float, opts: dict | None = None) -> bool:
    """Clausecker's random 24-puzzles left unsolved (no optimum published): IDA* split into Dask
    jobs over a LocalCluster of `workers` workers for `limit` seconds; every completed iteration
    proves a lower bound (`lower_bound`: the bound of the iteration cut short)."""
    fam = family("sliding")
    cat = catalogue()
    opts = {**(opts or {}), "dask": "local", "processes": workers}
    print(f"\n## Clausecker's unsolved random 24-puzzles, options {opts}, limit {limit:.0f} s")
    ok = True
    for i in ids:
        inst = cat[f"c24u-{i:02d}"]()
        r = solve(fam, inst, "native:ida", "optimize", options=opts, time_limit=limit)
        bad = r.status.value == "OPTIMAL" and r.checked != 1
        ok &= not bad
        its = r.stats.get("iterations", [])
        print(f"c24u-{i:02d}: {r.status.value} {r.objective if r.objective is not None else ''} h0 "
              f"{r.stats.get('h0')} lower bound {r.stats.get('lower_bound', '-')}; nodes {r.stats.get('nodes', 0):,d} "
              f"in {len(its)} iterations {its}; split {r.stats.get('split')}; {r.seconds:.0f} s wall, "
              f"{_cpu(r):.0f} CPU s in the driver" + ("  MISMATCH" if bad else "") + f" ({r.reason})", flush=True)
    return ok


def bench_explore() -> bool:
    """Whole state spaces of 12-cell boards, each in its own process: seconds and peak memory."""
    import os
    import subprocess
    print("\n## explore: whole state spaces by BFS (own process each: wall time, peak RSS)")
    ok = True
    for rows, cols in ((6, 2), (4, 3), (2, 6), (3, 4)):
        code = (f"from puzzlesat.native_search.sliding.bfs import explore\n"
                f"e = explore({rows}, {cols})\n"
                f"print(e.positions, e.radius, len(e.farthest), round(e.seconds, 1))\n")
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        secs = time.perf_counter() - t0
        out = proc.stdout.read().split()
        proc.stdout.close()
        positions, radius, far, bfs_secs = int(out[0]), int(out[1]), int(out[2]), float(out[3])
        good = positions == 239_500_800
        ok &= good
        print(f"{rows}x{cols}: {positions:,d} positions, radius {radius}, {far} farthest; "
              f"BFS {bfs_secs:.1f} s, process {secs:.1f} s wall / {usage.ru_utime + usage.ru_stime:.1f} s CPU, "
              f"peak {usage.ru_maxrss / 1024:.0f} MiB"
              + ("" if good else "  MISMATCH (12!/2 = 239,500,800)"), flush=True)
    return ok


def bench_bfs() -> bool:
    from puzzlesat.native_search.sliding.bfs import explore
    print("\n## native BFS of the whole 8-puzzle state space (from the goal)")
    explore(2, 2)  # compile
    t0 = time.perf_counter()
    e = explore(3, 3)
    secs = time.perf_counter() - t0
    ok = (e.positions, e.radius, len(e.farthest)) == (181440, 31, 2)  # SPEC §3
    print(f"positions {e.positions}, radius {e.radius}, antipodes {len(e.farthest)}: "
          f"{[list(p) for p in e.farthest]} in {secs:.2f} s" + ("" if ok else "  MISMATCH with SPEC §3"))
    t0 = time.perf_counter()
    e = explore(2, 5)
    print(f"2x5: positions {e.positions}, radius {e.radius}, {len(e.farthest)} antipodes, "
          f"{time.perf_counter() - t0:.2f} s")
    return ok


def bench_models(limit: float) -> bool:
    fam = family("sliding")
    cat = catalogue()
    names = ["8-hardest", "8-hardest-2", "15-easy-20", "15-easy-26", "15-easy-30", "15-easy-36",
             "15-easy-40", "korf-055"]
    print(f"\n## models: time to prove the optimum (limit {limit:.0f} s each)")
    print(f"{'instance':<14} {'opt':>4} {'engine':<9} {'status':<8} {'len':>4} {'seconds':>8}  horizons (T, sat, s)")
    ok = True
    for nm in names:
        inst = cat[nm]()
        for eng in ("sat", "cpsat"):
            r = solve(fam, inst, eng, "optimize", time_limit=limit)
            bad = r.status.value == "OPTIMAL" and r.objective != inst.optimal
            ok &= not bad
            hz = " ".join(f"{t}{'+' if s else '-' if s is False else '?'}{sec:.1f}"
                          for t, s, sec in r.stats.get("horizons", []))
            print(f"{nm:<14} {inst.optimal:4d} {eng:<9} {r.status.value:<8} {r.objective!s:>4} "
                  f"{r.seconds:8.2f}  {hz}" + ("  MISMATCH" if bad else ""), flush=True)
    r = solve(fam, cat["8-hardest"](), "sat", "count", time_limit=limit)
    print(f"sat count 8-hardest: {r.status} {r.count} optimal plans in {r.seconds:.1f} s")
    return ok


def _peer_tiles(inst: Sliding, coords) -> tuple[int, ...]:
    """The peer's moves (cells of the tiles moved, as (row, col)) as our list of tiles moved."""
    board = list(inst.start)
    out = []
    for y, x in coords:
        c = int(y) * inst.cols + int(x)
        z = board.index(0)
        out.append(board[c])
        board[z], board[c] = board[c], 0
    return tuple(out)


def bench_peer(sample8: int) -> None:
    print("\n## peer: slidingpuzzle 0.1.5 (PyPI), default search() = A* with linear conflicts "
          "+ last-moves + corner-tiles")
    try:
        import numpy as np
        import slidingpuzzle as sp
    except ImportError:
        print("not installed (pip install --no-deps --target DIR slidingpuzzle; PYTHONPATH=DIR)")
        return
    from puzzlesat.native_search.sliding.bfs import RankSpace
    from puzzlesat.puzzles.sliding import check
    cat = catalogue()
    insts = [cat[nm]() for nm in ["8-hardest", "8-hardest-2", "15-easy-20", "15-easy-30", "15-easy-36",
                                  "15-easy-40"]]
    print(f"{'instance':<14} {'opt':>4} {'peer len':>8} {'optimal?':>8} {'seconds':>8}")
    for inst in insts:
        board = np.array(inst.start, dtype=int).reshape(inst.rows, inst.cols)
        t0 = time.perf_counter()
        res = sp.search(board)
        secs = time.perf_counter() - t0
        n = check(inst, _peer_tiles(inst, res.solution))  # the peer's answer replayed by our checker
        print(f"{inst.name:<14} {inst.optimal:4d} {n:8d} {'yes' if n == inst.optimal else 'NO':>8} {secs:8.2f}")
    if sample8:
        sp_ = RankSpace(3, 3)
        sp_.run(default_goal(3, 3))
        rng = random.Random(1)
        worse = total = 0
        t0 = time.perf_counter()
        for d in range(20, 32):
            layer = sp_.layer(d)
            for p in rng.sample(layer, min(sample8, len(layer))):
                inst = Sliding("s", 3, 3, p, default_goal(3, 3))
                res = sp.search(np.array(p).reshape(3, 3))
                total += 1
                worse += check(inst, _peer_tiles(inst, res.solution)) != d
        print(f"8-puzzle sample: {total} positions of 20-31 moves, {worse} answered non-optimally "
              f"({time.perf_counter() - t0:.1f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--korf", default="all", help="all, N (first N), a-b, or i,j,k")
    ap.add_argument("--pdb", default="663", help="4x4 partition(s): 663, 555, 78, none, or joined by '+'")
    ap.add_argument("--only", choices=["kf24", "kf24-screen", "korf-avg", "explore", "unsolved24", "zpdb",
                                       "zpdb-screen", "zpdb-peer"], default=None, help="run only this part")
    ap.add_argument("--fsm", default="simple", help="zpdb, zpdb-screen, zpdb-peer: native:ida's fsm option")
    ap.add_argument("--catalogue", default="zpdb-small",
                    help="zpdb, zpdb-screen: the zero-aware catalogue (native:ida's pdb option)")
    ap.add_argument("--peer24", default="", help="zpdb-peer: the folder of Clausecker's 24puzzle, built")
    ap.add_argument("--peer24-pdb", default="", help="zpdb-peer: the peer's database folder (its -d)")
    ap.add_argument("--zpdb-parts", default="", help="zpdb-peer: only these partitions of small-t.cat "
                    "(0 = partition 0, 1 = its transposition, ...; e.g. 0,1), for a peer with only "
                    "their databases")
    ap.add_argument("--work", default="zpdb-screen", help="zpdb-screen: folder of the resumable results")
    ap.add_argument("--rate", type=float, default=2e6,
                    help="zpdb-screen: expansions per CPU second assumed until some are measured")
    ap.add_argument("--kf24", default="25,40", help="Korf & Felner 24-puzzle ids: all, N (the first N), "
                    "a-b or i,j,k (one id: 'i,')")
    ap.add_argument("--processes", default="1,2", help="process counts for the 24-puzzles")
    ap.add_argument("--kf24-limit", type=float, default=600.0, help="seconds per 24-puzzle run")
    ap.add_argument("--screen", type=float, default=60.0, help="kf24-screen: seconds of the first pass")
    ap.add_argument("--slack", type=float, default=2.5,
                    help="kf24-screen: wall limit of a rerun, in limits (CPU time decides)")
    ap.add_argument("--rerun-factor", type=float, default=3.0,
                    help="kf24-screen: rerun with the full limit when projected under this many limits")
    ap.add_argument("--dual", default="off", choices=["off", "lookup", "search"],
                    help="native:ida's dual option (korf, korf-avg, kf24, kf24-screen)")
    ap.add_argument("--dual-fill", action="store_true", help="native:ida's dual_fill option")
    ap.add_argument("--dual-fill-max", type=int, default=0, help="native:ida's dual_fill_max option")
    ap.add_argument("--no-mirror", action="store_true", help="native:ida's mirror=false")
    ap.add_argument("--order", default="board", choices=["board", "manhattan"], help="native:ida's order option")
    ap.add_argument("--pdb24", default="6666", help="kf24, unsolved24: the 5x5 partition(s)")
    ap.add_argument("--c24u", default="1,", help="unsolved24: ids of Clausecker's unsolved 24-puzzles (1-14)")
    ap.add_argument("--workers", type=int, default=2, help="unsolved24: Dask workers (LocalCluster)")
    ap.add_argument("--model-limit", type=float, default=120.0)
    ap.add_argument("--skip-models", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--skip-korf", action="store_true")
    ap.add_argument("--peer-sample", type=int, default=2, help="8-puzzle positions per distance 20-31")
    a = ap.parse_args()
    if a.only == "kf24":
        ids = list(range(1, 51)) if a.kf24 == "all" else korf_ids(a.kf24)
        return 0 if bench_kf24(ids, [int(x) for x in a.processes.split(",")], a.kf24_limit,
                               {**engine_options(a), "pdb": a.pdb24}) else 1
    if a.only == "kf24-screen":
        ids = list(range(1, 51)) if a.kf24 == "all" else korf_ids(a.kf24)
        return 0 if bench_kf24_screen(ids, a.screen, a.kf24_limit, a.rerun_factor, a.slack,
                                      {**engine_options(a), "pdb": a.pdb24}) else 1
    if a.only == "zpdb":
        ids = list(range(1, 51)) if a.kf24 == "all" else korf_ids(a.kf24)
        return 0 if bench_zpdb(ids, [int(x) for x in a.processes.split(",")], a.kf24_limit, a.fsm,
                               a.catalogue) else 1
    if a.only == "zpdb-screen":
        ids = list(range(1, 51)) if a.kf24 == "all" else korf_ids(a.kf24)
        return 0 if bench_zpdb_screen(ids, a.kf24_limit, a.fsm, a.work, a.rate, a.rerun_factor,
                                      int(a.processes.split(",")[-1]), a.catalogue) else 1
    if a.only == "zpdb-peer":
        ids = list(range(1, 51)) if a.kf24 == "all" else korf_ids(a.kf24)
        parts = [int(x) for x in a.zpdb_parts.split(",")] if a.zpdb_parts else None
        return 0 if bench_zpdb_peer(ids, a.peer24, a.peer24_pdb, a.fsm, a.kf24_limit, parts,
                                    a.work) else 1
    if a.only == "unsolved24":
        return 0 if bench_unsolved(korf_ids(a.c24u), a.workers, a.kf24_limit,
                                   {**engine_options(a), "pdb": a.pdb24}) else 1
    if a.only == "korf-avg":
        return 0 if bench_korf_average(a.pdb, engine_options(a)) else 1
    if a.only == "explore":
        return 0 if bench_explore() else 1
    ok = True
    ok &= bench_bfs()
    if not a.skip_korf:
        ok &= bench_korf(korf_ids(a.korf), a.pdb, engine_options(a))
    if not a.skip_models:
        ok &= bench_models(a.model_limit)
    if not a.skip_peer:
        bench_peer(a.peer_sample)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
