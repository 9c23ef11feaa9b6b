"""`puzzlesat peg problems`: every single-vacancy problem of a board (native searches);
`puzzlesat peg cubes`: a model's decision "moves <= K" by cube-and-conquer;
`puzzlesat peg games`: every winning jump sequence counted (native dynamic programme)."""
from __future__ import annotations

import json
import time
from dataclasses import replace

import click

from ..core.files import writable
from ..core.result import Certificate, InputError, Status
from .campaign import dask_options
from .options import Seconds, WorkFolder


RECHECK_HELP = ("with --work-dir: take nothing an earlier run recorded there on trust (its seals "
                "ignored): recorded answers are searched again, layers built again")


def _recheck(recheck: bool, work_dir) -> None:
    """--recheck: no seal is taken on trust in this process or the ones it starts. With a work
    folder, the seal key is checked first (a key others may read is refused before anything is
    planned or written)."""
    from ..core import seal
    if recheck:
        if work_dir is None:
            raise InputError("--recheck checks again what a --work-dir holds: give --work-dir")
        seal.recheck_all()
    if work_dir is not None:
        seal.key()


def _holes(b, given: tuple[str, ...], keywords: tuple[str, ...]):
    """A --vacate/--finish value: a keyword alone, or hole ids/labels (comma or space separated)."""
    from ..puzzles.peg import parse_hole
    words = [w for g in given for w in g.replace(",", " ").split()]
    if not words:
        return keywords[0]
    if len(words) == 1 and words[0].lower() in keywords:
        return words[0].lower()
    bad = [w for w in words if w.lower() in keywords]
    if bad:
        raise InputError(f"'{bad[0]}' cannot be mixed with hole names")
    return [parse_hole(b, w) for w in words]


@click.command("problems")
@click.argument("board_name", metavar="BOARD")
@click.option("--vacate", multiple=True, metavar="all|HOLE...",
              help="the start's empty hole: all (default) or hole ids/names, e.g. --vacate c1,d4")
@click.option("--finish", multiple=True, metavar="all|same|HOLE...",
              help="the survivor's hole: all (default), same (= the vacated hole) or hole ids/names")
@click.option("--time-limit", type=Seconds(), default=None,
              help="seconds per problem (method table: times the problems searched, for all "
                   "together; default, 0 or none: no limit); a problem cut short is UNKNOWN with "
                   "its proved bounds")
@click.option("--method", type=click.Choice(["table", "bfs"]), default=None,
              help="table (default): all problems together, shared layers met in the middle; bfs: "
                   "native:bfs per problem (the method of --store)")
@click.option("--stream", type=click.IntRange(min=0), default=1, show_default=True,
              help="table: forward moves generated (not stored) past the stored layers")
@click.option("--backward-depth", type=click.IntRange(min=0), default=None,
              help="table: store the backward layers to this depth (default: by --max-backward)")
@click.option("--max-forward", type=click.IntRange(min=1), default=None,
              help="table: positions a forward layer may have (default 60,000,000)")
@click.option("--max-backward", type=click.IntRange(min=1), default=None,
              help="table: positions a backward layer may have (default 30,000,000)")
@click.option("--beam", "beam_width", type=click.IntRange(min=0), default=200_000, show_default=True,
              help="table: beam width past the stored layers for problems they leave open (a "
                   "solution with the proved lower bound settles one; else it is an upper bound); "
                   "0 = none")
@click.option("--forward-depth", type=click.IntRange(min=0), default=None,
              help="table/--least: store the forward layers to this depth (default: by --max-forward)")
@click.option("--least", is_flag=True,
              help="only the least minimum over all problems (OEIS A127500 on triangles): one search "
                   "between the set of all single-vacancy starts and the set of all single pegs")
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="run each problem as a campaign job (native:bfs, hard limits) stored in this "
                   "SQLite file; a second run runs only the problems not stored yet")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="with --store: problems at once; with --least (pruned): chunk jobs of each "
                   "layer expansion at once (default: the CPU cores; dask: workers)")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="with --store or --least: where the jobs run")
@dask_options
@click.option("--memory-limit-mb", type=click.IntRange(min=64), default=8192, show_default=True,
              help="with --store: memory limit of each job process")
@click.option("--prune/--no-prune", default=None,
              help="--least and --method bfs: searches bounded by K moves, keeping a position only "
                   "if its depth plus its Merson-region move bound is at most K, K ascending until "
                   "the layers meet (default for --least unless --forward-depth is given; "
                   "--backward-depth then caps the backward side)")
@click.option("--max-moves", type=click.IntRange(min=1), default=None,
              help="with --prune: only K = this (no meeting proves a lower bound of K + 1)")
@click.option("--work-dir", type=WorkFolder(), default=None,
              help="--least and --method bfs: keep every finished layer in this folder; a run "
                   "with the same folder resumes from the last complete layer (--method bfs: and "
                   "reads back each problem settled before, its solution replayed by the checker)")
@click.option("--layer-memory-mb", type=click.IntRange(min=0), default=None,
              help="--least and --method bfs: memory for layers (default: 75%% of the memory "
                   "available); layers past it are built and kept on disk")
@click.option("--disk-limit-mb", type=click.IntRange(min=0), default=None,
              help="--least and --method bfs: disk the layers may use; past it a problem is "
                   "UNKNOWN with the bound its complete layers prove")
