"""Every single-vacancy -> single-survivor problem of a board at once: shared layers met in the middle.

Vocabulary (as native_search/peg/bfs.py: bitboards, moves = one peg's whole jump chain):
- F[v][d]: the positions first reached after exactly d moves from "every hole full but v", stored as
  sorted canonical forms under G_v, the symmetries fixing v (so the set is closed under G_v).
  Computed once per vacancy v and shared by all of v's finishes.
- B[f0][e]: the positions whose distance to the single peg in f0 is exactly e moves (unjump layers),
  canonical under G_f0; computed once per *orbit* of finish holes (f0 its least hole) and carried to
  every finish f = g(f0) of the orbit by the symmetry g.
- A problem (v, f) meets them: M[e] = B[f][e] carried into v's frame (apply g to every position of
  B[f0][e], canonicalise under G_v), then F[v][d] ∩ M[e] by a linear merge. A backward layer too
  large to carry (more than `carry_max` images) is met in f0's frame instead: every G_v-image of
  the forward positions, moved by g^-1 and canonicalised under G_f0, against B[f0][e] itself — the
  same test (x is in B[f][e] iff g^-1 x is in B[f0][e]), without a copy of the large layer.

Proof (the bidirectional argument, for layers 0..A forward and 0..E backward): a solution of s
moves passes, after min(s, A) moves, through a position at forward distance ≤ A and backward
distance ≤ E when s ≤ A + E; so no common position means more than A + E moves, and otherwise the
least d + e over the common positions is the minimum (and the solution is rebuilt through the
layers). A side searched to its end (an empty layer) decides alone: the finish is in F[v] or it is
not (impossible). Beyond A + E, the successors of F[v][A] are *streamed* (generated in slices, never
stored) j = 1..stream moves further and met with B[f][E]: a meeting at level j after none before
is a solution of A + j + E moves and the minimum; none at any level proves more than A + stream + E
moves, a lower bound reported as such (status UNKNOWN), never as a minimum.

Layers grow until the next one is predicted (from the last growth factor) to pass the caps
`max_forward` / `max_backward` (positions per layer); memory is that of the largest layers kept.

>>> from puzzlesat.puzzles.peg import board
>>> t = solve_table(board("triangle5"), [(0, 0), (4, 4), (3, 3)])
>>> [(p, t[p].status.value, t[p].moves) for p in sorted(t)]
[((0, 0), 'OPTIMAL', 10), ((3, 3), 'OPTIMAL', 9), ((4, 4), 'INFEASIBLE', None)]
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from numba import njit

from ...core.inputs import read_text
from ...core.limits import MAX_INPUT_BYTES, PEG_BITBOARD_HOLES
from ...core.result import CheckError, InputError, Status
from ...puzzles.peg import Board, Hole, PegInstance, Solution, check, hole_label, moves

from . import bfs
from .bfs import (BYTE, EIGHT, ZERO, Space, _bits, _unique, all_vacancies, common_sorted, contains,
                  merge_unique)
from .disk import OutOfTime

Perm = tuple[int, ...]     # hole h goes to perm[h]
Pair = tuple[Hole, Hole]   # (vacate, finish)

MAX_FORWARD = 60_000_000   # default cap: positions in one forward layer
MAX_BACKWARD = 30_000_000  # default cap: positions in one backward layer
SLICE = 1 << 16            # forward positions expanded per streamed slice
CARRY_MAX = 50_000_000     # a backward layer with more images is met in its own frame, not carried


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def apply_many(ps, table, nbytes):
    """The images of bitboards under one permutation tabulated per byte (table[j, byte])."""
    out = np.empty(ps.shape[0], np.uint64)
    for i in range(ps.shape[0]):
        q = ZERO
        x = ps[i]
        for j in range(nbytes):
            q |= table[j, x & BYTE]
            x >>= EIGHT
        out[i] = q
    return out


# ---- helpers ----------------------------------------------------------------------------------
def perm_table(perm: Perm, n: int) -> np.ndarray:
    """Per-byte image table of one permutation (for apply_many)."""
    nbytes = (n + 7) // 8
    full = (1 << n) - 1
    t = np.zeros((nbytes, 256), np.uint64)
    for j in range(nbytes):
        for v in range(256):
            t[j, v] = bfs._image(perm, (v << (8 * j)) & full)
    return t


def compose(g: Perm, h: Perm) -> Perm:
    """g after h."""
    return tuple(g[h[i]] for i in range(len(h)))


def inverse(g: Perm) -> Perm:
    inv = [0] * len(g)
    for i, x in enumerate(g):
        inv[x] = i
    return tuple(inv)


def stabiliser(b: Board, h: Hole) -> list[Perm]:
    return [tuple(g) for g in b.symmetries if g[h] == h]


@dataclass
class Answer:
    """One problem settled as far as the layers reach: status OPTIMAL (moves exact, with a
    solution), INFEASIBLE (a side searched to its end without the other's root), or UNKNOWN
    (only `lower` is proved: no solution has fewer moves)."""

    vacate: Hole
    finish: Hole
    status: Status
    moves: int | None
    lower: int
    solution: Solution | None
    how: str
    meet: tuple[int, int] | None = None
    upper: int | None = None       # moves of `solution` when status is UNKNOWN


@dataclass
class _Side:
    """Layers from one root: canonical under `space`'s group; `done` = searched to its end."""

    space: Space
    layers: list[np.ndarray]
    done: bool
    seconds: float = 0.0

    @property
    def depth(self) -> int:
        return len(self.layers) - 1


def _grow(space: Space, root: int | np.ndarray, backward: bool, cap: int, deadline: float | None,
          depth: int | None = None) -> _Side:
    """Layers from `root` until one is empty (done), the next is predicted to pass `cap`, or
    layer `depth` (if given; then `cap` only stops a layer that is itself larger than `cap`), or
    `deadline` passes (checked inside each layer too: the unfinished layer is dropped)."""
    t0 = time.monotonic()
    roots = root if isinstance(root, np.ndarray) else _unique(space.canon([root]))
    gen = bfs.layers(space, roots, backward, deadline=deadline)
    out = [next(gen)]
    done = False
    while True:
        last = len(out[-1])
        prev = len(out[-2]) if len(out) > 1 else 1
        if depth is not None:
            if len(out) > depth or last > cap:
                break
        elif last * max(1.0, last / max(prev, 1)) > cap and len(out) > 1:
            break
        if deadline is not None and time.monotonic() > deadline:
            break
        try:
            nxt = next(gen, None)
        except OutOfTime:
            break
        if nxt is None or len(nxt) == 0:
            done = True
            break
        out.append(nxt)
    gen.close()
    return _Side(space, out, done, time.monotonic() - t0)


@dataclass
class Table:
    """The shared layers of a board's problem set and the answers; stats for reports."""

    board: Board
    answers: dict[Pair, Answer] = field(default_factory=dict)
    stats: dict = field(default_factory=dict)


def solve_table(b: Board, pairs: Sequence[Pair], *, max_forward: int = MAX_FORWARD,
                max_backward: int = MAX_BACKWARD, stream: int = 1, time_limit: float | None = None,
                forward_depth: int | None = None, backward_depth: int | None = None,
                beam_width: int = 0, beam_depth: int = 3, carry_max: int = CARRY_MAX,
                progress: Callable[[str], None] | None = None) -> dict[Pair, Answer]:
    """Answer every (vacate, finish) pair (see the module docstring); `stream` = forward moves
    generated past the stored layers; `time_limit` (seconds, all pairs together) stops growing and
    streaming: what is not settled by then is UNKNOWN with its proved lower bound;
    `forward_depth` / `backward_depth` fix the stored depths (then the caps only stop at a layer
    that is itself larger than the cap); `carry_max`: a backward layer with more images under its
    group is met in its own frame rather than carried (the answers are the same). A problem left
    unmet gets a beam search
    (native_search/peg/beam.py, `beam_width` positions a layer, its own backward layers to
    `beam_depth`; 0 = none) for a solution: one with the proved lower bound settles it."""
    s = TableSolver(b, max_forward, max_backward, stream, time_limit, progress)
    s.forward_depth, s.backward_depth = forward_depth, backward_depth
    s.beam_width, s.beam_depth = beam_width, beam_depth
    s.carry_max = carry_max
    return s.run(pairs).answers


class TableSolver:
    def __init__(self, b: Board, max_forward: int, max_backward: int, stream: int,
                 time_limit: float | None, progress: Callable[[str], None] | None):
        if b.n > PEG_BITBOARD_HOLES:
            raise ValueError(f"bitboards hold at most {PEG_BITBOARD_HOLES} holes (board {b.name} "
                             f"has {b.n})")
        self.b, self.n = b, b.n
        self.full = (1 << b.n) - 1
        self.max_forward, self.max_backward, self.stream = max_forward, max_backward, stream
        self.t0 = time.monotonic()
        self.deadline = None if time_limit is None else self.t0 + time_limit
        self.say = progress or (lambda s: None)
        self.table = Table(b)
        self.back: dict[Hole, _Side] = {}
        self.forward_depth: int | None = None
        self.backward_depth: int | None = None
        self.beam_width, self.beam_depth, self.beam_levels = 0, 3, 6
        self.carry_max = CARRY_MAX
        self._beyond: dict[int, np.ndarray] = {}  # beam levels past the stored layers, by depth

    def _space(self, h: Hole) -> Space:
        inst = PegInstance(f"{self.b.name}:{h}", self.b, frozenset(range(self.n)) - {h}, frozenset({h}))
        return Space(inst, stabiliser(self.b, h))

    def _late(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def run(self, pairs: Sequence[Pair]) -> Table:
        b = self.b
        f0_of = {f: min(g[f] for g in b.symmetries) for _, f in pairs}
        for f0 in sorted(set(f0_of.values())):
            side = _grow(self._space(f0), 1 << f0, True, self.max_backward, self.deadline,
                         self.backward_depth)
            self.back[f0] = side
            self.say(f"backward {f0}: layers {[len(x) for x in side.layers]}"
                     f"{' (complete)' if side.done else ''} {side.seconds:.1f} s")
        st = self.table.stats
        st["backward_layers"] = {f0: [len(x) for x in s.layers] for f0, s in self.back.items()}
        st["forward_layers"] = {}
        by_v: dict[Hole, list[Hole]] = {}
        for v, f in pairs:
            by_v.setdefault(v, []).append(f)
        for v in sorted(by_v):
            self._vacancy(v, by_v[v], f0_of)
        st["seconds"] = round(time.monotonic() - self.t0, 3)
        return self.table

    # ---- one vacancy --------------------------------------------------------------------------
    def _carry(self, sv: Space, f: Hole, f0: Hole, e: int) -> np.ndarray:
        """B[f][e] in v's frame: every position of B[f0][e] moved by g (g(f0) = f), canonical
        under G_v, sorted and unique."""
        sb = self.back[f0].space
        g = next(tuple(g) for g in self.b.symmetries if g[f0] == f)
        reps = self.back[f0].layers[e]
        parts = [apply_many(reps, perm_table(compose(g, h), self.n), sv.nbytes) for h in sb.group]
        return _unique(sv.canon(np.concatenate(parts)))

    def _in_back(self, x: int, f: Hole, f0: Hole, e: int) -> bool:
        """Is the actual position x at distance exactly e from the single peg in f?"""
        g = next(tuple(g) for g in self.b.symmetries if g[f0] == f)
        y = bfs._image(inverse(g), x)
        side = self.back[f0]
        return contains(side.layers[e], int(side.space.canon([y])[0]))

    def _carries(self, f0: Hole, e: int) -> bool:
        """Is B[f0][e] small enough to carry into a vacancy's frame (else: met in f0's frame)?"""
        return len(self.back[f0].layers[e]) * len(self.back[f0].space.group) <= self.carry_max

    def _meet_own_frame(self, sv: Space, ps: np.ndarray, f: Hole, f0: Hole, e: int) -> int | None:
        """An element of ps (positions canonical under G_v) whose G_v-orbit meets B[f][e], tested
        in f0's frame (every image k x, k in G_v, moved by g^-1 and canonicalised under G_f0,
        looked up in B[f0][e]); None if there is none."""
        g = next(tuple(g) for g in self.b.symmetries if g[f0] == f)
        side = self.back[f0]
        gi = inverse(g)
        for k in sv.group:
            t = side.space.canon(apply_many(ps, perm_table(compose(gi, tuple(k)), self.n), sv.nbytes))
            hit = common_sorted(_unique(t), side.layers[e])
            if len(hit):
                return int(ps[np.flatnonzero(t == hit[0])[0]])
        return None

    def _meet(self, sv: Space, ps: np.ndarray, f: Hole, f0: Hole, e: int,
              m: np.ndarray | None) -> int | None:
        """An element of sorted ps (canonical under G_v) whose G_v-orbit meets B[f][e]: by the
        carried layer m (B[f][e] in v's frame), or in f0's frame when m is None; None if none."""
        if m is None:
            return self._meet_own_frame(sv, ps, f, f0, e)
        hit = common_sorted(ps, m)
        return int(hit[0]) if len(hit) else None

    def _vacancy(self, v: Hole, finishes: list[Hole], f0_of: dict) -> None:
        sv = self._space(v)
        fwd = _grow(sv, self.full ^ (1 << v), False, self.max_forward, self.deadline,
                    self.forward_depth)
        self.table.stats["forward_layers"][v] = [len(x) for x in fwd.layers]
        self.say(f"forward {v}: layers {[len(x) for x in fwd.layers]}"
                 f"{' (complete)' if fwd.done else ''} {fwd.seconds:.1f} s")
        A = fwd.depth
        pending: list[Hole] = []  # finishes not met within the stored layers
        for f in finishes:
            f0 = f0_of[f]
            bwd = self.back[f0]
            E = bwd.depth
            best = None
            for e in range(E + 1):
                m = self._carry(sv, f, f0, e) if self._carries(f0, e) else None
                for d in range(A + 1):
                    if best is not None and d + e >= best[0]:
                        break
                    rep = self._meet(sv, fwd.layers[d], f, f0, e, m)
                    if rep is not None:
                        best = (d + e, d, e, rep)
                del m
            if best is None and not (fwd.done or bwd.done):
                pending.append(f)
            if best is not None:
                s, d, e, rep = best
                sol = self._solution(sv, fwd, v, f, f0, d, e, rep)
                self._answer(Answer(v, f, Status.OPTIMAL, s, s, sol, "search", (d, e), s))
            elif fwd.done or bwd.done:
                self._answer(Answer(v, f, Status.INFEASIBLE, None, A + E + 1, None,
                                    "search: the {} side ran out of positions".format(
                                        "forward" if fwd.done else "backward")))
        if self.stream == 0:
            for f in pending:
                self._unsettled(v, f, A + self.back[f0_of[f]].depth + 1, "bound")
            pending = []
        batch: dict[Hole, np.ndarray | None] = {}  # finish -> B[f][E] in v's frame (None: met in f0's)
        for i, f in enumerate(pending):  # streamed in batches of ≤ 4 * max_backward positions
            f0 = f0_of[f]
            E = self.back[f0].depth
            batch[f] = self._carry(sv, f, f0, E) if self._carries(f0, E) else None
            if (sum(len(m) for m in batch.values() if m is not None) > 4 * self.max_backward
                    or i == len(pending) - 1):
                self._stream(sv, fwd, v, batch, f0_of)
                batch = {}

    def _stream(self, sv: Space, fwd: _Side, v: Hole, pending: dict[Hole, np.ndarray | None],
                f0_of: dict) -> None:
        """Successors of F[v][A], 1..stream moves on, generated depth-first in slices and met with
        B[f][E] for each pending finish. If the walk completes, the least level j met is exact
        (A + j + E) and an unmet finish needs more than A + stream + E moves; if the time limit
        cuts it, only A + E + 1 is proved and a meeting is an upper bound (status UNKNOWN)."""
        A = fwd.depth
        found: dict[Hole, tuple[int, int]] = {}  # finish -> (least level met, rep)
        # the union of the carried layers: a chunk is met with it once, and only the few positions
        # in it with each finish's layer (chunk ∩ M[f] = (chunk ∩ union) ∩ M[f], as M[f] ⊆ union)
        carried = [m for m in pending.values() if m is not None]
        union = None
        if len(carried) > 1:
            union = carried[0]
            for m in carried[1:]:
                union = merge_unique(union, m)
        W = self.beam_width
        # the best W level-1 positions so far (scores alongside), and a buffer of scored chunks
        top = [np.empty(0, np.uint64), np.empty(0, np.int64), [], []]
        if W:
            from .beam import _neighbours, _scores
            nbs = _neighbours(sv.inst)

        def keep_best(force: bool = False) -> None:
            if not W or (not force and sum(map(len, top[2])) < 4 * W):
                return
            ps = np.concatenate([top[0], *top[2]])
            sc = np.concatenate([top[1], *top[3]])
            if len(ps) > W:
                idx = np.argpartition(sc, W)[:W]
                ps, sc = ps[idx], sc[idx]
            top[:] = [ps, sc, [], []]

        def walk(chunk: np.ndarray, level: int) -> bool:
            if level > 0:
                cand = chunk if union is None else common_sorted(chunk, union)
                for f, m in pending.items():
                    if f not in found or found[f][0] > level:
                        f0 = f0_of[f]
                        rep = self._meet(sv, chunk if m is None else cand, f, f0,
                                         self.back[f0].depth, m)
                        if rep is not None:
                            found[f] = (level, rep)
            if level == 1 and W:
                top[2].append(chunk)
                top[3].append(_scores(chunk, *nbs))
                keep_best()
            if level == self.stream or all(f in found and found[f][0] <= level + 1 for f in pending):
                return True
            for i in range(0, len(chunk), SLICE):
                if self._late():
                    return False
                nxt = sv.expand(chunk[i:i + SLICE], False, np.empty(0, np.uint64), {"nodes": 0})
                if not walk(nxt, level + 1):
                    return False
            return True

        t0 = time.monotonic()
        complete = walk(fwd.layers[-1], 0)
        self.say(f"streamed {self.stream} level(s) past forward layer {A} of {v}: "
                 f"{'complete' if complete else 'cut by the time limit'}, {time.monotonic() - t0:.1f} s")
        beamed: dict[Hole, tuple[int, int]] = {}  # finish -> (beam level met, rep)
        levels: dict[int, np.ndarray] = {}  # the beam, by forward depth
        unmet = [f for f in pending if f not in found]
        if W and unmet and self.stream >= 1:
            t0 = time.monotonic()
            keep_best(force=True)
            beam, level = _unique(top[0]), 1
            levels[A + 1] = beam
            while unmet and level < self.beam_levels and len(beam) and not self._late():
                level += 1
                nxt = sv.expand(beam, False, np.empty(0, np.uint64), {"nodes": 0})
                for f in unmet:
                    f0 = f0_of[f]
                    rep = self._meet(sv, nxt, f, f0, self.back[f0].depth, pending[f])
                    if rep is not None:
                        beamed[f] = (level, rep)
                unmet = [f for f in unmet if f not in beamed]
                if len(nxt) > W:
                    nxt = np.sort(nxt[np.argpartition(_scores(nxt, *nbs), W)[:W]])
                beam = levels[A + level] = nxt
            self.say(f"beam of {W} past level 1 of {v}: met {len(beamed)} of "
                     f"{len(beamed) + len(unmet)} to level {level}, {time.monotonic() - t0:.1f} s")
        for f in pending:
            f0 = f0_of[f]
            E = self.back[f0].depth
            lower = A + E + 1 + (self.stream if complete else 0)
            if f in found:
                j, rep = found[f]
                sol = self._solution(sv, fwd, v, f, f0, A + j, E, rep)
                if complete:
                    self._answer(Answer(v, f, Status.OPTIMAL, A + j + E, A + j + E, sol, "search",
                                        (A + j, E), A + j + E))
                else:
                    self._answer(Answer(v, f, Status.UNKNOWN, None, A + E + 1, sol,
                                        "time limit", None, moves(sol)))
            elif f in beamed:
                j, rep = beamed[f]
                self._beyond = levels  # a beam position's parent is in the previous beam level
                sol = self._solution(sv, fwd, v, f, f0, A + j, E, rep)
                self._beyond = {}
                k = moves(sol)  # at most A + j + E (a beam position may be nearer the start)
                assert k >= lower, f"beam solution of {k} moves below the proved bound {lower}"
                if k == lower:
                    self._answer(Answer(v, f, Status.OPTIMAL, lower, lower, sol,
                                        "search + beam", None, lower))
                else:
                    self._answer(Answer(v, f, Status.UNKNOWN, None, lower, sol,
                                        ("bound" if complete else "time limit") + " + beam",
                                        None, k))
            else:
                self._answer(Answer(v, f, Status.UNKNOWN, None, lower, None,
                                    "bound" if complete else "time limit"))

    def _unsettled(self, v: Hole, f: Hole, lower: int, why: str) -> None:
        """No meeting within the layers: a beam search may still find a solution; one with
        `lower` moves settles the problem (OPTIMAL), else it is an upper bound (UNKNOWN)."""
        sol = None
        if self.beam_width and not self._late():
            from .beam import beam_solution
            inst = PegInstance(f"{self.b.name}:{v}->{f}", self.b, frozenset(range(self.n)) - {v},
                               frozenset({f}))
            t0 = time.monotonic()
            sol = beam_solution(inst, self.beam_width, self.beam_depth)
            self.say(f"beam {v} -> {f}: {moves(sol) if sol else 'none'} ({time.monotonic() - t0:.1f} s)")
        if sol is not None and moves(sol) == lower:
            self._answer(Answer(v, f, Status.OPTIMAL, lower, lower, sol,
                                "search + beam", None, lower))
        elif sol is not None:
            self._answer(Answer(v, f, Status.UNKNOWN, None, lower, sol, why + " + beam",
                                None, moves(sol)))
        else:
            self._answer(Answer(v, f, Status.UNKNOWN, None, lower, None, why))

    def _answer(self, a: Answer) -> None:
        self.table.answers[(a.vacate, a.finish)] = a
        self.say(f"  {a.vacate} -> {a.finish}: {a.status.value} {a.moves} (≥ {a.lower}, ≤ {a.upper}) "
                 f"{a.how} {[list(j) for j in a.solution] if a.solution else ''}")

    # ---- rebuilding one solution ----------------------------------------------------------------
    def _solution(self, sv: Space, fwd: _Side, v: Hole, f: Hole, f0: Hole, d: int, e: int,
                  rep: int) -> Solution:
        """Jumps start -> y (d moves) -> f (e moves), y the position of rep's G_v orbit in B[f][e]."""
        y = next(x for x in (bfs._image(g, rep) for g in sv.group)
                 if self._in_back(x, f, f0, e))
        chains = self._forward_path(sv, fwd, y, d)
        assert chains is not None, "reconstruction: no forward path through the layers"
        x = y
        for k in range(e, 0, -1):
            x, ch = next((q, ch) for q, ch in sv.chains(x) if self._in_back(q, f, f0, k - 1))
            chains.append(ch)
        assert x == 1 << f
        return tuple(j for ch in chains for j in ch)

    def _forward_path(self, sv: Space, fwd: _Side, y: int, d: int) -> list | None:
        """Chains from the start to the actual position y in d moves (y at forward depth d, or a
        streamed level d - A), or None."""
        start = _bits(sv.inst.start)
        if d == 0:
            return [] if y == start else None
        A = fwd.depth
        for q, unjumps in sv.chains(y, backward=True):
            if d - 1 <= A and not contains(fwd.layers[d - 1], int(sv.canon([q])[0])):
                continue
            if d - 1 in self._beyond and not contains(self._beyond[d - 1], int(sv.canon([q])[0])):
                continue
            rest = self._forward_path(sv, fwd, q, d - 1)
            if rest is not None:
                return rest + [[(c, m, a) for a, m, c in reversed(unjumps)]]
        return None


# ---- the minimum over every problem at once ---------------------------------------------------
@dataclass
class Least:
    """The least moves over every single-vacancy -> single-survivor problem of a board: `moves`
    (exact, with `solution` for the problem `pair`) or only `lower` (proved) when not met."""

    moves: int | None
    lower: int
    pair: Pair | None
    solution: Solution | None
    layers_forward: list[int]
    layers_backward: list[int]
    seconds: float
    stats: dict = field(default_factory=dict)


def _walk(sp: Space, fwd: list, bwd: list, beams: dict, d: int, e: int, m: int, A: int
          ) -> tuple[Pair, Solution]:
    """From the common position m (forward depth d, backward depth e) back through the forward
    layers (or beam levels past A) to some single-vacancy start and on through the backward
    layers to some single peg: the problem (vacate, finish) and its jumps."""
    full = sp.full
    chains: list = []
    x = m
    for k in range(d, 0, -1):  # back to some single-vacancy start
        x, unjumps = next((q, u) for q, u in sp.chains(x, backward=True)
                          if contains(fwd[k - 1] if k - 1 <= A else beams[k - 1],
                                      int(sp.canon([q])[0])))
        chains.append([(c, mm, a) for a, mm, c in reversed(unjumps)])
    chains.reverse()
    v = (full ^ x).bit_length() - 1
    x = m
    for k in range(e, 0, -1):  # on to some single peg
        x, ch = next((q, ch) for q, ch in sp.chains(x) if contains(bwd[k - 1], int(sp.canon([q])[0])))
        chains.append(ch)
    f = x.bit_length() - 1
    return (v, f), tuple(j for ch in chains for j in ch)


def replayed(b: Board, pair: Pair, sol: Solution, claimed: int | None = None) -> int:
    """The moves of `sol` for the problem `pair` (vacate, finish) as the independent checker
    (puzzles.peg.check) replays it; CheckError if it breaks a rule or has other moves than
    `claimed`."""
    v, f = pair
    inst = PegInstance(f"{b.name}:{v}->{f}", b, frozenset(range(b.n)) - {v}, frozenset({f}))
    got = check(inst, sol)
    if claimed is not None and got != claimed:
        raise CheckError(f"{b.name} {v}->{f}: the solution has {got} moves, not {claimed}")
    return got


def solution_text(b: Board, pair: Pair, sol: Solution) -> str:
    """One line: the problem and its jumps (from-to)."""
    return (f"{hole_label(b, pair[0])} -> {hole_label(b, pair[1])}: "
            + " ".join(f"{hole_label(b, a)}-{hole_label(b, c)}" for a, _, c in sol))


def _upper_path(work_dir, b: Board) -> Path:
    """The file of the best replayed solution of board b's least search in `work_dir`."""
    from .disk import search_key
    key = search_key(kind="peg-least-upper", n=b.n, lines=sorted(b.lines))
    digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return Path(work_dir) / f"peg-least-upper-{digest}.json"


def _load_upper(work_dir, b: Board, say) -> tuple[int, Pair, Solution] | None:
    """The solution stored by an earlier run, replayed again by the checker (None: none, or it
    does not replay: then it is not used)."""
    if work_dir is None:
        return None
    path = _upper_path(work_dir, b)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        d = json.loads(read_text(path, MAX_INPUT_BYTES, "stored solution"))
        pair = (int(d["pair"][0]), int(d["pair"][1]))
        sol = tuple(tuple(int(h) for h in j) for j in d["solution"])
        k = replayed(b, pair, sol, int(d["moves"]))
    except (CheckError, InputError, KeyError, TypeError, ValueError, IndexError, RecursionError) as e:
        say(f"the stored solution in {path} is not used: {e}")
        return None
    say(f"stored solution of {k} moves, replayed by the checker ({solution_text(b, pair, sol)})")
    return k, pair, sol


def _store_upper(work_dir, b: Board, best: tuple[int, Pair, Solution], how: str) -> None:
    """Keep a replayed solution in `work_dir` (atomically), for the report and later runs."""
    if work_dir is None:
        return
    k, pair, sol = best
    path = _upper_path(work_dir, b)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"board": b.name, "moves": k, "pair": list(pair),
                               "solution": [list(j) for j in sol], "found": how,
                               "replayed": "puzzles.peg.check"}, sort_keys=True))
    os.replace(tmp, path)


