"""Cube-and-conquer for peg decisions "moves <= K": the decision split into cubes (its first jumps
fixed), each cube solved on its own (a job: its own process, or a task on a cluster), and, when
asked, every refutation certified by a proof that puzzlesat's own checker verifies.

Vocabulary:

    Line = int               # index into board.lines: one jump (from, over, to)
    Cube = tuple[Line, ...]  # the first `depth` jumps: a legal prefix from the start
    canonical   a cube that is the least of its orbit under the symmetries keeping the start and
                the finish (ordered.stabiliser); with symmetry only those are cubes
    base CNF    the engine's decision CNF at "moves <= K" (sat:ordered with its symmetric prefix set
                to the depth, so the CNF itself forbids every non-canonical prefix)
    cube CNF    base + the cube's unit clauses j[t][cube[t]], t < depth
    cover CNF   base + one clause "not this cube" per cube

Why the split is complete, and what a certificate covers: every model of the base CNF starts with
a legal prefix of `depth` jumps (the CNF's preconditions), canonical when symmetry is on (its
symmetric-prefix clauses), so it satisfies a cube. If the cover CNF is UNSAT (the cubes cover every
model) and every cube CNF is UNSAT, the base CNF is UNSAT. Certified, each of those N + 1
refutations is a proof checked by certify/: the base CNF's refutation rests on them alone.

Counting (`count=True`) runs over the engine's counting formulation (sat:ordered counts over
peg:merson, no symmetry breaking): each cube's solutions are enumerated with blocking clauses on
the jump variables (the projection that defines a solution), every one replayed by the checker.
With symmetry a canonical cube stands for its orbit: the symmetries map the solutions that start
with one prefix one to one onto those that start with its image, so its count is weighted by the
orbit's size. The weighted sum is the instance's count (tested on small boards).

Source: cube-and-conquer, Heule, Kullmann, Wieringa & Biere (2011); its certified use as in the
Boolean Pythagorean triples proof (Heule, Kullmann & Marek 2016: a proof per cube plus the check
that the cubes cover the problem).

A job (`solve_cube`) is a dict, so it pickles to a process or a Dask worker:
    {"id", "name", "base", "extra", "solver", "search", "certify", "folder", "keep", "count",
     "inst", "projection", "keys", "time_limit"}
and returns {"id", "name", "status" (UNSAT/SAT), "solve_seconds", "model" (true projection ids,
SAT), "count", "certificate" (JSON of certify.Certificate, certified UNSAT only), "cnf_sha256"}.
`python -m puzzlesat.models.peg.cubes SPEC RESULT` runs one job (SPEC a pickle, RESULT its JSON).
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from ...core.files import write_atomic
from ...core.result import CheckError, InputError
from ...puzzles.peg import PegInstance, check

from .ordered import stabiliser

Line = int
Cube = tuple[Line, ...]



def legal_prefixes(inst: PegInstance, depth: int) -> Iterator[Cube]:
    """Every legal sequence of `depth` jumps from the start (the required first jump first), in
    lexicographic order of line indices."""
    lines = inst.board.lines

    def rec(pegs: frozenset, prefix: Cube) -> Iterator[Cube]:
        if len(prefix) == depth:
            yield prefix
            return
        for i, (a, b, c) in enumerate(lines):
            if a in pegs and b in pegs and c not in pegs:
                if not prefix and inst.first_jump is not None and (a, c) != inst.first_jump:
                    continue
                yield from rec(pegs - {a, b} | {c}, prefix + (i,))

    yield from rec(inst.start, ())


def line_perms(inst: PegInstance) -> list[tuple[Line, ...]]:
    """The stabiliser's symmetries as permutations of the board's lines (identity first)."""
    lines = inst.board.lines
    index = {l: i for i, l in enumerate(lines)}
    return [tuple(index[(s[a], s[b], s[c])] for a, b, c in lines) for s in stabiliser(inst)]


def orbit(perms: list[tuple[Line, ...]], cube: Cube) -> set[Cube]:
    """The images of `cube` under the line permutations `perms`."""
    return {tuple(p[l] for l in cube) for p in perms}


def cubes(inst: PegInstance, depth: int, symmetry: bool = True) -> list[Cube]:
    """The cubes of depth `depth`: every legal prefix, or with `symmetry` the canonical ones (the
    least of their orbit). InputError when the depth exceeds the jumps a solution has."""
    if not 0 <= depth <= inst.jumps_needed:
        raise InputError(f"cube depth {depth}: a solution of {inst.name} has "
                         f"{inst.jumps_needed} jumps; choose 0..{inst.jumps_needed}", field="depth")
    if not symmetry:
        return list(legal_prefixes(inst, depth))
    perms = line_perms(inst)[1:]
    return [c for c in legal_prefixes(inst, depth)
            if not any(tuple(p[l] for l in c) < c for p in perms)]


def extensions(inst: PegInstance, cube: Cube) -> list[Cube]:
    """The legal one-jump extensions of `cube` (every one: a split cube's children)."""
    lines = inst.board.lines
    pegs = set(inst.start)
    for l in cube:
        a, b, c = lines[l]
        pegs -= {a, b}
        pegs.add(c)
    return [cube + (i,) for i, (a, b, c) in enumerate(lines)
            if a in pegs and b in pegs and c not in pegs
            and (cube or inst.first_jump is None or (a, c) == inst.first_jump)]


def units(cube: Cube, ids: dict[tuple, int]) -> list[list[int]]:
    """The cube's unit clauses over variable numbers `ids` (domain key -> number)."""
    return [[ids[("j", t, l)]] for t, l in enumerate(cube)]


def cover_clauses(all_cubes: list[Cube], ids: dict[tuple, int]) -> list[list[int]]:
    """One clause per cube: not every jump of it."""
    return [[-ids[("j", t, l)] for t, l in enumerate(c)] for c in all_cubes]


# ---- files ------------------------------------------------------------------------------------
def split_dimacs(data: bytes) -> tuple[list[bytes], int, int, bytes]:
    """(comment lines, variables, clauses, the clause text) of a DIMACS file's bytes."""
    comments = []
    pos = 0
    while True:
        end = data.find(b"\n", pos)
        line = data[pos:end if end >= 0 else len(data)]
        if line.startswith(b"p "):
            _, kind, nv, nc = line.split()
            if kind != b"cnf":
                raise InputError(f"not a CNF header: {line[:80]!r}")
            return comments, int(nv), int(nc), data[end + 1:] if end >= 0 else b""
        if not line.startswith(b"c") and line.strip():
            raise InputError(f"DIMACS text before its header: {line[:80]!r}")
        comments.append(line)
        if end < 0:
            raise InputError("no 'p cnf' header")
        pos = end + 1


def write_with(base: Path, extra: list[list[int]], out: Path, note: str) -> str:
    """Write the DIMACS `base` plus the clauses `extra` to `out` (atomically); returns its SHA-256."""
    comments, nv, nc, body = split_dimacs(Path(base).read_bytes())
    if body and not body.endswith(b"\n"):
        body += b"\n"
    head = b"\n".join(comments + [f"c {note}".encode(), f"p cnf {nv} {nc + len(extra)}".encode()])
    tail = "".join(" ".join(map(str, c)) + " 0\n" for c in extra).encode()
    data = head + b"\n" + body + tail
    write_atomic(out, data, "cube CNF")
    return hashlib.sha256(data).hexdigest()


# ---- one job ----------------------------------------------------------------------------------
def solve_cube(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one job (module docstring). With spec["time_limit"] (CPU seconds of the job's
    processes, so that a job on a crowded machine is not cut short by the others' load; wall
    seconds where /proc cannot tell) the work runs in a forked child, in its own process group,
    that is killed at the limit (python-sat's CaDiCaL ignores interrupts): then status UNKNOWN,
    and the job's files are removed."""
    limit = spec.get("time_limit")
    if not limit:
        return _solve(spec)
    import signal
    from ...core.procs import die_with_parent, forking, kill_group
    folder = Path(spec["folder"])
    out = folder / f"{spec['name']}.result.json"
    out.unlink(missing_ok=True)
    parent = os.getpid()
    with forking():  # no thread of ours holds numba's compiler lock in the child (core/procs.py)
        pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.setpgid(0, 0)  # its group: an external solver it starts goes with it
            die_with_parent(parent=parent)  # in its own group, a stopped job's kill misses it
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            write_atomic(out, json.dumps(_solve(spec)), "cube result")
            code = 0
        except BaseException:  # noqa: BLE001 - reported by the parent as the exit status
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    from ...core.procs import group_cpu_seconds
    t0 = time.monotonic()
    status = None
    used, polled = 0.0, t0
    by_cpu = os.path.isdir("/proc/self")
    while used < float(limit):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
        now = time.monotonic()
        if not by_cpu:
            used = now - t0
        elif now - polled >= 0.25 or now - t0 < 1.0:  # /proc read 4x a second (20x the first)
            used, polled = max(used, group_cpu_seconds(pid) or 0.0), now
    else:
        kill_group(pid)
        os.waitpid(pid, 0)
        _remove_job_files(folder, spec["name"])
        return {"id": spec["id"], "name": spec["name"], "status": "UNKNOWN",
                "solve_seconds": round(float(limit), 3),
                "reason": f"cube time limit {limit} CPU s"}
    if os.waitstatus_to_exitcode(status) != 0 or not out.exists():
        raise RuntimeError(f"{spec['name']}: the job's process failed "
                           f"(exit {os.waitstatus_to_exitcode(status)})")
    res = json.loads(out.read_text())
    out.unlink()
    return res


def _remove_job_files(folder: Path, name: str) -> None:
    """Everything a killed job may have left: its CNF and proof, their temporary files (written
    atomically: `.NAME.*`) and CP-SAT's scratch folder."""
    for ext in (".cnf", ".drat", ".lrat", ".result.json"):
        (folder / f"{name}{ext}").unlink(missing_ok=True)
    for p in folder.glob(f".{name}.*"):
        p.unlink(missing_ok=True)
    shutil.rmtree(folder / f"{name}.scratch", ignore_errors=True)


def _solve(spec: dict[str, Any]) -> dict[str, Any]:
    """The job's work (solve_cube without its time limit)."""
    folder = Path(spec["folder"])
    name = spec["name"]
    out: dict[str, Any] = {"id": spec["id"], "name": name}
    if spec.get("verify_proof"):
        return out | _verify_kept(spec)
    if spec.get("count"):
        return out | _count(spec)
    from .._sat import SOLVERS
    if spec.get("certify") or spec["solver"] not in SOLVERS:  # CP-SAT, ext: through their proofs
        from ..proofs import prove
        cnf = folder / f"{name}.cnf"
        out["cnf_sha256"] = write_with(Path(spec["base"]), spec["extra"], cnf, name)
        ext = ".lrat" if spec["solver"] == "cpsat" else ".drat"
        order = spec["projection"] if spec.get("search") == "fixed" else None
        scratch = folder / f"{name}.scratch"  # CP-SAT's binary files: removed if the job is killed
        scratch.mkdir(exist_ok=True)
        try:
            run = prove(cnf, folder / f"{name}{ext}", solver=spec["solver"], order=order,
                        producer_check=bool(spec.get("producer_check", False)), scratch=scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        out.update(status=run.status, solve_seconds=round(run.solve_seconds, 3))
        if run.status == "SAT":
            if run.model is None:  # an external solver: no model given back; find one
                run.model = _model(spec)
            out["model"] = [v for v in spec["projection"] if v in set(run.model)]
        elif run.status == "UNSAT" and spec.get("certify"):
            out["certificate"] = run.certify().to_json()
        if not spec.get("keep"):
            for p in (cnf, run.proof):
                if p is not None:
                    Path(p).unlink(missing_ok=True)
        return out
    with _loaded(spec, spec["solver"]) as s:
        t0 = time.process_time()
        sat = s.solve()
        model = set(s.get_model() or ()) if sat else set()
    out.update(status="SAT" if sat else "UNSAT", solve_seconds=round(time.process_time() - t0, 3))
    if sat:
        out["model"] = [v for v in spec["projection"] if v in model]
    return out


def _verify_kept(spec: dict[str, Any]) -> dict[str, Any]:
    """A --recheck job: the proof an earlier run kept (spec["verify_proof"]) checked by our checker
    in this run against the job's CNF written afresh from the base CNF and the job's clauses (the
    kept CNF is not trusted). Status UNSAT with the new certificate when VERIFIED; otherwise
    RECHECK_FAILED with the reason (the caller then solves the job again)."""
    from ...certify import certify
    folder = Path(spec["folder"])
    cnf = folder / f"{spec['name']}.cnf"
    proof = Path(spec["verify_proof"])
    try:
        sha = write_with(Path(spec["base"]), spec["extra"], cnf, spec["name"])
        cert = certify(cnf, proof).to_json()
    except InputError as e:  # a malformed proof file
        return {"status": "RECHECK_FAILED", "reason": f"the kept proof: {e.message}",
                "solve_seconds": 0.0}
    finally:
        if not spec.get("keep"):
            cnf.unlink(missing_ok=True)
    if cert["verdict"] != "VERIFIED":
        return {"status": "RECHECK_FAILED", "solve_seconds": 0.0,
                "reason": f"the kept proof is {cert['verdict']}: {cert.get('reason')}"}
    cert.setdefault("stats", {})["proof_bytes"] = proof.stat().st_size
    if not spec.get("keep"):
        proof.unlink(missing_ok=True)
    return {"status": "UNSAT", "solve_seconds": 0.0, "cnf_sha256": sha, "certificate": cert,
            "rechecked": "kept proof verified again"}


def _loaded(spec: dict[str, Any], solver: str):
    """A python-sat `solver` holding the job's CNF: the base file plus its extra clauses."""
    from pysat.formula import CNF
    from pysat.solvers import Solver
    s = Solver(name=solver, bootstrap_with=CNF(from_file=str(spec["base"])).clauses)
    for c in spec["extra"]:
        s.add_clause(c)
    return s


def _model(spec: dict[str, Any]) -> list[int]:
    """A model of base + extra (python-sat, no proof); [] when there is none."""
    with _loaded(spec, "cadical195") as s:
        return s.get_model() or [] if s.solve() else []


def decode(true_ids, keys: dict[int, tuple], lines) -> tuple:
    """The jump sequence from the true jump-variable numbers (`keys`: number -> ('j', t, line))."""
    steps = sorted((keys[v][1], keys[v][2]) for v in true_ids)
    if [t for t, _ in steps] != list(range(len(steps))):
        raise CheckError(f"the model's jump variables are not one per step: {steps[:8]}")
    return tuple(lines[l] for _, l in steps)


def _count(spec: dict[str, Any]) -> dict[str, Any]:
    """Enumerate the cube's solutions (blocking clauses on the projection), each checked."""
    inst: PegInstance = spec["inst"]
    keys = {int(k): tuple(v) for k, v in spec["keys"].items()}
    bound = spec["bound"]
    proj = spec["projection"]
    n = 0
    with _loaded(spec, spec["solver"]) as s:
        t0 = time.process_time()
        while s.solve():
            model = set(s.get_model())
            true = [v for v in proj if v in model]
            seq = decode(true, keys, inst.board.lines)
            m = check(inst, seq)
            if bound is not None and m > bound:
                raise CheckError(f"a solution of {m} moves in a count at moves <= {bound}")
            n += 1
            s.add_clause([-v for v in true])
    return {"status": "COUNTED", "count": n, "solve_seconds": round(time.process_time() - t0, 3)}


def main(argv: list[str]) -> int:
    """`python -m puzzlesat.models.peg.cubes SPEC RESULT`: one job, its JSON written atomically."""
    from ...core.procs import die_with_parent
    die_with_parent()
    spec_path, result_path = argv
    with open(spec_path, "rb") as f:
        spec = pickle.load(f)
    res = solve_cube(spec)
    write_atomic(result_path, json.dumps(res), "cube result")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