@click.option("--estimate", is_flag=True,
              help="--least --max-moves K: build the first layers (kept in --work-dir) and "
                   "project the rest: positions, disk and CPU time, and whether it fits; exit "
                   "status 1 when it does not (a --least run refuses such a K unless --force)")
@click.option("--force", is_flag=True,
              help="--least: search even when the estimate says the layers do not fit on disk")
@click.option("--keep-free-mb", type=click.IntRange(min=0), default=1024, show_default=True,
              help="--least: disk space (MiB) the estimate leaves free for everyone else")
@click.option("--upper-bound", is_flag=True,
              help="short solutions, not proofs: beams by moves with exact end games, window "
                   "searches and seeded model decisions over every problem (boards of up to 128 "
                   "holes), as a campaign kept in --work-dir; prints the best per problem and the "
                   "least; --time-limit is for the whole run")
@click.option("--width", "widths", default=None, metavar="W[,W...]",
              help="--upper-bound: beam widths, in order (default 10000,100000)")
@click.option("--weights", "weight_sets", default=None, metavar="pPiIrRmM[,...]",
              help="--upper-bound: beam scores, e.g. p8i16r8m16 = 8 x pegs + 16 x isolated pegs + "
                   "8 x pegs on the rim + 16 x full Merson regions (default: three measured sets)")
@click.option("--phases", default="beam,windows,model", show_default=True,
              metavar="beam,windows,model|none",
              help="--upper-bound: the tasks to run (none: print the work folder's records)")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="--upper-bound: also write the records to this file (one problem a line; "
                   "`puzzlesat peg records FILE` replays it)")
@click.option("--model", "model_backend", type=click.Choice(["cpsat", "sat"]), default="cpsat",
              show_default=True, help="--upper-bound: the backend of the seeded decisions "
              "(cpsat:ordered hints, sat:ordered phases)")
