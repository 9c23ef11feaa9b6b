"""`puzzlesat peg problems BOARD --upper-bound`: short solutions of every single-vacancy problem, as a
resumable campaign of searches that need not be exhaustive.

Problems: one per symmetry orbit of (vacate, finish) (native_search.peg.problems.orbit_pairs), the
ones the position classes allow. A plan runs tasks in this order, each recorded as done once it
finished:
  1. beam: per vacancy orbit, per (width, weights) of the plan, the beam by moves with exact end
     games of native_search/peg/wide.py (any board of up to 128 holes);
  2. windows: per problem, native exact searches over windows of its best solution
     (native_search/peg/window.py), best problems first;
  3. model: per problem among the `model_problems` best, descending decisions "moves <= K" over
     peg:ordered seeded with the best solution (models/peg/hint.py: `cpsat` hints, `sat` phases)
     on windows of `model_lengths` moves (sub-boards), and on the whole problem when the board has
     at most `model_whole_holes` holes.
Every solution any task finds is replayed by the checker (puzzles.peg.check) the moment it is
found; if it beats its problem's best it is carried to the orbit's representative pair by the
symmetry that maps it there and written to the work folder at once (`best/V-F.json`, whole or not
at all). A solution the checker rejects is never stored and stops the run (CheckError).

Work folder W: `campaign.json` (board, lines), `best/V-F.json` (one record each: the record
format below), `done.json` (finished tasks with the moves each claimed per problem). A second run
with the same folder replays every stored record again, sets aside (`*.bad`) any that is damaged
or does not replay to its moves, forgets the done tasks whose claims no valid record backs (so they
run again), and runs only the tasks not done.

Record format (`records_json`; also `puzzlesat peg problems --upper-bound --json` and the shipped
files puzzles/data/peg/records/BOARD.json): {"board", "holes", "problems": [{"pair": [vacate,
finish], "vacate_label", "finish_label", "orbit_size", "moves", "upper_bound", "solution":
[[from, over, to], ...], "found", "when"}], "least": {"moves", "pair"}, "replayed"}.
`puzzlesat peg records FILE` replays such a file (puzzles/peg_records.py).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ...core.files import make_folder, write_atomic
from ...core.inputs import read_text
from ...core.limits import MAX_INPUT_BYTES
from ...core.result import CheckError, InputError
from ...puzzles.peg import Board, Hole, Solution, check, hole_label, infeasible_reason

Pair = tuple[Hole, Hole]


@dataclass(frozen=True)
class Plan:
    """What a campaign runs (see the module docstring); the defaults are the measured choice."""

    widths: tuple[int, ...] = (10_000, 100_000)
    weights: tuple[str, ...] = ("p8i16r8m16", "p8i16r4m32", "p8i4r1m8")
    end_pegs: int = 9
    window_lengths: tuple[int, ...] = (2, 3, 4, 5)
    window_seconds: float = 20.0
    model: str = "cpsat"
    model_problems: int = 5
    model_lengths: tuple[int, ...] = (6, 8)
    model_seconds: float = 60.0
    model_whole_holes: int = 28

    def weight_sets(self):
        from ...native_search.peg.wide import Weights
        return [Weights.parse(w) for w in self.weights]


@dataclass
class Record:
    """The best solution known for one problem (its orbit's representative pair)."""

    pair: Pair
    moves: int
    solution: Solution
    found: str
    when: str

    def json(self, b: Board, orbit_size: int) -> dict:
        v, f = self.pair
        return {"pair": [v, f], "vacate_label": hole_label(b, v), "finish_label": hole_label(b, f),
                "orbit_size": orbit_size, "moves": self.moves, "upper_bound": self.moves,
                "solution": [list(j) for j in self.solution], "found": self.found,
                "when": self.when}


def replay(b: Board, pair: Pair, sol: Solution) -> int:
    """The moves of `sol` for (vacate, finish) as the checker replays it (CheckError otherwise)."""
    from ...native_search.peg.problems import problem_instance
    return check(problem_instance(b, *pair), sol)


def to_representative(b: Board, pair: Pair, sol: Solution) -> tuple[Pair, Solution]:
    """The orbit's least pair and the solution carried there by a symmetry of the board."""
    v, f = pair
    g = min(b.symmetries, key=lambda g: (g[v], g[f]))
    return (g[v], g[f]), tuple((g[a], g[m], g[c]) for a, m, c in sol)


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Campaign:
    """The best solutions of a board's problems, kept in a work folder (or in memory)."""

    def __init__(self, b: Board, pairs: Sequence[tuple[Pair, int]], work_dir: str | None,
                 say: Callable[[str], None] | None = None):
        self.b = b
        self.say = say or (lambda s: None)
        self.orbit = {p: size for p, size in pairs}
        self.best: dict[Pair, Record] = {}
        self.done: dict[str, dict[str, int]] = {}
        self.dir = None if work_dir is None else Path(work_dir)
        if self.dir is not None:
            self._open()

    # ---- the work folder ----------------------------------------------------------------------
    def _ident(self) -> dict:
        lines = hashlib.sha1(json.dumps(sorted(self.b.lines)).encode()).hexdigest()[:16]
        return {"board": self.b.name, "holes": self.b.n, "lines": lines, "kind": "peg-upper-bound"}

    def _write(self, path: Path, data: dict) -> None:
        """`path` whole or untouched (written to a temporary file, synced, renamed into place)."""
        make_folder(path.parent, "upper-bound work folder")
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "w") as fh:
                json.dump(data, fh, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as e:   # a full disk, a folder in the way: one line, not a traceback
            if not tmp.is_dir():
                tmp.unlink(missing_ok=True)
            raise InputError(f"cannot write the upper-bound work folder's file ({e.strerror or e})",
                             file=path) from None

    def _open(self) -> None:
        d = make_folder(self.dir, "upper-bound work folder")
        ident = d / "campaign.json"
        if ident.exists() or ident.is_symlink():
            try:   # the bounded reader: a regular file (not a FIFO, folder or device), UTF-8
                have = json.loads(read_text(ident, MAX_INPUT_BYTES, "campaign file"))
            except (ValueError, RecursionError) as e:
                raise InputError(f"{ident}: not JSON ({e})") from None
            if not isinstance(have, dict):
                raise InputError(f"{ident}: not this tool's campaign file (expected an object)")
            if have != self._ident():
                raise InputError(f"{d} holds the campaign of {have.get('board')!r} "
                                 f"({have.get('holes')} holes), not {self.b.name}: use another "
                                 "--work-dir")
        else:
            self._write(ident, self._ident())
        for path in sorted((d / "best").glob("*.json")) if (d / "best").exists() else []:
            try:
                data = json.loads(read_text(path, MAX_INPUT_BYTES, "stored solution"))
                pair = (int(data["pair"][0]), int(data["pair"][1]))
                sol = tuple((int(a), int(m), int(c)) for a, m, c in data["solution"])
                got = replay(self.b, pair, sol)
                if got != int(data["moves"]) or data.get("board") != self.b.name:
                    raise CheckError(f"replays to {got} moves, the record says {data['moves']}")
                if pair not in self.orbit:
                    continue  # a problem this run does not ask about: kept as it is
                self.best[pair] = Record(pair, got, sol, str(data.get("found", "")),
                                         str(data.get("when", "")))
            except (CheckError, InputError, KeyError, TypeError, ValueError, IndexError,
                    RecursionError) as e:
                bad = path.with_name(path.name + ".bad")
                os.replace(path, bad)
                self.say(f"{path}: damaged or does not replay ({e}); set aside as {bad.name}, its "
                         "tasks run again")
        if self.best:
            self.say(f"{len(self.best)} stored solutions replayed by the checker")
        done = d / "done.json"
        if done.exists() or done.is_symlink():
            try:
                self.done = {str(k): {str(p): int(m) for p, m in v.items()}
                             for k, v in json.loads(read_text(done, MAX_INPUT_BYTES,
                                                              "task list")).items()}
            except (InputError, ValueError, AttributeError, TypeError, RecursionError) as e:
                bad = done.with_name(done.name + ".bad")
                os.replace(done, bad)
                self.say(f"{done}: damaged ({e}); set aside as {bad.name}, every task runs again")
                self.done = {}
        stale = [k for k, claims in self.done.items()
                 if any(self._key_pair(p) in self.orbit and (self._key_pair(p) not in self.best
                        or self.best[self._key_pair(p)].moves > m) for p, m in claims.items())]
        for k in stale:
            self.say(f"task {k!r}: a solution it found is not stored; it runs again")
            del self.done[k]

    @staticmethod
    def _key_pair(text: str) -> Pair:
        v, f = text.split("-")
        return int(v), int(f)

    def is_done(self, task: str) -> bool:
        return task in self.done

    def finish_task(self, task: str, claims: dict[Pair, int]) -> None:
        """Record `task` as done with the moves it found per problem."""
        self.done[task] = {f"{v}-{f}": m for (v, f), m in claims.items()}
        if self.dir is not None:
            self._write(self.dir / "done.json", self.done)

    # ---- solutions ----------------------------------------------------------------------------
    def offer(self, pair: Pair, sol: Solution, how: str) -> int | None:
        """Replay `sol` for `pair` with the checker (CheckError if it fails: never stored); carry
        it to the orbit's representative; keep and store it if it beats the best known there.
        Returns its moves, or None if its problem is not in this campaign."""
        got = replay(self.b, pair, sol)
        rep, rsol = to_representative(self.b, pair, sol)
        if replay(self.b, rep, rsol) != got:  # a symmetry keeps the moves; the checker says so
            raise CheckError(f"{pair} carried to {rep} does not keep its {got} moves")
        if rep not in self.orbit:
            return None
        old = self.best.get(rep)
        if old is None or got < old.moves:
            rec = Record(rep, got, rsol, how, now())
            self.best[rep] = rec
            if self.dir is not None:
                self._write(self.dir / "best" / f"{rep[0]}-{rep[1]}.json",
                            {"board": self.b.name, **rec.json(self.b, self.orbit[rep])})
            self.say(f"{hole_label(self.b, rep[0])} -> {hole_label(self.b, rep[1])}: {got} moves"
                     + (f" (was {old.moves})" if old else "") + f", replayed; {how}")
        return got

    def records_json(self) -> dict:
        probs = [self.best[p].json(self.b, self.orbit[p]) for p in sorted(self.best)]
        least = min(self.best.values(), key=lambda r: (r.moves, r.pair), default=None)
        return {"board": self.b.name, "holes": self.b.n, "problems": probs,
                "least": None if least is None else {"moves": least.moves, "pair": list(least.pair)},
                "replayed": "puzzles.peg.check"}


def records_text(rec: dict) -> str:
    """A record file's text (`Campaign.records_json()`): JSON with one problem a line, so that a
    shipped file diffs by problem."""
    head = {k: v for k, v in rec.items() if k != "problems"}
    rows = ",\n".join("  " + json.dumps(p, sort_keys=True) for p in rec["problems"])
    body = json.dumps(head, sort_keys=True)[:-1]
    return body + (', "problems": [\n' + rows + "\n]}\n" if rows else ', "problems": []}\n')


def write_records(path: str | Path, rec: dict) -> None:
    """Write a record file whole or not at all (InputError when its folder is missing or unwritable)."""
    write_atomic(path, records_text(rec), "record file")


def solvable_pairs(b: Board, vacate="all", finish="all") -> list[tuple[Pair, int]]:
    """The orbit representatives (with orbit sizes) the position classes do not rule out."""
    from ...native_search.peg.problems import orbit_pairs, problem_instance
    return [(p, n) for p, n in orbit_pairs(b, vacate, finish)
            if infeasible_reason(problem_instance(b, *p)) is None]


def run(b: Board, plan: Plan = Plan(), vacate="all", finish="all", work_dir: str | None = None,
        time_limit: float | None = None, phases: Sequence[str] = ("beam", "windows", "model"),
        progress: Callable[[str], None] | None = None) -> Campaign:
    """Run the plan's tasks not done yet (module docstring) within `time_limit` seconds (checked
    between tasks and inside them); the campaign with every best solution."""
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    pairs = solvable_pairs(b, vacate, finish)
    camp = Campaign(b, pairs, work_dir, say)
    late = lambda: deadline is not None and time.monotonic() > deadline  # noqa: E731
    if "beam" in phases:
        _beams(camp, plan, sorted({v for (v, _), _ in pairs}), deadline, say)
    if "windows" in phases and not late():
        _windows(camp, plan, deadline, say)
    if "model" in phases and not late():
        _models(camp, plan, deadline, say)
    return camp


def _beams(camp: Campaign, plan: Plan, vacancies: list[Hole], deadline, say) -> None:
    from ...native_search.peg.wide import WideBoard, run_beam, stabiliser
    b = camp.b
    for width in plan.widths:
        for w in plan.weight_sets():
            for v in vacancies:
                task = f"beam vacate={v} width={width} weights={w.key()} end={plan.end_pegs}"
                if camp.is_done(task):
                    continue
                if deadline is not None and time.monotonic() > deadline:
                    return
                wb = WideBoard(b, stabiliser(b, v))
                claims: dict[Pair, int] = {}

                def found(bm, h: Hole, d: int, i: int, task=task, claims=claims, v=v) -> None:
                    sol = bm.solution(d, i, h)
                    pair = (v, sol[-1][2])
                    got = camp.offer(pair, sol, task)
                    if got is not None:
                        rep = to_representative(b, pair, sol)[0]
                        claims[rep] = min(claims.get(rep, got), got)
                bm = run_beam(wb, ((1 << b.n) - 1) ^ (1 << v), width, w, deadline,
                              on_found=found, end_pegs=plan.end_pegs)
                if bm.complete:
                    camp.finish_task(task, claims)
                    say(f"{task}: {len(claims)} problems reached, best "
                        f"{min(claims.values(), default=None)}, {bm.seconds:.1f} s")


def _ranked(camp: Campaign) -> list[Record]:
    return sorted(camp.best.values(), key=lambda r: (r.moves, r.pair))


def _windows(camp: Campaign, plan: Plan, deadline, say) -> None:
    from ...native_search.peg.window import improve
    for rec in _ranked(camp):
        cur = camp.best[rec.pair]
        task = (f"windows {cur.pair[0]}-{cur.pair[1]} from={cur.moves} "
                f"lengths={','.join(map(str, plan.window_lengths))}")
        if camp.is_done(task):
            continue
        if deadline is not None and time.monotonic() > deadline:
            return
        t1 = time.monotonic()
        best = improve(camp.b, cur.pair[0], cur.solution, plan.window_lengths,
                       seconds=plan.window_seconds, deadline=deadline,
                       on_better=lambda sol, how, p=cur.pair: camp.offer(p, sol, f"windows: {how}"))
        if deadline is None or time.monotonic() <= deadline:
            got = replay(camp.b, cur.pair, best)
            camp.finish_task(task, {cur.pair: got})
            say(f"{task}: {got} moves, {time.monotonic() - t1:.1f} s")


def _models(camp: Campaign, plan: Plan, deadline, say) -> None:
    from ...models.peg.hint import descend
    from ...native_search.peg.problems import problem_instance
    from ...native_search.peg.window import _positions, sub_board, windows
    from ...puzzles.peg import PegInstance
    b = camp.b
    for rec in _ranked(camp)[:plan.model_problems]:
        cur = camp.best[rec.pair]
        v = cur.pair[0]
        task = (f"model {plan.model} {cur.pair[0]}-{cur.pair[1]} from={cur.moves} "
                f"lengths={','.join(map(str, plan.model_lengths))}")
        if camp.is_done(task):
            continue
        t1 = time.monotonic()
        if b.n <= plan.model_whole_holes:
            left = None if deadline is None else deadline - time.monotonic()
            descend(problem_instance(b, *cur.pair), cur.solution, plan.model,
                    time_limit=left, per_call=plan.model_seconds,
                    on_better=lambda sol, p=cur.pair: camp.offer(p, sol, f"model {plan.model}: "
                                                                 "whole problem, seeded"))
        for length in plan.model_lengths:
            restart = True
            while restart:
                restart = False
                best = camp.best[cur.pair].solution
                start = frozenset(range(b.n)) - {v}
                for i, j in windows(best, length):
                    if deadline is not None and time.monotonic() > deadline:
                        return
                    pos = _positions(start, best)
                    holes = sub_board(b, {h for x in best[i:j] for h in x})
                    if holes is None:
                        continue
                    ix = {h: k for k, h in enumerate(holes)}
                    sub = Board(f"{b.name}-window", tuple(b.coords[h] for h in holes), b.directions)
                    inst = PegInstance(sub.name, sub, frozenset(ix[h] for h in pos[i] if h in ix),
                                       frozenset(ix[h] for h in pos[j] if h in ix))
                    known = tuple((ix[a], ix[m], ix[c]) for a, m, c in best[i:j])
                    left = None if deadline is None else deadline - time.monotonic()
                    got, calls = descend(inst, known, plan.model, time_limit=left,
                                         per_call=plan.model_seconds)
                    if calls and calls[0]["result"] == "FEASIBLE":
                        cand = best[:i] + tuple((holes[a], holes[m], holes[c])
                                                for a, m, c in got) + best[j:]
                        moves_now = camp.offer(cur.pair, cand, f"model {plan.model}: window of "
                                               f"{length} moves at jump {i}, seeded")
                        if moves_now is not None and moves_now < replay(b, cur.pair, best):
                            restart = True
                            break
        if deadline is None or time.monotonic() <= deadline:
            camp.finish_task(task, {cur.pair: camp.best[cur.pair].moves})
            say(f"{task}: {camp.best[cur.pair].moves} moves, {time.monotonic() - t1:.1f} s")