def _refuted_path(work_dir, b: Board) -> Path:
    """The file of the largest K refuted (every problem needs more moves) in `work_dir`."""
    return _upper_path(work_dir, b).with_name(
        _upper_path(work_dir, b).name.replace("peg-least-upper-", "peg-least-refuted-"))


def _refuted_context(b: Board) -> str:
    """What a refutation record's seal binds it to: the board and its jump lines."""
    return "peg-least-refuted " + b.name + " " + hashlib.sha256(
        json.dumps(sorted(b.lines)).encode()).hexdigest()


def _load_refuted(work_dir, b: Board, say) -> int:
    """The largest K an earlier run with this folder refuted by complete layers (0: none). A
    refutation cannot be checked cheaply: it counts only with this user's seal (core.seal; not
    with --recheck), so a forged or copied record cannot lift the lower bound."""
    from ...core.seal import unsealed_why, verified
    if work_dir is None:
        return 0
    path = _refuted_path(work_dir, b)
    if not path.exists() and not path.is_symlink():
        return 0
    try:
        d = json.loads(read_text(path, MAX_INPUT_BYTES, "stored refutation"))
        if not verified(d, _refuted_context(b)):
            raise ValueError(unsealed_why())
        k = int(d["refuted"])
        if d.get("board") != b.name or k < 0:
            raise ValueError(f"board {d.get('board')!r}, K {k}")
    except (InputError, KeyError, TypeError, ValueError, RecursionError) as e:
        say(f"the stored refutation in {path} is not used: {e}")
        return 0
    say(f"an earlier run refuted K={k}: every problem needs at least {k + 1} moves")
    return k