@click.option("--recheck", is_flag=True, help=RECHECK_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def problems(board_name: str, vacate, finish, time_limit, method, stream, backward_depth,
             max_forward, max_backward, beam_width, forward_depth, least, store_path, jobs,
             executor, scheduler, tls_ca_file, tls_cert, tls_key, insecure, memory_limit_mb,
             prune, max_moves, work_dir, layer_memory_mb, disk_limit_mb, estimate, force,
             keep_free_mb, upper_bound, widths, weight_sets, phases, save_path, model_backend,
             recheck, as_json) -> None:
    """Every single-vacancy -> single-survivor problem of BOARD, one per symmetry orbit: impossible
    by position class at once, else the minimum moves by a native search (shared bidirectional
    layers), with one optimal jump sequence that the checker replayed; a problem the search cannot
    settle within its limits shows its proved bounds (>=L, or L..U with a checked solution of U
    moves). Example: puzzlesat peg problems triangle6

    BOARD is a board name (english33, french37, diamond41, triangle4 ... triangle10, triangle(n),
    hoppers, triangle15, triangle21). Holes are ids, or on square grids names like d4 (column a..,
    row 1.. from the top left)."""
    from ..compare.peg.problems import problems as solve_all
    from ..native_search.peg.problems import minimum, minimum_proved
    from ..puzzles.peg import board, hole_label
    b = board(board_name)
    _recheck(recheck, work_dir)
    if upper_bound:
        if least or store_path is not None or method is not None:
            raise InputError("--upper-bound is its own search: it cannot be combined with --least, "
                             "--store or --method")
        _upper(b, vacate, finish, work_dir, time_limit, widths, weight_sets, phases, model_backend,
               as_json, save_path)
        return
    if widths is not None or weight_sets is not None:
        raise InputError("--width and --weights go with --upper-bound")
    if estimate:
        if not least or max_moves is None:
            raise InputError("--estimate goes with --least --max-moves K")
        _estimate(b, max_moves, backward_depth, work_dir, layer_memory_mb, disk_limit_mb,
                  keep_free_mb, as_json)
        return
    from ..core.limits import PEG_BITBOARD_HOLES
    if b.n > PEG_BITBOARD_HOLES:
        raise InputError(f"board {b.name} has {b.n} holes: the layer searches hold a position in "
                         f"one 64-bit word (at most {PEG_BITBOARD_HOLES} holes); --upper-bound "
                         "searches boards of up to 128")
    if store_path is not None and (least or method == "table"):
        raise InputError("--store runs each problem as its own campaign job (method bfs); it "
                         "cannot be combined with " + ("--least" if least else "--method table"))
    if store_path is None and not least and (jobs is not None or scheduler is not None
                                             or executor != "local"):
        raise InputError("--jobs, --executor and --scheduler need --store or --least")
    method = method or ("bfs" if store_path is not None else "table")
    layer_opts = {"memory": None if layer_memory_mb is None else layer_memory_mb * 2**20,
                  "work_dir": work_dir,
                  "disk_limit": None if disk_limit_mb is None else disk_limit_mb * 2**20}
    if least:
        if prune is None:
            prune = forward_depth is None
        if prune and forward_depth is not None:
            raise InputError("--prune chooses its own forward depth (K less the backward depth): "
                             "drop --forward-depth (or use --no-prune)")
        if not prune and (max_moves is not None or any(v is not None for v in layer_opts.values())):
            raise InputError("--max-moves, --work-dir, --layer-memory-mb and --disk-limit-mb "
                             "need --prune with --least")
        pool = None
        if jobs is not None or scheduler is not None or executor != "local":
            if not prune:
                raise InputError("--jobs, --executor and --scheduler with --least need --prune")
            from ..compare.peg.layers import pool_for
            from ..core.procs import default_workers
            from .campaign import tls_files
            pool = pool_for(executor, jobs or default_workers(), scheduler,
                            tls_files(tls_ca_file, tls_cert, tls_key), insecure)
        from ..native_search.peg.estimate import WontFit
        try:
            _least(b, forward_depth, backward_depth, stream, beam_width, max_forward, max_backward,
                   as_json, prune, max_moves, layer_opts, time_limit,
                   None if pool is None else pool.expand, fit_check=not force,
                   keep_free=keep_free_mb * 2**20)
        except WontFit as e:
            for line in e.estimate.lines():
                click.echo(line, err=True)
            click.echo(f"refused: the layers of K = {e.estimate.K} do not fit (figures above); "
                       "--force searches anyway (it stops with the proved bound when the disk "
                       "runs out)", err=True)
            raise SystemExit(1) from None
        finally:
            if pool is not None:
                pool.executor.close()
        return
    if method == "table" and (prune or max_moves is not None
                              or any(v is not None for v in layer_opts.values())):
        raise InputError("--prune, --max-moves, --work-dir, --layer-memory-mb and "
                         "--disk-limit-mb go with --least or --method bfs")
    vs = _holes(b, vacate, ("all",))
    fs = _holes(b, finish, ("all", "same"))
    rows = []
    t0 = time.perf_counter()
    if store_path is not None:   # a store that is not this board's, or cannot be: before any output
        from ..compare.campaign.store import Store
        from ..compare.peg.problems import campaign_name
        Store.check(store_path, campaign_name(b))
    if not as_json:
        click.echo(f"{b.name}: {b.n} holes, {len(b.symmetries)} symmetries; one problem per orbit")
        click.echo(f"{'vacate':>6} {'finish':>6} {'moves':>10}  {'proof':<15} {'orbit':>5} {'seconds':>8}")
    opts = {} if method == "bfs" else {"stream": stream, "backward_depth": backward_depth,
                                       "forward_depth": forward_depth, "beam_width": beam_width}
    if method == "bfs":  # native:bfs options for every problem
        engine_opts = {"prune": "merson" if prune else "none", "max_moves": max_moves or 0,
                       "memory_mb": layer_memory_mb or 0, "work_dir": work_dir or "",
                       "disk_limit_mb": disk_limit_mb or 0}
        opts = {"options": {k: v for k, v in engine_opts.items() if v not in (0, "", "none")}}
    if method == "table":
        opts.update({k: v for k, v in (("max_forward", max_forward), ("max_backward", max_backward))
                     if v is not None})
    def say(line: str) -> None:  # progress of the shared layers, on stderr (also with --json)
        if not line.startswith("  "):
            click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {line}", err=True)

    if store_path is not None:
        from .campaign import _executor, tls_files
        from ..compare.peg.problems import run_problems
        from ..core.procs import default_workers
        from ..native_search.peg.problems import orbit_pairs
        ex = _executor(executor, jobs or default_workers(), scheduler,
                       tls_files(tls_ca_file, tls_cert, tls_key), insecure)
        try:
            gen = list(run_problems(b, orbit_pairs(b, vs, fs), store_path, ex, time_limit,
                                    memory_limit_mb, progress=say))
        finally:
            ex.close()
    else:
        gen = solve_all(b, vs, fs, time_limit, method=method, progress=say, **opts)
    for r in gen:
        rows.append(r)
        if not as_json:
            moves = r.moves_text()
            verified_in, at = r.provenance()
            earlier = f"  [sealed record of an earlier run, {at}]" if verified_in != "this run" else ""
            click.echo(f"{hole_label(b, r.vacate):>6} {hole_label(b, r.finish):>6} {moves:>10}  "
                       f"{r.proof:<15} {r.orbit_size:>5} {r.seconds:8.2f}{earlier}")
    m = minimum(rows)
    proved = minimum_proved(rows)
    unsettled = [r for r in rows if r.status not in (Status.OPTIMAL, Status.INFEASIBLE)]
    if as_json:
        click.echo(json.dumps({"board": b.name, "problems": [r.json(b) for r in rows], "minimum": m,
                               "minimum_proved": proved, "complete": not unsettled,
                               "method": method, "seconds": round(time.perf_counter() - t0, 3)}))
        return
    solvable = [r for r in rows if r.min_moves is not None]
    earlier = [r.provenance()[1] or "unknown date" for r in rows if r.provenance()[0] != "this run"]
    if earlier:
        click.echo(f"{len(earlier)} answers are sealed records of earlier runs ({min(earlier)}"
                   + ("" if min(earlier) == max(earlier) else f" to {max(earlier)}")
                   + "): their solutions replayed now, their minimum proved by that run; "
                   "--recheck searches them again")
    click.echo(f"{len(rows)} problems: {len(solvable)} solved, "
               f"{sum(r.status is Status.INFEASIBLE for r in rows)} impossible"
               + (f", {len(unsettled)} not settled (bounds shown)" if unsettled else ""))
    if m is None:
        best_ub = min((r.upper for r in unsettled if r.upper is not None), default=None)
        click.echo("minimum: " + ("none solvable" if not unsettled else "not settled"
                                  + (f" (a solution of {best_ub} moves exists)" if best_ub else ""))
                   + f"  ({time.perf_counter() - t0:.1f} s)")
    else:
        click.echo(f"minimum: {m}" + ("" if proved else " (not proved: an unsettled problem may "
                                                         "need fewer moves)")
                   + f"  ({time.perf_counter() - t0:.1f} s)")
    best = next((r for r in rows if r.min_moves == m and m is not None), None)
    if best is not None:
        click.echo(f"one optimal sequence ({hole_label(b, best.vacate)} -> {hole_label(b, best.finish)}): "
                   + " ".join(f"{a}-{c}" for a, _, c in best.solution))


def _csv_ints(text: str | None, what: str) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        out = tuple(int(x) for x in text.replace(",", " ").split())
    except ValueError:
        raise InputError(f"{what} {text!r}: expected whole numbers, e.g. 10000,100000") from None
    if not out or min(out) < 1:
        raise InputError(f"{what} {text!r}: expected positive whole numbers")
    return out


def _upper(b, vacate, finish, work_dir, time_limit, widths, weight_sets, phases, model_backend,
           as_json, save_path=None) -> None:
    """`peg problems --upper-bound`: the campaign of compare/peg/upper.py, then its table."""
    from ..compare.peg.upper import Plan, run, write_records
    from ..native_search.peg.wide import Weights
    from ..puzzles.peg import hole_label
    plan = Plan()
    ws = _csv_ints(widths, "--width")
    if ws is not None:
        plan = replace(plan, widths=ws)
    if weight_sets is not None:
        names = tuple(w for w in weight_sets.replace(",", " ").split())
        try:
            [Weights.parse(w) for w in names]
        except ValueError as e:
            raise InputError(str(e)) from None
        plan = replace(plan, weights=names)
    plan = replace(plan, model=model_backend)
    chosen = tuple(p for p in phases.replace(",", " ").split())
    bad = [p for p in chosen if p not in ("beam", "windows", "model", "none")]
    if bad or not chosen:
        raise InputError(f"--phases {phases!r}: expected beam, windows, model (comma separated) or none")
    if save_path is not None:
        writable(save_path, "record file")   # a missing folder fails now, not after the campaign
    t0 = time.perf_counter()

    def say(line: str) -> None:
        click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {line}", err=True)
    camp = run(b, plan, _holes(b, vacate, ("all",)), _holes(b, finish, ("all", "same")), work_dir,
               time_limit, tuple(p for p in chosen if p != "none"), say)
    rec = camp.records_json()
    if save_path is not None:
        write_records(save_path, rec)
    if as_json:
        click.echo(json.dumps(rec))
        return
    click.echo(f"{b.name}: {b.n} holes; {len(camp.orbit)} problems the position classes allow (one "
               f"per orbit); upper bounds: solutions found and replayed by the checker, not proofs")
    click.echo(f"{'vacate':>6} {'finish':>6} {'moves':>5} {'orbit':>5}  found")
    for p in rec["problems"]:
        click.echo(f"{p['vacate_label']:>6} {p['finish_label']:>6} {p['moves']:>5} "
                   f"{p['orbit_size']:>5}  {p['found']}")
    missing = len(camp.orbit) - len(rec["problems"])
    click.echo(f"{len(rec['problems'])} problems with a solution" +
               (f", {missing} without one yet" if missing else "") +
               f"  ({time.perf_counter() - t0:.1f} s)")
    if rec["least"] is not None:
        best = camp.best[tuple(rec["least"]["pair"])]
        click.echo(f"least: {best.moves} moves ({hole_label(b, best.pair[0])} -> "
                   f"{hole_label(b, best.pair[1])}), an upper bound for the least minimum: "
                   + " ".join(f"{a}-{c}" for a, _, c in best.solution))


def _estimate(b, k, backward_depth, work_dir, layer_memory_mb, disk_limit_mb, keep_free_mb,
              as_json) -> None:
    """`peg problems --least --max-moves K --estimate`: native_search/peg/estimate.py."""
    from ..native_search.peg.estimate import estimate_least
    t0 = time.perf_counter()
    e = estimate_least(b, k, backward_depth, work_dir,
                       None if layer_memory_mb is None else layer_memory_mb * 2**20,
                       None if disk_limit_mb is None else disk_limit_mb * 2**20,
                       keep_free_mb * 2**20,
                       progress=lambda s: click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {s}",
                                                     err=True))
    if as_json:
        click.echo(json.dumps(e.json()))
    else:
        for line in e.lines():
            click.echo(line)
    if not e.fits:
        raise SystemExit(1)


