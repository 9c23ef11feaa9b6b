"""Every jump sequence counted: a dynamic programme over the layers of positions by jumps.

Every jump removes one peg, so a position with k pegs is reached after exactly (pegs at the start
- k) jumps, whatever the route: layer d holds the positions d jumps from the start, and the number
of jump sequences from the start into a position is the sum over its predecessors in layer d - 1.
Counts are exact unsigned integers of W 64-bit words each (little-endian, an (N, W) uint64
array): the kernels add with carries and report a carry out of the top word, and the layer is
then summed again one word wider — a count never wraps, never passes through floating point.

Symmetry. Layers hold canonical positions (the least image under a group G of board symmetries
that fixes the start, the required first jump and, meeting a backward side, the finish set). Let
f(p) be the number of sequences from the start into p. Every g in G maps the sequences into p
one-to-one onto those into g(p), so f is constant on each orbit O(p). A canonical c stores the
*orbit total* h(c) = |O(c)| f(c), the sequences into any member of its orbit. Pushing h along
every jump of every canonical p is then exact without a division: the jump pairs (p', q') with
p' in O(p), q' in O(c') number |O(p)| * #{jumps p -> O(c')} = |O(c')| * #{predecessors of c' in
O(p)}, so h(c') = sum_p h(p) * #{jumps from p landing in O(c')} — exactly what the kernel sums
when it adds h(p) to canon(q) for each jump p -> q. Backward counts b(p) (sequences from p to the
goal set, pushed along unjumps from the goal set) have orbit totals the same way, and where the
sides meet after d + e = J jumps (J = the jumps of every solution) the number of solutions is

    sum over p in the meeting layer of f(p) b(p) = sum over canonical c of h_f(c) h_b(c) / |O(c)|,

each quotient exact (|O(c)| divides h_f(c); checked). With the forward side run to its end
(`direction="forward"`) the same layers give, besides the winning count, every *game*: each jump
sequence from the start until no jump is possible (the sum of h over the dead positions; Durango
Bill's "game sequences").

A run stopped by its time limit or memory budget has no count (status UNKNOWN with the layers
done); a work folder keeps the finished layers with their SHA-256, so a run resumes after a kill
and a damaged layer file is found and computed again.

>>> from puzzlesat.puzzles.peg import catalogue
>>> r = count_games(catalogue()["hoppers"](), direction="forward")
>>> r.solutions, r.games
(5664, 109664)
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from ...core.files import file_sha256
from ...puzzles.peg import PegInstance
from .bfs import Space, _bits, _canon, group_for
from .disk import OutOfTime, check_time, default_memory

CHUNK = 1 << 22          # successor entries per kernel call (keys 32 MiB + sources 32 MiB)
U1 = np.uint64(1)
U0 = np.uint64(0)
LOW32 = np.uint64(0xFFFFFFFF)
THIRTY_TWO = np.uint64(32)


class OutOfMemory(Exception):
    """A layer (with its counts) would pass the memory budget."""


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _successors(layer, i0, m3, want, tables, nbytes, keys, src, dead):
    """Canonical successors by one jump of layer[i0:] into keys, the index of each one's position
    into src, until the buffer cannot hold another position's lines; dead[i] = 1 for a position
    with no jump. Returns (index of the first position not expanded, entries written)."""
    cap = keys.shape[0]
    nl = m3.shape[0]
    k = 0
    i = i0
    while i < layer.shape[0]:
        if k + nl > cap:
            break
        p = layer[i]
        k0 = k
        for j in range(nl):
            if (p & m3[j]) == want[j]:
                keys[k] = _canon(p ^ m3[j], tables, nbytes)
                src[k] = i
                k += 1
        dead[i] = 1 if k == k0 else 0
        i += 1
    return i, k


@njit(cache=True)
def _add_into(out, m, row, W):
    """out[m] += row (W words); returns the carry out of the top word (1: the sum overflowed)."""
    carry = U0
    for w in range(W):
        a = out[m, w]
        s = a + row[w]
        c1 = s < a
        s2 = s + carry
        c2 = s2 < s
        out[m, w] = s2
        carry = U1 if (c1 or c2) else U0
    return carry


@njit(cache=True)
def _aggregate(keys, order, src, counts, out_keys, out_counts):
    """Over keys in the order `order`, one entry per distinct key holding the sum of the count
    rows counts[src[.]] of its entries. Returns (distinct keys, overflow): overflow means a sum
    needs more words (the output is then incomplete and must be recomputed wider)."""
    W = counts.shape[1]
    m = -1
    last = U0
    for t in range(order.shape[0]):
        o = order[t]
        key = keys[o]
        row = counts[src[o]]
        if m < 0 or key != last:
            m += 1
            out_keys[m] = key
            last = key
            for w in range(W):
                out_counts[m, w] = row[w]
        elif _add_into(out_counts, m, row, W):
            return m + 1, True
    return m + 1, False


@njit(cache=True)
def _merge(ka, ca, kb, cb, out_k, out_c):
    """Merge two sorted distinct key arrays with their counts, adding the counts of a common
    key. Returns (length, overflow)."""
    W = ca.shape[1]
    i = j = m = 0
    na, nb = ka.shape[0], kb.shape[0]
    while i < na or j < nb:
        if j >= nb or (i < na and ka[i] < kb[j]):
            out_k[m] = ka[i]
            for w in range(W):
                out_c[m, w] = ca[i, w]
            i += 1
        elif i >= na or kb[j] < ka[i]:
            out_k[m] = kb[j]
            for w in range(W):
                out_c[m, w] = cb[j, w]
            j += 1
        else:
            out_k[m] = ka[i]
            for w in range(W):
                out_c[m, w] = ca[i, w]
            if _add_into(out_c, m, cb[j], W):
                return m + 1, True
            i += 1
            j += 1
        m += 1
    return m, False


@njit(cache=True)
def _stabilisers(ps, tables, nbytes):
    """For each position, the number of group elements (the identity included) that fix it."""
    out = np.ones(ps.shape[0], np.int64)
    byte = np.uint64(255)
    eight = np.uint64(8)
    for i in range(ps.shape[0]):
        p = ps[i]
        for g in range(tables.shape[0]):
            q = U0
            x = p
            for j in range(nbytes):
                q |= tables[g, j, x & byte]
                x >>= eight
            if q == p:
                out[i] += 1
    return out


# ---- exact integers from word arrays ----------------------------------------------------------
def widen(counts: np.ndarray, words: int) -> np.ndarray:
    """The same counts with `words` words (more high zero words)."""
    if counts.shape[1] >= words:
        return counts
    out = np.zeros((counts.shape[0], words), np.uint64)
    out[:, :counts.shape[1]] = counts
    return out


def to_int(row) -> int:
    """One count (its words, low first) as a Python integer."""
    return sum(int(w) << (64 * i) for i, w in enumerate(row))


def from_int(x: int, words: int) -> np.ndarray:
    """A Python integer 0 <= x < 2**(64 * words) as its words (ValueError otherwise)."""
    if x < 0 or x >> (64 * words):
        raise ValueError(f"{x} does not fit in {words} words")
    return np.array([(x >> (64 * i)) & (2**64 - 1) for i in range(words)], np.uint64)


def total(counts: np.ndarray) -> int:
    """The exact sum of count rows (each word summed as two 32-bit halves, so no partial sum
    can wrap for fewer than 2**32 rows)."""
    out = 0
    for w in range(counts.shape[1]):
        col = counts[:, w]
        for lo in range(0, len(col), 1 << 31):
            part = col[lo:lo + (1 << 31)]
            out += (int(np.sum(part & LOW32, dtype=np.uint64))
                    + (int(np.sum(part >> THIRTY_TWO, dtype=np.uint64)) << 32)) << (64 * w)
    return out


def _objects(counts: np.ndarray) -> np.ndarray:
    """Count rows as a NumPy array of Python integers."""
    out = np.zeros(counts.shape[0], dtype=object)
    for w in range(counts.shape[1]):
        out = out + (counts[:, w].astype(object) << (64 * w))
    return out


# ---- one layer --------------------------------------------------------------------------------
class _Sums:
    """Sorted partial layers (keys, counts) folded pairwise as they come (a binary counter), so
    the work stays linear and at most about twice the layer is held."""

    def __init__(self):
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, keys: np.ndarray, counts: np.ndarray) -> None:
        self.parts.append((keys, counts))
        while len(self.parts) > 1 and len(self.parts[-2][0]) <= 2 * len(self.parts[-1][0]):
            b = self.parts.pop()
            a = self.parts.pop()
            self.parts.append(merge(a, b))

    def result(self, words: int) -> tuple[np.ndarray, np.ndarray]:
        while len(self.parts) > 1:
            b = self.parts.pop()
            a = self.parts.pop()
            self.parts.append(merge(a, b))
        if not self.parts:
            return np.empty(0, np.uint64), np.zeros((0, words), np.uint64)
        return self.parts[0]

    def nbytes(self) -> int:
        return sum(k.nbytes + c.nbytes for k, c in self.parts)


def merge(a, b) -> tuple[np.ndarray, np.ndarray]:
    """The sum of two sorted partial layers (widened as the sums need)."""
    (ka, ca), (kb, cb) = a, b
    words = max(ca.shape[1], cb.shape[1])
    while True:
        ca, cb = widen(ca, words), widen(cb, words)
        ok = np.empty(len(ka) + len(kb), np.uint64)
        oc = np.empty((len(ka) + len(kb), words), np.uint64)
        m, over = _merge(ka, ca, kb, cb, ok, oc)
        if not over:
            return ok[:m].copy(), oc[:m].copy()
        words += 1


def _aggregate_chunk(keys, src, counts) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys of one chunk with the summed counts of their sources."""
    order = np.argsort(keys, kind="stable")
    words = counts.shape[1]
    while True:
        c = widen(counts, words)
        ok = np.empty(len(keys), np.uint64)
        oc = np.empty((len(keys), words), np.uint64)
        m, over = _aggregate(keys, order, src, c, ok, oc)
        if not over:
            return ok[:m].copy(), oc[:m].copy()
        words += 1