def _store_refuted(work_dir, b: Board, k: int) -> None:
    """Keep "no problem is solved within K moves" (complete layers proved it) in `work_dir`."""
    if work_dir is None or k <= _load_refuted(work_dir, b, lambda s: None):
        return
    from ...core.seal import STAMP, now, sign
    path = _refuted_path(work_dir, b)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    rec = sign({"board": b.name, "refuted": k, "how": "complete pruned layers without a meeting "
                "(table.least_by_bound)", STAMP: now()}, _refuted_context(b))
    tmp.write_text(json.dumps(rec, sort_keys=True))
    os.replace(tmp, path)


def least_by_bound(b: Board, *, max_moves: int | None = None, beam_width: int = 0,
                   beam_levels: int = 4, memory: int | None = None, work_dir: str | None = None,
                   disk_limit: int | None = None, progress: Callable[[str], None] | None = None,
                   time_limit: float | None = None, expander=None,
                   backward_depth: int | None = None, fit_check: bool = True,
                   keep_free: int | None = None) -> Least:
    """The least minimum over all single-vacancy -> single-survivor problems by pruned searches
    (native_search/peg/bound.py): for K = `max_moves`, or ascending from the least bound of any
    start, one bidirectional search (bfs.meet) between the set of all single-vacancy starts
    and the set of all single pegs, canonical under the whole symmetry group, keeping a forward
    position at depth d only if d + its bound (to any single peg) <= K and a backward one at depth e
    only if e + its bound (from any single vacancy) <= K. The first K whose layers meet gives the
    minimum (its least meeting); a K that does not meet proves every problem needs more than K
    moves. After such a K, when its search generated more than ten times `beam_width` successors,
    a beam (`beam_width` > 0: the best of the last forward layer by the beam score,
    `beam_levels` levels on, met with every backward layer) may find a solution; one of K + 1
    moves settles the minimum (the beam runs after each such K while the best solution known is
    longer than K + 1; the shortest is kept). Every solution (the minimum's, the beam's upper
    bound) is replayed by the checker before it is reported (CheckError if it does not replay:
    never reported); with `work_dir` the best one is kept there (peg-least-upper-*.json) and a
    later run starts from it, replayed again. Layers as bfs.search: within `memory`, else on
    disk; with `work_dir` resumable; past `disk_limit` or `time_limit` the answer is the proved
    lower bound (moves None); `expander` expands the layers (bfs.next_layer: e.g. chunk jobs
    on a cluster); `backward_depth` caps the backward layers (default: the side that generates
    fewer successors grows, bfs.meet). `fit_check`: before each K, estimate.estimate_least
    builds its first layers in the search's own folder (kept for the search) and projects the rest
    (assuming backward depth 1 when none is given); estimate.WontFit, with the figures, when even
    the low projection needs more disk than `disk_limit`, or than the free space plus the bytes
    that folder already holds less `keep_free` bytes (default estimate.KEEP_FREE), allows."""
    from ...core.result import Context
    from .bound import backward_bound, forward_bound
    from .disk import Store
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    sp, starts, pegs = all_vacancies(b)
    inst, group = sp.inst, sp.group
    fb, bb = forward_bound(b, None), backward_bound(b, None)
    k = max_moves if max_moves is not None else max(1, int(fb.of(starts).min()), int(bb.of(pegs).min()))
    k = min(k, b.n - 2)
    stats = {"refuted": [], "disk_peak_bytes": 0, "layers_on_disk": 0, "layers_resumed": 0,
             "nodes": 0, "bound": [fb.description, bb.description]}
    # the shortest solution found (an upper bound), replayed by the checker
    best: tuple[int, Pair, Solution] | None = _load_upper(work_dir, b, say)
    # K refuted by an earlier run with this folder: the bound holds, those K are not searched again
    done = _load_refuted(work_dir, b, say)
    lower = done + 1 if done else 0
    if done:
        stats["refuted_before"] = done
        if best is not None and best[0] == lower:  # the stored solution meets the bound
            say(f"settled by the folder: {lower} moves")
            return Least(best[0], lower, best[1], best[2], [], [], time.monotonic() - t0,
                         _fin(stats, None, k))
        beam_wanted = beam_width and (best is None or best[0] > max_moves + 1) \
            if max_moves is not None else False
        if max_moves is not None and max_moves <= done and not beam_wanted:
            # (with a beam wanted, K's layers are read back from the folder to start it from)
            return _least_open(best, lower, [], [], t0, _fin(stats, None, max_moves),
                               f"no solution within {max_moves} moves (refuted before: K={done})")
        if max_moves is None:
            k = max(k, done + 1)
    lf: list[int] = []
    lb: list[int] = []

    def prog(f: dict) -> None:
        say(f"K={k} {f['side']} layer {f['layer']}: {f['size']} positions "
            f"({f['nodes']} successors, {f['elapsed']:.1f} s)")

    ctx = Context(time_limit=time_limit, progress=prog)
    while True:
        if fit_check:
            from .estimate import KEEP_FREE, WontFit, estimate_least
            est = estimate_least(b, k, backward_depth, work_dir, memory, disk_limit,
                                 KEEP_FREE if keep_free is None else keep_free, progress=say)
            stats.setdefault("estimates", []).append(est.json())
            for line in est.lines():
                say(line)
            if not est.fits:
                raise WontFit(est)
        key = bfs.search_key(inst, sp, least=True, K=k, bound=stats["bound"],
                                 backward_depth=backward_depth)
        key.pop("start"), key.pop("finish")
        store = Store(work_dir, key, memory, disk_limit, prefix="peg-least")
        res = bfs.Result(None, None, group_order=len(group))
        try:
            fwd, bwd, meeting = bfs.meet(sp, [starts], pegs, res, store, ctx, t0, True, False,
                                             K=k, fb=fb, bb=bb, expander=expander,
                                             backward_depth=backward_depth)
            lf, lb = res.layers_forward, res.layers_backward
            stats["nodes"] += res.nodes
            stats["layers_on_disk"] += res.spilled
            stats["layers_resumed"] += res.resumed
            stats["positions_resumed_inside"] = (stats.get("positions_resumed_inside", 0)
                                                 + res.resumed_inside)
            lower = max(lower, res.lower)
            if meeting is not None:
                d, e, m = meeting
                pair, sol = _walk(sp, fwd, bwd, {}, d, e, m, len(fwd) - 1)
                replayed(b, pair, sol, d + e)
                _store_upper(work_dir, b, (d + e, pair, sol), f"the least meeting at K={k}")
                say(f"K={k}: met at {d} + {e} = {d + e} moves, replayed by the checker "
                    f"({solution_text(b, pair, sol)}) {time.monotonic() - t0:.1f} s")
                return Least(d + e, d + e, pair, sol, lf, lb, time.monotonic() - t0,
                             _fin(stats, store, k))
            if res.out_of_disk or res.out_of_time:
                say(f"K={k}: stopped ({res.reason})")
                return _least_open(best, lower, lf, lb, t0, _fin(stats, store, k), res.reason)
            stats["refuted"].append(k)
            _store_refuted(work_dir, b, k)
            say(f"K={k}: no solution within {k} moves ({res.reason}) {time.monotonic() - t0:.1f} s")
            # the beam costs about as much as a search of a few times its width: worth it only
            # after a search that cost more (small K: the next K's search is cheaper), and only
            # while the best solution known is longer than K + 1 (it could be beaten)
            if (best is None or best[0] > k + 1) and beam_width and len(fwd[-1]) \
                    and res.nodes > 10 * beam_width:
                found = _beam_from(sp, fwd, bwd, beam_width, beam_levels, inst)
                if found is not None:
                    replayed(b, found[1], found[2], found[0])
                    say(f"beam of {beam_width}: a solution of {found[0]} moves, replayed by the "
                        f"checker ({solution_text(b, found[1], found[2])}) "
                        f"{time.monotonic() - t0:.1f} s")
                    if best is None or found[0] < best[0]:
                        best = found
                        _store_upper(work_dir, b, best, f"beam of {beam_width} after K={k}")
        finally:
            stats["disk_peak_bytes"] = max(stats["disk_peak_bytes"], store.peak_disk)
            store.close()
        if best is not None and best[0] < lower:
            raise CheckError(f"a replayed solution of {best[0]} moves is below the proved bound "
                             f"{lower}")
        if best is not None and best[0] == lower:
            return Least(best[0], lower, best[1], best[2], lf, lb, time.monotonic() - t0,
                         _fin(stats, None, k))
        if max_moves is not None or k >= b.n - 2:
            return _least_open(best, lower, lf, lb, t0, _fin(stats, None, k),
                               f"no solution within {k} moves")
        k += 1