def _least(b, forward_depth, backward_depth, stream, beam_width, max_forward, max_backward,
           as_json, prune=False, max_moves=None, layer_opts=None, time_limit=None,
           expander=None, fit_check=True, keep_free=None) -> None:
    """`peg problems --least`: the least minimum over all problems, proved or bounded, with one
    solution the checker replayed."""
    from ..native_search.peg.problems import problem_instance
    from ..native_search.peg.table import MAX_BACKWARD, MAX_FORWARD, least_by_bound, least_over_all
    from ..puzzles.peg import check, hole_label
    t0 = time.perf_counter()

    def say(s: str) -> None:
        click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {s}", err=True)
    if prune:  # progress on stderr also with --json: these runs are long
        r = least_by_bound(b, max_moves=max_moves, beam_width=beam_width, progress=say,
                           time_limit=time_limit, expander=expander, fit_check=fit_check,
                           keep_free=keep_free,
                           backward_depth=backward_depth, **(layer_opts or {}))
    else:
        r = least_over_all(b, forward_depth, backward_depth, stream, beam_width,
                           max_forward=max_forward or MAX_FORWARD,
                           max_backward=max_backward or MAX_BACKWARD,
                           progress=None if as_json else say)
    if r.solution is not None:
        got = check(problem_instance(b, *r.pair), r.solution)
        if got != (r.moves if r.moves is not None else got):
            raise click.ClickException(f"the solution has {got} moves, not {r.moves}")
        upper = got
    else:
        upper = None
    if as_json:
        click.echo(json.dumps({"board": b.name, "minimum": r.moves, "lower_bound": r.lower,
                               "upper_bound": upper, "pair": list(r.pair) if r.pair else None,
                               "solution": [list(j) for j in r.solution] if r.solution else None,
                               "layers_forward": r.layers_forward,
                               "layers_backward": r.layers_backward, "stats": r.stats,
                               "seconds": round(time.perf_counter() - t0, 3)}))
        return
    what = (f"{r.moves} (proved)" if r.moves is not None else
            f"not settled: at least {r.lower}" + (f", at most {upper}" if upper else ""))
    click.echo(f"{b.name}: least minimum over all single-vacancy problems: {what}"
               f"  ({time.perf_counter() - t0:.1f} s)")
    if r.solution is not None:
        click.echo(f"one solution ({hole_label(b, r.pair[0])} -> {hole_label(b, r.pair[1])}, "
                   f"{upper} moves): " + " ".join(f"{a}-{c}" for a, _, c in r.solution))