def step(sp: Space, layer: np.ndarray, counts: np.ndarray, backward: bool,
         deadline: float | None = None, memory: int | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next layer by one jump (unjump if `backward`) with its orbit-total counts, and the
    dead positions of `layer` (no jump) as a boolean mask. Past `deadline` OutOfTime, past
    `memory` bytes of partial sums OutOfMemory (the layer is then not built)."""
    m3, want, _, _ = sp.arrays[backward]
    keys = np.empty(CHUNK, np.uint64)
    src = np.empty(CHUNK, np.int64)
    dead = np.zeros(len(layer), np.uint8)
    sums = _Sums()
    i = 0
    while i < len(layer):
        check_time(deadline, "a layer of the game count")
        i2, k = _successors(layer, i, m3, want, sp.tables, sp.nbytes, keys, src, dead)
        if k:
            sums.add(*_aggregate_chunk(keys[:k], src[:k], counts))
        if memory is not None and sums.nbytes() > memory:
            raise OutOfMemory(f"the partial sums of a layer passed {memory / 2**30:.1f} GiB")
        i = i2
    nk, nc = sums.result(counts.shape[1])
    return nk, nc, dead.astype(bool)


def orbit_sizes(sp: Space, ps: np.ndarray) -> np.ndarray:
    """|O(p)| under the space's group for each canonical position."""
    order = sp.tables.shape[0] + 1
    return order // _stabilisers(np.asarray(ps, np.uint64), sp.tables, sp.nbytes)


# ---- the count --------------------------------------------------------------------------------
@dataclass
class GameCount:
    """A count's answer: `solutions` (jump sequences from the start to the finish; None: not
    counted — the run stopped), `games` (every jump sequence until no jump is possible; only
    with the forward side run to its end), and figures."""

    solutions: int | None
    games: int | None = None
    direction: str = "meet"
    jumps: int = 0
    group_order: int = 1
    layers_forward: list[int] = field(default_factory=list)
    layers_backward: list[int] = field(default_factory=list)
    meeting: int | None = None           # positions common to the meeting layers
    words: int = 1                       # 64-bit words of the widest count
    per_finish: dict[int, int] | None = None  # forward: winning sequences by the survivor's hole
    dead_by_pegs: dict[int, int] | None = None  # forward: game sequences by pegs left
    seconds: float = 0.0
    resumed: list[str] = field(default_factory=list)
    redone: list[str] = field(default_factory=list)
    reason: str | None = None

    @property
    def complete(self) -> bool:
        return self.solutions is not None


def count_games(inst: PegInstance, *, direction: str = "meet", symmetry: bool = True,
                deadline: float | None = None, memory: int | None = None,
                work_dir: str | os.PathLike | None = None, progress=None) -> GameCount:
    """The number of jump sequences from the start to the finish (one peg anywhere when the
    instance has no finish), through its required first jump if any.

    direction "meet": forward counts from the start meet backward counts from the finish set
    where their jumps add up (each side grown from its smaller frontier); "forward": the forward
    side alone, to its end — then also every game (`games`), and for each single-peg finish its
    winning count (`per_finish`). `deadline` (time.monotonic()) and `memory` (bytes for one
    layer's sums; default 3/4 of the available memory) stop the run with no count (UNKNOWN).
    `work_dir` keeps every finished layer for resuming. `progress(side, depth, size)` is called
    after each layer."""
    if direction not in ("meet", "forward"):
        raise ValueError(f"direction must be meet or forward, not {direction!r}")
    t0 = time.monotonic()
    memory = memory or default_memory()
    forward_only = direction == "forward"
    group = group_for(inst, symmetry, with_finish=not forward_only)
    sp = Space(inst, group)
    n_goal = 1 if inst.finish is None else len(inst.finish)
    J = len(inst.start) - n_goal
    res = GameCount(None, direction=direction, jumps=J, group_order=len(group))
    store = _Folder(work_dir, _key(inst, sp, direction)) if work_dir is not None else None
    if store is not None:
        res.redone = store.redone
    try:
        if forward_only:
            _forward(inst, sp, res, deadline, memory, store, progress)
        else:
            _meet(inst, sp, res, J, deadline, memory, store, progress)
    except (OutOfTime, OutOfMemory) as e:
        res.solutions = res.games = res.per_finish = None
        res.reason = (f"{e}: layers to forward depth {len(res.layers_forward) - 1}"
                      + (f", backward depth {len(res.layers_backward) - 1}"
                         if res.layers_backward else "") + " done; no count")
    res.seconds = round(time.monotonic() - t0, 3)
    return res


def _root_forward(inst: PegInstance, sp: Space) -> tuple[np.ndarray, int]:
    """The forward root (canonical, sorted) and its depth: the start, or the position after the
    required first jump (empty if that jump is not possible)."""
    start = _bits(inst.start)
    if inst.first_jump is None:
        return np.array([start], np.uint64), 0
    a, c = inst.first_jump
    line = next((l for l in sp.lines[False] if l[0] == a and l[2] == c), None)
    if line is None or not sp.applies(start, line, False):
        return np.empty(0, np.uint64), 1
    return sp.canon([start ^ _bits(line)]), 1


def _roots_backward(inst: PegInstance, sp: Space) -> tuple[np.ndarray, np.ndarray]:
    """The goal set as canonical positions with their orbit totals (each goal position counts
    one sequence: the orbit total is the number of goal positions in the orbit)."""
    if inst.finish is None:
        ps = np.unique(sp.canon([1 << h for h in range(sp.n)]))
    else:
        ps = sp.canon([_bits(inst.finish)])
    return ps, orbit_sizes(sp, ps).astype(np.uint64).reshape(-1, 1)


def _meet(inst, sp, res, J, deadline, memory, store, progress) -> None:
    if inst.solved_at_start:
        res.solutions, res.meeting = 1, 1
        return
    fk, d0 = _root_forward(inst, sp)
    if J < d0 or not len(fk):
        res.solutions = 0
        res.reason = "the required first jump is not possible" if len(fk) == 0 else None
        return
    sides = {False: (fk, np.ones((len(fk), 1), np.uint64), d0),
             True: (*_roots_backward(inst, sp), 0)}
    sizes = {False: res.layers_forward, True: res.layers_backward}
    sizes[False].extend([1] * d0 + [len(fk)])
    sizes[True].append(len(sides[True][0]))
    for bwd in (False, True):  # resume each side from its last saved layer
        got = store.last(bwd) if store is not None else None
        if got is not None:
            keys, counts, depth = got
            sides[bwd] = (keys, counts, depth)
            sizes[bwd][:] = store.sizes(bwd)[:depth + 1]
            res.resumed.append(f"{'b' if bwd else 'f'}{depth:03d}")
    while sides[False][2] + sides[True][2] < J:
        if not len(sides[False][0]) or not len(sides[True][0]):
            break
        bwd = len(sides[True][0]) < len(sides[False][0])
        keys, counts, depth = sides[bwd]
        nk, nc, _ = step(sp, keys, counts, bwd, deadline, memory)
        sides[bwd] = (nk, nc, depth + 1)
        sizes[bwd].append(len(nk))
        if store is not None:
            store.save(bwd, depth + 1, nk, nc, list(sizes[bwd]))
        if progress is not None:
            progress("backward" if bwd else "forward", depth + 1, len(nk))
    (fk, fc, _), (bk, bc, _) = sides[False], sides[True]
    res.words = max(fc.shape[1], bc.shape[1])
    if not len(fk) or not len(bk):
        res.solutions, res.meeting = 0, 0
        return
    common, i, j = np.intersect1d(fk, bk, assume_unique=True, return_indices=True)
    res.meeting = len(common)
    res.solutions = _meeting_sum(sp, common, fc[i], bc[j])


def _meeting_sum(sp: Space, common: np.ndarray, fc: np.ndarray, bc: np.ndarray) -> int:
    """sum h_f h_b / |O| over the common canonical positions, each quotient checked exact."""
    if not len(common):
        return 0
    sizes = orbit_sizes(sp, common).astype(object)
    prod = _objects(fc) * _objects(bc)
    if any(prod % sizes):
        raise AssertionError("an orbit total does not divide by its orbit size: the symmetry "
                             "bookkeeping is broken")
    return int(sum(prod // sizes))


def _forward(inst, sp, res, deadline, memory, store, progress) -> None:
    keys, d0 = _root_forward(inst, sp)
    counts = np.ones((len(keys), 1), np.uint64)
    res.layers_forward = [1] * d0 + [len(keys)]
    games = 0
    dead_by = {}
    per_finish: dict[int, int] = {}
    depth = d0
    got = store.last(False) if store is not None else None
    if got is not None:
        keys, counts, depth = got
        res.layers_forward = store.sizes(False)[:depth + 1]
        notes = store.notes()
        games = int(notes.get("games", "0"))
        dead_by = {int(k): int(v) for k, v in notes.get("dead_by_pegs", {}).items()}
        per_finish = {int(k): int(v) for k, v in notes.get("per_finish", {}).items()}
        res.resumed.append(f"f{depth:03d}")
    pegs0 = len(inst.start)
    while len(keys):
        nk, nc, dead = step(sp, keys, counts, False, deadline, memory)
        pegs = pegs0 - depth
        if dead.any():
            g = total(counts[dead])
            games += g
            dead_by[pegs] = dead_by.get(pegs, 0) + g
        if pegs == 1:
            _singles(sp, keys, counts, per_finish)
        if inst.finish is not None and pegs == len(inst.finish):
            _target(sp, inst, keys, counts, per_finish)
        res.words = max(res.words, counts.shape[1])
        depth += 1
        keys, counts = nk, nc
        if len(keys):
            res.layers_forward.append(len(keys))
        if store is not None:
            store.save(False, depth, keys, counts, list(res.layers_forward),
                       {"games": str(games),
                        "dead_by_pegs": {str(k): str(v) for k, v in dead_by.items()},
                        "per_finish": {str(k): str(v) for k, v in per_finish.items()}})
        if progress is not None and len(keys):
            progress("forward", depth, len(keys))
    res.games = games
    res.dead_by_pegs = dict(sorted(dead_by.items()))
    if inst.finish is None:
        res.per_finish = dict(sorted(per_finish.items()))
        res.solutions = sum(per_finish.values())
    else:
        res.solutions = per_finish.get(-1, 0)
        if len(inst.finish) == 1:
            res.per_finish = dict(sorted((h, v) for h, v in per_finish.items() if h >= 0))


def _singles(sp: Space, keys: np.ndarray, counts: np.ndarray, out: dict[int, int]) -> None:
    """Winning sequences by the survivor's hole from a layer of one-peg positions: an orbit
    total splits evenly over the orbit's holes."""
    for p, row in zip(keys, counts):
        h_total = to_int(row)
        holes = {sp.group[g][int(p).bit_length() - 1] for g in range(len(sp.group))}
        assert h_total % len(holes) == 0, "orbit total not divisible by its orbit"
        for h in holes:
            out[h] = out.get(h, 0) + h_total // len(holes)


def _target(sp: Space, inst: PegInstance, keys, counts, out: dict[int, int]) -> None:
    """The finish's own count (key -1) from the layer with its number of pegs."""
    c = int(sp.canon([_bits(inst.finish)])[0])
    i = int(np.searchsorted(keys, np.uint64(c)))
    if i < len(keys) and int(keys[i]) == c:
        h_total = to_int(counts[i])
        size = int(orbit_sizes(sp, np.array([c], np.uint64))[0])
        assert h_total % size == 0, "orbit total not divisible by its orbit"
        out[-1] = h_total // size


# ---- the work folder --------------------------------------------------------------------------
def _key(inst: PegInstance, sp: Space, direction: str) -> dict:
    return {"kind": "peg-games", "version": 1, "n": inst.board.n,
            "lines": sorted(inst.board.lines), "start": sorted(inst.start),
            "finish": None if inst.finish is None else sorted(inst.finish),
            "first_jump": inst.first_jump, "group": sorted(sp.group), "direction": direction}


class _Folder:
    """A count's work folder: the last two finished layers of each side (keys and counts as .npy
    files, each with its SHA-256 in manifest.json, written by rename so a kill leaves the old
    manifest or the new one). A layer whose files are missing or do not match their SHA-256 is
    dropped (`redone` names it) and the count goes on from the layer before it."""

    KEEP = 2

    def __init__(self, path: str | os.PathLike, key: dict):
        self.dir = Path(path) / ("games-" + hashlib.sha256(
            json.dumps(key, sort_keys=True, default=list).encode()).hexdigest()[:16])
        self.dir.mkdir(parents=True, exist_ok=True)
        self.redone: list[str] = []
        self.man = {"key": json.loads(json.dumps(key, default=list)), "layers": {}, "sizes": {},
                    "notes": {}}
        mf = self.dir / "manifest.json"
        if mf.exists():
            try:
                m = json.loads(mf.read_text())
                if m.get("key") == self.man["key"]:
                    self.man = m
            except (OSError, ValueError):
                self.redone.append("manifest.json")

    def _write(self) -> None:
        tmp = self.dir / "manifest.json.tmp"
        tmp.write_text(json.dumps(self.man))
        os.replace(tmp, self.dir / "manifest.json")

    def save(self, backward: bool, depth: int, keys, counts, sizes: list[int],
             notes: dict | None = None) -> None:
        side = "b" if backward else "f"
        name = f"{side}{depth:03d}"
        entry = {"side": side, "depth": depth}
        for part, a in (("keys", keys), ("counts", counts)):
            p = self.dir / f"{name}.{part}.npy"
            tmp = self.dir / f"{name}.{part}.tmp.npy"
            np.save(tmp, a)
            os.replace(tmp, p)
            entry[part] = file_sha256(p)
        self.man["layers"][name] = entry
        self.man["sizes"][side] = sizes
        if notes is not None:
            self.man["notes"][name] = notes
        old = sorted(n for n, e in self.man["layers"].items() if e["side"] == side)[:-self.KEEP]
        self._write()
        for n in old:  # dropped after the manifest no longer needs them
            self.man["layers"].pop(n)
            self.man["notes"].pop(n, None)
            for part in ("keys", "counts"):
                (self.dir / f"{n}.{part}.npy").unlink(missing_ok=True)
        if old:
            self._write()

    def last(self, backward: bool):
        """The deepest intact saved layer of a side: (keys, counts, depth), or None."""
        side = "b" if backward else "f"
        for name in sorted((n for n, e in self.man["layers"].items() if e["side"] == side),
                           reverse=True):
            e = self.man["layers"][name]
            arrays = []
            for part in ("keys", "counts"):
                p = self.dir / f"{name}.{part}.npy"
                if not p.exists() or file_sha256(p) != e[part]:
                    break
                arrays.append(np.load(p))
            else:
                self._notes = self.man["notes"].get(name, {})
                return arrays[0], arrays[1], e["depth"]
            self.redone.append(name)
            self.man["layers"].pop(name)
            self.man["notes"].pop(name, None)
            self._write()
        return None

    def sizes(self, backward: bool) -> list[int]:
        return list(self.man["sizes"].get("b" if backward else "f", []))

    def notes(self) -> dict:
        return getattr(self, "_notes", {})


# ---- enumeration: every jump sequence, one by one (the oracle of the small boards) ------------
@njit(cache=True)
def _enumerate(m3, want, first, goal, anywhere, stk_p, stk_j, stk_any, state, budget):
    """Depth-first walk over every jump sequence, resumable: the stack (stk_p position, stk_j
    next line to try or -1 before the first visit, stk_any whether a jump was made from it) and
    state = [depth, solutions, games, nodes] carry over between calls; runs until `budget`
    positions more are visited or the walk ends (returns True). A position is a solution when it
    equals `goal` (anywhere: has one peg), a game's end when no jump applies; at depth 0 only
    line `first` is tried when first >= 0. Each count grows by one at a time: it cannot pass
    2**63 in any run."""
    nl = m3.shape[0]
    sp = state[0]
    seen = 0
    while sp >= 0:
        p = stk_p[sp]
        j = stk_j[sp]
        if j < 0:  # first visit of this position
            if seen >= budget:
                state[0] = sp
                return False
            seen += 1
            state[3] += 1
            if anywhere:
                if p != U0 and (p & (p - U1)) == U0:
                    state[1] += 1
            elif p == goal:
                state[1] += 1
            j = 0
            stk_any[sp] = 0
        pushed = False
        while j < nl:
            if (sp > 0 or first < 0 or j == first) and (p & m3[j]) == want[j]:
                stk_j[sp] = j + 1
                stk_any[sp] = 1
                stk_p[sp + 1] = p ^ m3[j]
                stk_j[sp + 1] = -1
                sp += 1
                pushed = True
                break
            j += 1
        if pushed:
            continue
        if stk_any[sp] == 0:
            state[2] += 1  # no jump from here: a game ends
        sp -= 1
    state[0] = sp
    return True


def enumerate_games(inst: PegInstance, deadline: float | None = None,
                    max_nodes: int | None = None) -> GameCount:
    """Every jump sequence from the start walked one by one (no memo, no symmetry, no code of the
    dynamic programme but the board's line masks): the solutions and the games, or no count
    (UNKNOWN) past `deadline` or `max_nodes` positions visited. Exponential: for small boards."""
    t0 = time.monotonic()
    sp = Space(inst, [tuple(range(inst.board.n))])
    m3, want, _, _ = sp.arrays[False]
    first = -1
    if inst.first_jump is not None:
        a, c = inst.first_jump
        first = next((i for i, l in enumerate(sp.lines[False]) if l[0] == a and l[2] == c), -2)
    res = GameCount(None, direction="enumerate", jumps=len(inst.start) - (
        1 if inst.finish is None else len(inst.finish)))
    start = _bits(inst.start)
    if first == -2 or (first >= 0 and not sp.applies(start, sp.lines[False][first], False)):
        res.solutions, res.games = 0, 0  # the required first jump is impossible: no sequence
        return res
    stk_p = np.zeros(inst.board.n + 2, np.uint64)
    stk_j = np.full(inst.board.n + 2, -1, np.int64)
    stk_any = np.zeros(inst.board.n + 2, np.uint8)
    stk_p[0] = np.uint64(start)
    state = np.zeros(4, np.int64)
    goal = np.uint64(0 if inst.finish is None else _bits(inst.finish))
    while True:
        if deadline is not None and time.monotonic() > deadline:
            res.reason = f"time limit: {int(state[3])} positions visited; no count"
            break
        if max_nodes is not None and state[3] >= max_nodes:
            res.reason = f"node limit: {int(state[3])} positions visited; no count"
            break
        budget = 1 << 22 if max_nodes is None else min(1 << 22, max_nodes - int(state[3]))
        if _enumerate(m3, want, first, goal, inst.finish is None, stk_p, stk_j, stk_any, state,
                      budget):
            res.solutions, res.games = int(state[1]), int(state[2])
            break
    res.seconds = round(time.monotonic() - t0, 3)
    return res


# ---- every single-vacancy problem of a board ---------------------------------------------------
@dataclass
class TableRow:
    """One problem of a board's table: its winning sequences (None: not counted), and how many
    (vacate, finish) pairs its orbit stands for."""

    vacate: int
    finish: int
    solutions: int | None
    orbit_size: int


def board_table(b, vacate="all", finish="all", *, deadline: float | None = None,
                memory: int | None = None, work_dir: str | os.PathLike | None = None,
                progress=None):
    """The winning sequences of every single-vacancy -> single-survivor problem of board `b`
    asked (one per orbit of pairs, as `peg problems`), by one forward count to the end per
    vacancy: yields (vacancy, its GameCount, its rows) as each vacancy is done. A vacancy whose
    count stops (deadline, memory) has rows with solutions None."""
    from ...puzzles.peg import PegInstance as Inst
    from .problems import orbit_pairs
    by_v: dict[int, list[tuple[tuple[int, int], int]]] = {}
    for (v, f), size in orbit_pairs(b, vacate, finish):
        by_v.setdefault(v, []).append(((v, f), size))
    for v, pairs in sorted(by_v.items()):
        inst = Inst(f"{b.name}:{v}", b, frozenset(range(b.n)) - {v}, None)
        r = count_games(inst, direction="forward", deadline=deadline, memory=memory,
                        work_dir=work_dir,
                        progress=None if progress is None else
                        (lambda side, d, n, v=v: progress(v, side, d, n)))
        rows = [TableRow(v, f, None if r.per_finish is None else r.per_finish.get(f, 0), size)
                for (_, f), size in pairs]
        yield v, r, rows