def _fin(stats: dict, store, k: int) -> dict:
    out = dict(stats)
    out["max_moves"] = k
    if store is not None:
        out["disk_peak_bytes"] = max(out["disk_peak_bytes"], store.peak_disk)
    return out


def _least_open(best, lower, lf, lb, t0, stats, reason) -> Least:
    stats = dict(stats, reason=reason)
    if best is None:
        return Least(None, lower, None, None, lf, lb, time.monotonic() - t0, stats)
    return Least(None, lower, best[1], best[2], lf, lb, time.monotonic() - t0, stats)


def _beam_from(sp: Space, fwd: list, bwd: list, width: int, levels: int, inst: PegInstance
               ) -> tuple[int, Pair, Solution] | None:
    """A solution through a beam from the last forward layer (the best `width` by the beam
    score, then `levels` levels of the best `width` successors), met with any backward layer;
    the shortest found (its real moves), or None."""
    from .beam import _neighbours, _scores
    nbs = _neighbours(inst)
    A = len(fwd) - 1
    last = np.asarray(fwd[-1])
    beam = last if len(last) <= width else np.sort(last[np.argpartition(_scores(last, *nbs), width)[:width]])
    beams = {A: beam}
    for j in range(1, levels + 1):
        nxt = sp.expand(beam, False, np.empty(0, np.uint64), {"nodes": 0})
        if len(nxt) > width:
            nxt = np.sort(nxt[np.argpartition(_scores(nxt, *nbs), width)[:width]])
        beams[A + j] = nxt
        for e in range(len(bwd)):
            hit = common_sorted(nxt, np.asarray(bwd[e]))
            if len(hit):
                pair, sol = _walk(sp, fwd, bwd, beams, A + j, e, int(hit[0]), A)
                return moves(sol), pair, sol
        beam = nxt
        if not len(beam):
            break
    return None