@click.command("cubes")
@click.argument("instance", metavar="INSTANCE")
@click.option("--bound", "-k", type=click.IntRange(min=0), required=True,
              help="decide 'moves <= K' (with --count: count the solutions with at most K moves)")
@click.option("--depth", "-d", type=click.IntRange(min=0), default=4, show_default=True,
              help="jumps fixed by each cube (the first DEPTH jumps)")
@click.option("--engine", "-e", "config", default="sat:ordered[families=best]", show_default=True,
              help="the SAT formulation and its options (up to symmetry: sat:ordered only); the "
                   "default takes one Merson family: on the English game's cubes CaDiCaL refutes "
                   "them ~5x sooner than with all 79 (docs/peg.md)")
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="cubes up to the symmetries that keep the start and the finish (the CNF "
                   "forbids the other prefixes; a count weights each cube by its orbit)")
@click.option("--certify", is_flag=True,
              help="every refutation (each cube and the cover) with a proof that puzzlesat's "
                   "checker verifies; INFEASIBLE only when all are VERIFIED")
@click.option("--solver", default=None,
              help="SAT solver of every job (default: the engine's; --certify: a proof-logging "
                   "one, e.g. cadical195, glucose4, lingeling, cpsat, ext:cadical)")
@click.option("--search", type=click.Choice(["auto", "fixed"]), default="auto", show_default=True,
              help="with --solver cpsat: fixed = CP-SAT branches on the jumps in time order, "
                   "true first (measured on English cubes: 4x sooner than CaDiCaL)")
@click.option("--count", is_flag=True, help="count the solutions instead of deciding")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="jobs at once (default: the CPU cores; dask: workers)")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="where the jobs run")
@dask_options
@click.option("--work-dir", type=WorkFolder(), default=None,
              help="keep the plan, the base CNF and every job's result here; a run with the same "
                   "folder runs only the jobs without a result (default: a temporary folder)")
@click.option("--keep-proofs", is_flag=True,
              help="with --certify and --work-dir: keep each job's CNF and proof (else removed "
                   "once checked; their SHA-256 stay in the results)")
@click.option("--time-limit", type=Seconds(), default=None,
              help="seconds for the whole run (default, 0 or none: no limit); past it the answer "
                   "is UNKNOWN with the cubes done (a work folder resumes)")
@click.option("--split-after", type=click.FloatRange(min=0, min_open=True), default=None,
              help="a cube not answered within this many CPU seconds (of its processes) is "
                   "stopped and split into one cube per legal next jump (recursively; with a "
                   "cover job per split)")
@click.option("--split-depth", type=click.IntRange(min=1), default=None,
              help="split every cube without a result that fixes fewer jumps than this before "
                   "solving it (one cube per legal next jump, with a cover job per split)")
@click.option("--switch", is_flag=True,
              help="with --work-dir: go on with a plan whose jobs ran with another --solver, "
                   "--search or --split-after, these for the jobs without a result (each result "
                   "records its own; the decision, the cubes and the base CNF stay)")
@click.option("--recheck", is_flag=True,
              help="with --work-dir: take no earlier run's sealed result on trust: kept proofs "
                   "are verified again by the checker, every other refutation or count is solved "
                   "again (solutions are always replayed)")
@click.option("--status", "status", is_flag=True,
              help="with --work-dir: where its run stands (jobs done, split and still to run, CPU "
                   "so far), from the plan and the sealed records; runs no job and writes nothing, "
                   "so it can be asked while the run goes on (the same command, plus --status). "
                   "Exit status 0")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def cubes(instance, bound, depth, config, symmetry, certify, solver, search, count, jobs, executor,
          scheduler, tls_ca_file, tls_cert, tls_key, insecure, work_dir, keep_proofs, time_limit,
          split_after, split_depth, switch, recheck, status, as_json) -> None:
    """Cube-and-conquer: decide "moves <= K" on a peg INSTANCE by splitting it into cubes (the
    first DEPTH jumps fixed, up to symmetry), each a SAT job; with --certify every refutation is
    proved and checked, so INFEASIBLE is certified. Exit status 0 for an answer (FEASIBLE,
    INFEASIBLE, a complete count), 1 for UNKNOWN or ERROR. Example:

        puzzlesat peg cubes peg/hoppers --bound 6 --depth 2 --certify
    """
    from ..compare.peg.cubes import run_cubes
    from ..compare.peg.layers import close_pool, pool_for
    from ..core.procs import default_workers
    from ..families.instances import load_instance
    from .campaign import tls_files
    fam, inst = load_instance(instance)
    if fam.name != "peg":
        raise InputError(f"peg cubes takes a peg instance; {instance} is {fam.name}")
    if keep_proofs and (not certify or work_dir is None):
        raise InputError("--keep-proofs needs --certify and --work-dir")
    if recheck and work_dir is None:
        raise InputError("--recheck checks again what a --work-dir holds: give --work-dir")
    if switch and work_dir is None:
        raise InputError("--switch goes on with the plan a --work-dir holds: give --work-dir")
    if status and work_dir is None:
        raise InputError("--status reads the run in a --work-dir: give --work-dir")
    if status and recheck:
        raise InputError("--status checks no proof again (it reads what a run would take): drop "
                         "--recheck")
    _recheck(False, work_dir)  # the key checked first; run_cubes does the recheck (kept proofs)
    t0 = time.perf_counter()

    def say(line: str) -> None:  # progress on stderr (also with --json: runs are long)
        click.echo(f"  [{time.perf_counter() - t0:7.1f} s] {line}", err=True)
    pool = None if status else pool_for(executor, jobs or default_workers(), scheduler,
                                        tls_files(tls_ca_file, tls_cert, tls_key), insecure,
                                        retries=2, job="puzzlesat.models.peg.cubes:solve_cube")
    try:
        rep = run_cubes(fam, inst, config, bound, depth, symmetry=symmetry, certify=certify,
                        count=count, solver=solver, pool=pool, work_dir=work_dir,
                        time_limit=time_limit, split_after=split_after, search=search,
                        keep=keep_proofs, recheck=recheck, switch=switch,
                        split_depth=split_depth, status=status, progress=say)
    finally:
        if pool is not None:
            close_pool(pool)
    if not status:
        rep["executor"], rep["jobs"] = executor, jobs or default_workers()
    if as_json:
        click.echo(json.dumps(rep))
    else:
        _print_cubes(rep)
    if status:
        return
    if rep["status"] in (Status.UNKNOWN.value, Status.ERROR.value):
        raise SystemExit(1)


def _print_cubes(rep: dict) -> None:
    st = rep["status"]
    s = rep["solve_seconds"]
    split = f", {rep['splits']} split into {rep['leaves']} leaves" if rep["splits"] else ""
    click.echo(f"{rep['instance']}: {rep['claim']}: {st}  ({rep['cubes']} cubes of depth "
               f"{rep['depth']}, {rep['legal_prefixes']} legal prefixes{split}; solve CPU s: sum "
               f"{s.get('sum', 0)}, max {s.get('max', 0)}; {rep['wall_seconds']:.1f} s wall)")
    if rep.get("status_only"):
        click.echo(f"work folder: {rep['jobs_done']} jobs done ({rep['splits']} split, "
                   f"{rep['split_seconds']} s before their split), {rep['jobs_to_run']} to run; "
                   f"{rep['cubes_answered']} of {rep['cubes']} cubes answered")
    if rep.get("switched_from") or rep.get("status_only"):
        click.echo("jobs by solver and search: " + ", ".join(
            f"{k}: {n}" for k, n in sorted(rep.get("job_settings", {}).items())))
    if "count" in rep:
        click.echo(f"count: {rep['count']}")
    if st == Status.INFEASIBLE.value:
        click.echo(f"no solution with at most {rep['bound']} moves: the optimum is at least "
                   f"{rep['lower_bound']}")
    if "solution" in rep:
        sol = rep["solution"]
        click.echo(f"a solution of {sol['moves']} moves (replayed by the checker; in "
                   f"{rep['found_in']}): " + " ".join(f"{a}-{c}" for a, _, c in sol["jumps"]))
    from ..core.seal import EARLIER_RUN, verdict_text
    prov = rep.get("provenance") or {}
    if rep.get("certificate"):
        c = Certificate.from_json(rep["certificate"])
        verdict = verdict_text(f"{c.verdict}", rep["certificate"].get("provenance"))
        click.echo(f"certificate: {verdict}  "
                   f"({c.proof_count} proofs, {c.lemmas} lemmas, "
                   f"{(c.proof_bytes or 0) / 1e6:.1f} MB, checked in {c.checker_seconds} s)")
    if prov.get("verified_in") == EARLIER_RUN:
        first, last = prov["earlier_dates"]
        click.echo(f"from earlier runs: {prov['earlier_runs']} of "
                   f"{prov['earlier_runs'] + prov['this_run']} job results behind this answer are "
                   f"sealed records of earlier runs ({first}" + ("" if first == last else f" to {last}")
                   + "), not checked again in this run; --recheck checks them again")
    if rep.get("reason"):
        click.echo(f"reason: {rep['reason']}")