def least_over_all(b: Board, forward_depth: int | None = None, backward_depth: int | None = None,
                   stream: int = 1, beam_width: int = 0, beam_levels: int = 4,
                   max_forward: int = MAX_FORWARD, max_backward: int = MAX_BACKWARD,
                   progress: Callable[[str], None] | None = None) -> Least:
    """One bidirectional search between the *set* of all single-vacancy starts and the set of all
    single pegs, canonical under the whole symmetry group: its distance is the least minimum over
    all problems (OEIS A127500 on triangles). Forward layers to `forward_depth`, backward to
    `backward_depth` (None: grown by the caps, as in solve_table), then `stream` levels past the forward side met with the last backward layer;
    the first meeting is the minimum (the bidirectional argument of the module docstring, with sets
    as roots), no meeting proves a lower bound. Then a beam (`beam_width` > 0: the best of the
    streamed level by the beam score, `beam_levels` levels on) may find a solution: with the
    lower bound's moves it settles the minimum, else `moves` stays None and `solution` (with
    `pair`) is an upper bound."""
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    sp, starts, pegs = all_vacancies(b)
    inst = sp.inst
    fwd = _grow(sp, starts, False, max_forward, None, forward_depth).layers
    say(f"forward (all vacancies): {[len(x) for x in fwd]} {time.monotonic() - t0:.1f} s")
    bwd = _grow(sp, pegs, True, max_backward, None, backward_depth).layers
    say(f"backward (all single pegs): {[len(x) for x in bwd]} {time.monotonic() - t0:.1f} s")
    A, E = len(fwd) - 1, len(bwd) - 1
    best = None
    for s in range(A + E + 1):
        for d in range(max(0, s - E), min(A, s) + 1):
            hit = common_sorted(fwd[d], bwd[s - d])
            if len(hit):
                best = (d, s - d, int(hit[0]))
                break
        if best is not None:
            break
    level = 0
    W = beam_width
    top: list = []
    if W:
        from .beam import _neighbours, _scores
        nbs = _neighbours(inst)
    if best is None and stream >= 1:
        last = fwd[-1]
        for i in range(0, len(last), SLICE):
            nxt = sp.expand(last[i:i + SLICE], False, np.empty(0, np.uint64), {"nodes": 0})
            hit = common_sorted(nxt, bwd[-1])
            if len(hit):
                best = (A + 1, E, int(hit[0]))
                break
            if W:
                top.append(nxt[np.argpartition(_scores(nxt, *nbs), W)[:W]] if len(nxt) > W else nxt)
                if sum(map(len, top)) > 4 * W:
                    cand = _unique(np.concatenate(top))
                    top = [cand[np.argpartition(_scores(cand, *nbs), W)[:W]] if len(cand) > W else cand]
        level = 1
        say(f"streamed 1 level past forward layer {A}: {'met' if best else 'no meeting'} "
            f"{time.monotonic() - t0:.1f} s")
    lf, lb = [len(x) for x in fwd], [len(x) for x in bwd]
    lower = A + E + 1 + level
    beams: dict[int, np.ndarray] = {}
    if best is None and W and top:
        cand = _unique(np.concatenate(top))
        beam = cand[np.argpartition(_scores(cand, *nbs), W)[:W]] if len(cand) > W else cand
        beam = np.sort(beam)
        beams[A + 1] = beam
        for j in range(2, beam_levels + 2):
            nxt = sp.expand(beam, False, np.empty(0, np.uint64), {"nodes": 0})
            hit = common_sorted(nxt, bwd[-1])
            if len(hit):
                best = (A + j, E, int(hit[0]))
                break
            if len(nxt) > W:
                nxt = np.sort(nxt[np.argpartition(_scores(nxt, *nbs), W)[:W]])
            beam = beams[A + j] = nxt
        say(f"beam of {W}: {'met at ' + str(best[0] + best[1]) if best else 'no meeting'} "
            f"{time.monotonic() - t0:.1f} s")
    if best is None:
        return Least(None, lower, None, None, lf, lb, time.monotonic() - t0)
    d, e, m = best
    (v, f), sol = _walk(sp, fwd, bwd, beams, d, e, m, A)
    k = replayed(b, (v, f), sol)  # a beam position may be nearer the start than its level
    assert k >= lower or not beams, f"a solution of {k} moves below the proved bound {lower}"
    exact = not beams or k == lower
    return Least(k if exact else None, k if not beams else lower, (v, f), sol, lf, lb,
                 time.monotonic() - t0)