@click.command("games")
@click.argument("target", metavar="INSTANCE|BOARD")
@click.option("--vacate", multiple=True, metavar="all|HOLE...",
              help="count every single-vacancy problem of BOARD (one per orbit, as `peg "
                   "problems`): the start's empty hole, all or hole ids/names")
@click.option("--finish", multiple=True, metavar="all|same|HOLE...",
              help="with --vacate: the survivor's hole, all (default), same or hole ids/names")
@click.option("--direction", type=click.Choice(["meet", "forward"]), default=None,
              help="meet (default for an instance): forward counts meet backward counts from the "
                   "finish; forward: the forward side to its end, which also counts every game "
                   "(each jump sequence until no jump is possible) and the winning sequences "
                   "per survivor hole (always so with --vacate)")
@click.option("--method", type=click.Choice(["dp", "enumerate"]), default="dp", show_default=True,
              help="dp: the layer dynamic programme; enumerate: every sequence walked one by one "
                   "(no memo, no symmetry: the cross-check of small boards)")
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="dp: layers up to the symmetries fixing the start (and the finish)")
@click.option("--time-limit", type=Seconds(), default=None,
              help="seconds (default, 0 or none: no limit); past it the answer is UNKNOWN with "
                   "the layers done, never a partial count")
@click.option("--memory-mb", type=click.IntRange(min=1), default=None,
              help="dp: memory for building a layer (default: 3/4 of the available memory); a "
                   "layer that would not fit is built on disk, in key ranges summed one at a "
                   "time (in --work-dir, else a temporary folder)")
@click.option("--work-dir", type=WorkFolder(), default=None,
              help="dp: keep the finished layers (with their SHA-256) here, and a layer being "
                   "built on disk with its checkpoint; a run with the same folder resumes from "
                   "them, and a damaged file is found and computed again")
@click.option("--keep-free-mb", type=click.IntRange(min=0), default=None,
              help="dp: disk space the layers must leave free (default 1024); past it UNKNOWN")
@click.option("--recheck", is_flag=True, help=RECHECK_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON (counts as exact integers)")
def games(target, vacate, finish, direction, method, symmetry, time_limit, memory_mb, work_dir,
          keep_free_mb, recheck, as_json) -> None:
    """How many jump sequences solve a peg INSTANCE: every sequence from the start to the finish
    (one peg anywhere when the instance has no finish), counted exactly by a dynamic programme over
    the layers of positions by jumps (big integers, symmetry-reduced). Exit status 0 for a count,
    1 when stopped (UNKNOWN: no count). Examples:

        puzzlesat peg games peg/english33      # 40,861,647,040,079,968 (Durango Bill)

        puzzlesat peg games peg/english33 --direction forward   # and every game

        puzzlesat peg games triangle5 --vacate all    # every single-vacancy problem of a board
    """
    from ..native_search.peg.bfs import peak_rss_mib
    from ..native_search.peg.games import board_table, count_games, enumerate_games
    _recheck(recheck, work_dir)
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    memory = None if memory_mb is None else memory_mb * 2**20
    keep_free = None if keep_free_mb is None else keep_free_mb * 2**20
    if vacate or finish:
        if method != "dp" or direction == "meet":
            raise InputError("--vacate counts each vacancy by the forward dynamic programme: drop "
                             "--method enumerate / --direction meet")
        from ..puzzles.peg import board, hole_label
        b = board(target)
        rows_out, vac_out = [], []

        def prog(v, side, d, n):
            click.echo(f"  [{time.monotonic() - t0:7.1f} s] vacate {hole_label(b, v)}: {side} "
                       f"layer {d}: {n:,} positions", err=True)
        if not as_json:
            click.echo(f"{b.name}: {b.n} holes, {len(b.symmetries)} symmetries; winning jump "
                       "sequences of each problem (one per orbit)")
            click.echo(f"{'vacate':>6} {'finish':>6} {'sequences':>30} {'orbit':>5}")
        complete = True
        for v, r, rows in board_table(b, _holes(b, vacate, ("all",)),
                                      _holes(b, finish, ("all", "same")), deadline=deadline,
                                      memory=memory, work_dir=work_dir, keep_free=keep_free,
                                      progress=prog):
            complete &= r.complete
            vac_out.append({"vacate": v, "vacate_label": hole_label(b, v), **_games_json(r, b)})
            for row in rows:
                rows_out.append({"vacate": row.vacate, "finish": row.finish,
                                 "vacate_label": hole_label(b, row.vacate),
                                 "finish_label": hole_label(b, row.finish),
                                 "solutions": row.solutions, "orbit_size": row.orbit_size})
                if not as_json:
                    n = "UNKNOWN" if row.solutions is None else f"{row.solutions:,}"
                    click.echo(f"{hole_label(b, row.vacate):>6} {hole_label(b, row.finish):>6} "
                               f"{n:>30} {row.orbit_size:>5}")
            if not as_json:
                click.echo(_games_line(r, f"vacate {hole_label(b, v)}"))
        if as_json:
            click.echo(json.dumps({"board": b.name, "problems": rows_out, "vacancies": vac_out,
                                   "complete": complete, "peak_rss_mib": peak_rss_mib(),
                                   "seconds": round(time.monotonic() - t0, 3)}))
        if not complete:
            raise SystemExit(1)
        return
    from ..families.instances import load_instance
    fam, inst = load_instance(target)
    if fam.name != "peg":
        raise InputError(f"peg games takes a peg instance; {target} is {fam.name}")
    if method == "enumerate":
        if (direction is not None or work_dir is not None or memory_mb is not None
                or keep_free_mb is not None or not symmetry):
            raise InputError("--method enumerate walks every sequence: --direction, --work-dir, "
                             "--memory-mb, --keep-free-mb and --no-symmetry are options of the "
                             "dp")
        r = enumerate_games(inst, deadline=deadline)
    else:
        def prog(side, d, n):
            click.echo(f"  [{time.monotonic() - t0:7.1f} s] {side} layer {d}: {n:,} positions",
                       err=True)
        r = count_games(inst, direction=direction or "meet", symmetry=symmetry, deadline=deadline,
                        memory=memory, work_dir=work_dir, keep_free=keep_free, progress=prog)
    out = {"instance": inst.name, **_games_json(r, inst.board), "peak_rss_mib": peak_rss_mib()}
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo(_games_line(r, inst.name))
    if not r.complete:
        raise SystemExit(1)


def _games_json(r, b) -> dict:
    """A GameCount as JSON (counts as exact integers; survivor holes by label)."""
    from ..puzzles.peg import hole_label
    status = (Status.UNKNOWN if not r.complete else
              Status.OPTIMAL if r.solutions else Status.INFEASIBLE)
    out = {"status": status.value, "solutions": r.solutions, "games": r.games,
           "method": "enumerate" if r.direction == "enumerate" else "dp",
           "direction": r.direction, "jumps": r.jumps, "symmetries": r.group_order,
           "layers_forward": r.layers_forward, "layers_backward": r.layers_backward,
           "meeting": r.meeting, "words": r.words, "seconds": r.seconds,
           "layers_on_disk": r.layers_on_disk, "disk_peak_mib": round(r.disk_peak / 2**20, 1),
           "resumed": r.resumed, "resumed_inside": r.resumed_inside, "redone": r.redone,
           "verified_in": "earlier run" if r.resumed_from else "this run",
           "reason": r.reason}
    if r.resumed_from:
        out["resumed_from"] = r.resumed_from
    if r.per_finish is not None:
        out["per_finish"] = {hole_label(b, h): v for h, v in r.per_finish.items()}
    if r.dead_by_pegs is not None:
        out["games_by_pegs_left"] = {str(k): v for k, v in r.dead_by_pegs.items()}
    return out


def _games_line(r, name: str) -> str:
    if not r.complete:
        return f"{name}: UNKNOWN — no count ({r.reason})"
    how = ("every sequence enumerated" if r.direction == "enumerate" else
           f"dp {r.direction}, {r.group_order} symmetries, "
           f"{sum(r.layers_forward) + sum(r.layers_backward):,} positions"
           + (f", {r.meeting:,} met" if r.meeting is not None else ""))
    text = f"{name}: {r.solutions:,} winning jump sequences ({r.jumps} jumps each; {how}; {r.seconds:.1f} s)"
    if r.games is not None:
        text += f"\n{name}: {r.games:,} games (jump sequences until no jump is possible)"
    if getattr(r, "resumed_from", None):
        text += (f"\n{name}: resumed from layers of an earlier run ({r.resumed_from}; sealed, "
                 f"SHA-256 checked now: {', '.join(r.resumed) or 'a checkpoint inside a layer'}); "
                 "--recheck counts them again")
    return text


@click.command("records")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the replay of each file as JSON")
def records(files, as_json) -> None:
    """Replay record files of short solutions (what `peg problems BOARD --upper-bound --json`
    prints) through the independent checker: every record's solution must solve its problem
    (every hole full but the vacated one; one peg, in the finish hole) in exactly its moves. No
    FILE: the records shipped with puzzlesat. Exit status 1 with the reason when a record fails,
    2 when a file is not a record file. Example: puzzlesat peg records"""
    from ..puzzles.peg_records import replay_file, shipped
    paths = list(files) or [str(p) for p in shipped()]
    results = [replay_file(p) for p in paths]
    if as_json:
        click.echo(json.dumps([{"file": r.path, "board": r.board, "ok": r.ok,
                                "records": len(r.rows), "errors": r.errors,
                                "least": None if r.least is None else
                                {"moves": r.least[0], "pair": list(r.least[1])}}
                               for r in results]))
    else:
        for r in results:
            good = sum(1 for *_, reason in r.rows if not reason)
            least = (f"; least {r.least[0]} moves ({r.least[1][0]} -> {r.least[1][1]})"
                     if r.least else "")
            click.echo(f"{r.path}: {r.board}, {good} of {len(r.rows)} records replayed by the "
                       f"checker{least}: {'OK' if r.ok else 'FAILED'}")
            for e in r.errors:
                click.echo(f"  {e}")
    if not all(r.ok for r in results):
        raise SystemExit(1)


@click.group("peg")
def peg() -> None:
    """Peg solitaire research commands (problems, cubes, games, records)."""


peg.add_command(problems)
peg.add_command(cubes)
peg.add_command(games)
peg.add_command(records)
