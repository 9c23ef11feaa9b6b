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

A layer that would not fit the memory budget is built on disk (`expand_on_disk`): the summed
successors of each chunk are cut into key ranges, appended to one file per range, and each range
is then sorted and summed alone. A run stopped by its time limit, the disk or a key range larger
than the memory has no count (status UNKNOWN with the layers done); a work folder keeps the
finished layers with their SHA-256 and a layer being built on disk with its checkpoint (the
range files' lengths and SHA-256), so a run resumes after a kill, inside a layer too, and a
damaged file is found and computed again. The folder holds claims, not facts: its manifest and
checkpoints count only with the seal of this user's puzzlesat (core/seal.py), so a forged folder
with recomputed checksums — or one written before seals — is set aside and counted again
(`redone` says why; never while rechecking: --recheck), and a count that resumed from layers of
an earlier run says so (`resumed_from`: that run's date).

>>> from puzzlesat.puzzles.peg import catalogue
>>> r = count_games(catalogue()["hoppers"](), direction="forward")
>>> r.solutions, r.games
(5664, 109664)
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from ...core.files import file_sha256, make_folder
from ...puzzles.peg import PegInstance
from .bfs import Space, _bits, _canon, group_for
from .disk import FREE_RESERVE, DiskFull, OutOfTime, check_time, default_memory

CHUNK = 1 << 22          # successor entries per kernel call (keys 32 MiB + sources 32 MiB)
SLICE = 1 << 20          # positions of a layer read at once (a layer on disk is a memmap)
ROWS = 1 << 24           # count rows summed or met at once
CHECKPOINT_SECONDS = 300.0  # a layer built on disk in a work folder records its progress this often
LOAD_BYTES = 1 << 28     # a saved layer up to this size is read back into memory (else a memmap)
MAX_RANGES = 1024        # key ranges of a layer built on disk
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
    """The exact sum of count rows (a memmap too: read in blocks of 2**24 rows, each word summed
    as two 32-bit halves, so no partial sum can wrap)."""
    out = 0
    for lo in range(0, counts.shape[0], ROWS):
        block = np.asarray(counts[lo:lo + ROWS])
        for w in range(block.shape[1]):
            col = block[:, w]
            out += (int(np.sum(col & LOW32, dtype=np.uint64))
                    + (int(np.sum(col >> THIRTY_TWO, dtype=np.uint64)) << 32)) << (64 * w)
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
    dead positions of `layer` (no jump) as a boolean mask, all in memory. Past `deadline`
    OutOfTime, past `memory` bytes of partial sums OutOfMemory (the layer is then not built)."""
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


def words_for(x: int) -> int:
    """64-bit words that hold 0 <= x."""
    return max(1, (x.bit_length() + 63) // 64)


def _plan_ranges(sp: Space, keys, backward: bool, entry_bytes: int, memory: int) -> np.ndarray:
    """Splitters of the next layer's keys into ranges whose successor entries fit `memory`
    when summed: the successors of up to 65,536 positions spread over the layer, as a sample of
    the next layer's keys (sorted, the quantiles between ranges)."""
    m3, want, _, _ = sp.arrays[backward]
    n = len(keys)
    idx = np.unique(np.linspace(0, n - 1, min(n, 1 << 16)).astype(np.int64))
    sample = np.array(keys[idx], np.uint64)
    buf = np.empty(len(sample) * m3.shape[0] + 1, np.uint64)
    src = np.empty(len(buf), np.int64)
    dead = np.zeros(len(sample), np.uint8)
    _, k = _successors(sample, 0, m3, want, sp.tables, sp.nbytes, buf, src, dead)
    if k == 0:
        return np.empty(0, np.uint64)
    est = k / len(sample) * n  # successor entries of the whole layer (before sums)
    ranges = int(min(MAX_RANGES, max(1, np.ceil(2 * est * entry_bytes / memory))))
    succ = np.sort(buf[:k])
    return np.unique(succ[(np.arange(1, ranges) * len(succ)) // ranges])


def _memmaps(kpath: Path, cpath: Path, n: int, words: int) -> tuple[np.ndarray, np.ndarray]:
    if n == 0:
        return np.empty(0, np.uint64), np.zeros((0, words), np.uint64)
    return (np.memmap(kpath, np.uint64, "r", shape=(n,)),
            np.memmap(cpath, np.uint64, "r", shape=(n, words)))


def _rewind(part: Path, state: dict, W: int):
    """Cut each range file of a checkpointed layer back to the checkpoint's length and check
    its SHA-256 there: the running hashes to go on with, or None if a file is short or differs."""
    out = []
    for r, (size, (sk, sc)) in enumerate(zip(state["sizes"], state["sha"])):
        pair = []
        for f, nbytes, want in ((part / f"r{r:04d}.keys", 8 * size, sk),
                                (part / f"r{r:04d}.counts", 8 * W * size, sc)):
            got = _regular_size(f)
            if got is None and (f.exists() or f.is_symlink()):
                return None  # a link, FIFO or device where a range file was: not resumed from
            if (got or 0) < nbytes:
                return None
            with open(f, "r+b" if f.exists() else "wb") as h:
                h.truncate(nbytes)
            x = hashlib.sha256()
            with open(f, "rb") as h:
                for block in iter(lambda: h.read(1 << 24), b""):
                    x.update(block)
            if x.hexdigest() != want:
                return None
            pair.append(x)
        out.append(tuple(pair))
    return out


def expand_on_disk(sp: Space, keys, counts, backward: bool, store: "_Store", name: str,
                   memory: int, deadline: float | None = None
                   ) -> tuple[np.ndarray, np.ndarray, int]:
    """The next layer built on disk (a memmap of keys and one of counts, in the store's folder
    as NAME.keys.bin / NAME.counts.bin) and the sum of the counts of `keys`' dead positions.

    The layer's successors are summed in memory up to a third of `memory`, then cut into key
    ranges (`_plan_ranges`) and appended to one pair of files per range; at the end each range
    is sorted and summed alone and appended to the layer, so that memory holds the partial sums
    or one range. Counts are widened to words enough for (the layer's total) x (lines): no sum
    can overflow. Each spill is a checkpoint (in a work folder also every CHECKPOINT_SECONDS, at
    the end of a slice): the slice reached, the range files' lengths and SHA-256; a stopped run
    leaves them, and building the same layer again goes on from the checkpoint."""
    m3, want, _, _ = sp.arrays[backward]
    n = len(keys)
    W = max(counts.shape[1], words_for(total(counts) * max(1, m3.shape[0])))
    part = store.dir / f"{name}.part"
    ident = {"name": name, "n": n, "words": W, "backward": bool(backward),
             "ends": [int(keys[0]), int(keys[n - 1])] if n else []}
    state = store.resume_part(part, ident)
    hashes = None
    if state is not None:  # the range files back to the checkpoint's lengths and SHA-256
        hashes = _rewind(part, state, W)
        if hashes is None:  # a range file shorter than recorded, or changed: the layer again
            store.redone.append(f"{name}.part")
            store.drop_part(part)
            state = None
        else:
            store.resumed_inside += state["next"]
    if state is None:
        splitters = _plan_ranges(sp, keys, backward, 8 + 8 * W + 24, memory)
        R = len(splitters) + 1
        state = {"ident": ident, "next": 0, "sizes": [0] * R, "dead": "0",
                 "splitters": [int(x) for x in splitters],
                 "sha": [[hashlib.sha256().hexdigest()] * 2 for _ in range(R)]}
        hashes = [(hashlib.sha256(), hashlib.sha256()) for _ in range(R)]
        part.mkdir(exist_ok=True)
        store.write_state(part, state)
    splitters = np.array(state["splitters"], np.uint64)
    R = len(splitters) + 1
    files = [(part / f"r{r:04d}.keys", part / f"r{r:04d}.counts") for r in range(R)]
    dead_total = int(state["dead"])
    buf = np.empty(CHUNK, np.uint64)
    src = np.empty(CHUNK, np.int64)
    last_cp = time.monotonic()
    sizes = list(state["sizes"])
    handles = [(open(fk, "ab"), open(fc, "ab")) for fk, fc in files]
    sums = _Sums()

    def spill(nxt: int) -> None:
        """The partial sums so far, cut into the ranges and appended; then a checkpoint."""
        nonlocal sums
        ck, cc = sums.result(W)
        sums = _Sums()
        assert cc.shape[1] == W, "a sum passed its bound"
        store.need(ck.nbytes + cc.nbytes)
        cuts = np.concatenate(([0], np.searchsorted(ck, splitters), [len(ck)]))
        for r in range(R):
            lo, hi = cuts[r], cuts[r + 1]
            if hi > lo:
                for a, h, x in ((ck[lo:hi], handles[r][0], hashes[r][0]),
                                (cc[lo:hi], handles[r][1], hashes[r][1])):
                    data = a.tobytes()
                    h.write(data)
                    x.update(data)
                sizes[r] += int(hi - lo)
        for hk, hc in handles:
            hk.flush()
            hc.flush()
        state.update(next=nxt, dead=str(dead_total), sizes=list(sizes),
                     sha=[[a.hexdigest(), b.hexdigest()] for a, b in hashes])
        store.write_state(part, state)
    try:
        for s0 in range(state["next"], n, SLICE):
            sl = np.asarray(keys[s0:s0 + SLICE])
            cs = widen(np.asarray(counts[s0:s0 + SLICE]), W)
            dead = np.zeros(len(sl), np.uint8)
            i = 0
            while i < len(sl):
                check_time(deadline, f"the expansion of layer {name}")
                i2, k = _successors(sl, i, m3, want, sp.tables, sp.nbytes, buf, src, dead)
                if k:
                    sums.add(*_aggregate_chunk(buf[:k], src[:k], cs))
                i = i2
            if dead.any():
                dead_total += total(cs[dead.astype(bool)])
            # the sums stay in memory up to a third of the budget (merging doubles them), and
            # in a work folder go to disk with a checkpoint at least every CHECKPOINT_SECONDS
            if sums.nbytes() > memory // 3 or (
                    store.persistent and time.monotonic() - last_cp > CHECKPOINT_SECONDS):
                spill(s0 + len(sl))
                last_cp = time.monotonic()
        spill(n)
    finally:
        for hk, hc in handles:
            hk.close()
            hc.close()
    # each range sorted and summed alone, appended in order
    kpath, cpath = store.layer_paths(name)
    tk, tc = kpath.with_suffix(".tmp"), cpath.with_suffix(".tmp")
    m = 0
    try:
        with open(tk, "wb") as ok, open(tc, "wb") as oc:
            for fk, fc in files:
                check_time(deadline, f"the sums of layer {name}")
                size = fk.stat().st_size // 8
                if size == 0:
                    continue
                if size * (8 + 8 * W + 24) > memory:
                    raise OutOfMemory(f"a key range of layer {name} needs "
                                      f"{size * (8 + 8 * W + 24) / 2**30:.2f} GiB to be summed, "
                                      f"more than the {memory / 2**30:.2f} GiB allowed")
                rk = np.fromfile(fk, np.uint64)
                rc = np.fromfile(fc, np.uint64).reshape(-1, W)
                uk, uc = _aggregate_chunk(rk, np.arange(len(rk), dtype=np.int64), rc)
                assert uc.shape[1] == W, "a sum passed its bound"
                store.need(uk.nbytes + uc.nbytes)
                uk.tofile(ok)
                uc.tofile(oc)
                m += len(uk)
                del rk, rc, uk, uc
    except BaseException:
        tk.unlink(missing_ok=True)
        tc.unlink(missing_ok=True)
        raise
    os.replace(tk, kpath)
    os.replace(tc, cpath)
    store.drop_part(part)
    nk, nc = _memmaps(kpath, cpath, m, W)
    return nk, nc, dead_total


class _Run:
    """One count's limits, store and growth figures: advance() builds each next layer in memory
    while it fits `memory`, else on disk (`expand_on_disk`)."""

    def __init__(self, sp: Space, store: "_Store", memory: int, deadline: float | None):
        self.sp, self.store, self.memory, self.deadline = sp, store, memory, deadline
        self.ratio = {False: 4.0, True: 4.0}
        self.on_disk = 0

    def advance(self, keys, counts, backward: bool, name: str):
        """(next keys, next counts, sum of the counts of the dead positions of `keys`)."""
        n, W = len(keys), counts.shape[1]
        need = n * (8 + 8 * W) + 3 * int(n * self.ratio[backward]) * (8 + 8 * (W + 1))
        out = None
        if need <= self.memory:
            try:
                k0, c0 = np.asarray(keys), np.asarray(counts)
                nk, nc, dead = step(self.sp, k0, c0, backward, self.deadline, self.memory)
                out = nk, nc, (total(c0[dead]) if dead.any() else 0)
            except OutOfMemory:
                out = None
        if out is None:
            self.on_disk += 1
            out = expand_on_disk(self.sp, keys, counts, backward, self.store, name, self.memory,
                                 self.deadline)
        if n:
            self.ratio[backward] = max(1.0, len(out[0]) / n)
        return out


def _meeting(sp: Space, fk, fc, bk, bc, deadline: float | None) -> tuple[int, int]:
    """(positions common to the two sorted layers, sum over them of h_f h_b / |O|), met in blocks
    of the forward layer (either may be a memmap)."""
    common_n, acc = 0, 0
    for lo in range(0, len(fk), ROWS):
        check_time(deadline, "the meeting of the layers")
        a = np.asarray(fk[lo:lo + ROWS])
        b0 = int(np.searchsorted(bk, a[0]))
        b1 = int(np.searchsorted(bk, a[-1], side="right"))
        b = np.asarray(bk[b0:b1])
        common, i, j = np.intersect1d(a, b, assume_unique=True, return_indices=True)
        if len(common):
            common_n += len(common)
            acc += _meeting_sum(sp, common, np.asarray(fc[lo:lo + ROWS])[i],
                                np.asarray(bc[b0:b1])[j])
    return common_n, acc


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
    resumed_from: str | None = None      # when the earlier run that sealed those layers wrote them
    redone: list[str] = field(default_factory=list)
    layers_on_disk: int = 0              # layers built on disk (past the memory budget)
    resumed_inside: int = 0              # positions of a layer's checkpoint not expanded again
    disk_peak: int = 0                   # bytes of the layer folder at most
    reason: str | None = None

    @property
    def complete(self) -> bool:
        return self.solutions is not None


def count_games(inst: PegInstance, *, direction: str = "meet", symmetry: bool = True,
                deadline: float | None = None, memory: int | None = None,
                work_dir: str | os.PathLike | None = None, keep_free: int | None = None,
                progress=None) -> GameCount:
    """The number of jump sequences from the start to the finish (one peg anywhere when the
    instance has no finish), through its required first jump if any.

    direction "meet": forward counts from the start meet backward counts from the finish set
    where their jumps add up (each side grown from its smaller frontier); "forward": the forward
    side alone, to its end — then also every game (`games`), and for each single-peg finish its
    winning count (`per_finish`). `memory` (bytes; default 3/4 of the available memory): a layer
    that would not fit is built on disk, in `work_dir` (which then keeps every finished layer for
    resuming) or a temporary folder; `keep_free` bytes of the disk (default 1 GiB) stay free.
    `deadline` (time.monotonic()), the disk and a layer range too large for `memory` stop the run
    with no count (UNKNOWN). `progress(side, depth, size)` is called after each layer."""
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
    store = _Store(work_dir, _key(inst, sp, direction), keep_free)
    res.redone = store.redone
    run = _Run(sp, store, memory, deadline)
    try:
        if forward_only:
            _forward(inst, sp, res, run, progress)
        else:
            _meet(inst, sp, res, J, run, progress)
    except (OutOfTime, OutOfMemory, DiskFull) as e:
        res.solutions = res.games = res.per_finish = res.meeting = None
        res.reason = (f"{e}: layers to forward depth {len(res.layers_forward) - 1}"
                      + (f", backward depth {len(res.layers_backward) - 1}"
                         if res.layers_backward else "") + " done; no count")
    finally:
        res.layers_on_disk = run.on_disk
        res.disk_peak = store.peak
        res.resumed_inside = store.resumed_inside
        if res.resumed or store.resumed_inside:
            res.resumed_from = store.earlier
        store.close()
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


def _meet(inst, sp, res, J, run: "_Run", progress) -> None:
    if inst.solved_at_start:
        res.solutions, res.meeting = 1, 1
        return
    fk, d0 = _root_forward(inst, sp)
    if J < d0 or not len(fk):
        res.solutions = 0
        res.reason = "the required first jump is not possible" if len(fk) == 0 else None
        return
    store = run.store
    sides = {False: (fk, np.ones((len(fk), 1), np.uint64), d0),
             True: (*_roots_backward(inst, sp), 0)}
    sizes = {False: res.layers_forward, True: res.layers_backward}
    sizes[False].extend([1] * d0 + [len(fk)])
    sizes[True].append(len(sides[True][0]))
    for bwd in (False, True):  # resume each side from its last saved layer
        got = store.last(bwd)
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
        name = f"{'b' if bwd else 'f'}{depth + 1:03d}"
        nk, nc, _ = run.advance(keys, counts, bwd, name)
        sizes[bwd].append(len(nk))
        nk, nc = store.save(bwd, depth + 1, nk, nc, list(sizes[bwd]))
        sides[bwd] = (nk, nc, depth + 1)
        if progress is not None:
            progress("backward" if bwd else "forward", depth + 1, len(nk))
    (fk, fc, _), (bk, bc, _) = sides[False], sides[True]
    res.words = max(fc.shape[1], bc.shape[1])
    if not len(fk) or not len(bk):
        res.solutions, res.meeting = 0, 0
        return
    res.meeting, res.solutions = _meeting(sp, fk, fc, bk, bc, run.deadline)


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


def _forward(inst, sp, res, run: "_Run", progress) -> None:
    keys, d0 = _root_forward(inst, sp)
    counts = np.ones((len(keys), 1), np.uint64)
    res.layers_forward = [1] * d0 + [len(keys)]
    games = 0
    dead_by: dict[int, int] = {}
    per_finish: dict[int, int] = {}
    depth = d0
    store = run.store
    got = store.last(False)
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
        pegs = pegs0 - depth
        if pegs == 1:
            _singles(sp, keys, counts, per_finish)
        if inst.finish is not None and pegs == len(inst.finish):
            _target(sp, inst, keys, counts, per_finish)
        nk, nc, g = run.advance(keys, counts, False, f"f{depth + 1:03d}")
        if g:
            games += g
            dead_by[pegs] = dead_by.get(pegs, 0) + g
        res.words = max(res.words, counts.shape[1])
        depth += 1
        if len(nk):
            res.layers_forward.append(len(nk))
        keys, counts = store.save(
            False, depth, nk, nc, list(res.layers_forward),
            {"games": str(games), "dead_by_pegs": {str(k): str(v) for k, v in dead_by.items()},
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
    for p, row in zip(np.asarray(keys), np.asarray(counts)):
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


# ---- where the layers are kept ----------------------------------------------------------------
def _key(inst: PegInstance, sp: Space, direction: str) -> dict:
    return {"kind": "peg-games", "version": 2, "n": inst.board.n,
            "lines": sorted(inst.board.lines), "start": sorted(inst.start),
            "finish": None if inst.finish is None else sorted(inst.finish),
            "first_jump": inst.first_jump, "group": sorted(sp.group), "direction": direction}


class _Store:
    """Where a count keeps its layers. With a work folder (`persistent`): its subfolder
    games-<hash of the problem> holds the last two finished layers of each side (NAME.keys.bin,
    NAME.counts.bin, each with its size and SHA-256 in manifest.json, which is replaced
    atomically, so a kill leaves the old manifest or the new one) and a layer being built on disk
    (NAME.part/: its ranges and checkpoint); a layer whose files are missing or do not match
    their SHA-256 is dropped (`redone` names it) and the count goes on from the layer before.
    Without one: a temporary folder for the layers built on disk, removed by close()."""

    KEEP = 2

    def __init__(self, work_dir, key: dict, keep_free: int | None = None):
        self.persistent = work_dir is not None
        self.keep_free = FREE_RESERVE if keep_free is None else keep_free
        self.redone: list[str] = []
        self.peak = 0
        self.resumed_inside = 0  # positions of unfinished layers not expanded again
        self._notes: dict = {}
        self.earlier: str | None = None  # the sealed manifest's date (an earlier run's layers)
        self.man = {"key": json.loads(json.dumps(key, default=list)), "layers": {}, "sizes": {},
                    "notes": {}}
        if not self.persistent:
            self.dir = Path(tempfile.mkdtemp(prefix="puzzlesat-games-"))
            return
        self.dir = Path(work_dir) / ("games-" + hashlib.sha256(
            json.dumps(key, sort_keys=True, default=list).encode()).hexdigest()[:16])
        make_folder(self.dir, "games work folder")
        mf = self.dir / "manifest.json"
        if mf.exists() or mf.is_symlink():
            from ...core.seal import stamp_of
            why = self._claim(mf)
            if why:
                self.redone.append(f"manifest.json ({why})")
            else:
                self.earlier = stamp_of(self.man, mf)
                self.man.pop("seal", None)

    def _context(self, what: str = "manifest") -> str:
        return f"peg games {what} " + json.dumps([self.dir.name, self.man["key"]], sort_keys=True)

    def _claim(self, mf: Path) -> str | None:
        """Take the folder's manifest if it is sealed for this count and well formed (then
        None), else why not."""
        from ...core.seal import unsealed_why, verified
        from .disk import _read_claim
        try:
            m = json.loads(_read_claim(mf))
        except (OSError, ValueError, RecursionError) as e:
            return str(e) if isinstance(e, OSError) else "not JSON"
        if not isinstance(m, dict) or m.get("key") != self.man["key"]:
            return "not this count's manifest"
        if not verified(m, self._context()):
            return unsealed_why("this count")
        if not _sane_manifest(m):
            return "malformed"
        self.man = m
        return None

    def close(self) -> None:
        if not self.persistent:
            shutil.rmtree(self.dir, ignore_errors=True)

    def layer_paths(self, name: str) -> tuple[Path, Path]:
        return self.dir / f"{name}.keys.bin", self.dir / f"{name}.counts.bin"

    def need(self, nbytes: int) -> None:
        """DiskFull unless `nbytes` more leave keep_free bytes free; records the folder's peak."""
        free = shutil.disk_usage(self.dir).free
        if free - nbytes < self.keep_free:
            raise DiskFull(f"the disk would have less than {self.keep_free / 2**30:.1f} GiB free")
        used = sum(f.stat().st_size for f in self.dir.rglob("*") if f.is_file())
        self.peak = max(self.peak, used + nbytes)

    def _write(self) -> None:
        if not self.persistent:
            return
        from ...core.seal import STAMP, now, sign
        self.man[STAMP] = now()
        tmp = self.dir / "manifest.json.tmp"
        tmp.write_text(json.dumps(sign(self.man, self._context())))
        os.replace(tmp, self.dir / "manifest.json")

    # a layer being built on disk
    def resume_part(self, part: Path, ident: dict) -> dict | None:
        """The checkpoint of a layer being built with this identity, or None (then any old
        range files are removed)."""
        from ...core.seal import verified
        from .disk import _read_claim
        st = part / "state.json"
        if self.persistent and (st.exists() or st.is_symlink()):
            try:
                state = json.loads(_read_claim(st))
                if (isinstance(state, dict) and state.get("ident") == ident
                        and verified(state, self._context("checkpoint")) and _sane_state(state)):
                    state.pop("seal", None)
                    return state
                self.redone.append(f"{part.name} (its checkpoint is not sealed for this count)")
            except (OSError, ValueError, RecursionError):
                self.redone.append(f"{part.name} (its checkpoint is unreadable)")
        self.drop_part(part)
        return None

    def write_state(self, part: Path, state: dict) -> None:
        from ...core.seal import sign
        tmp = part / "state.json.tmp"
        tmp.write_text(json.dumps(sign(state, self._context("checkpoint"))))
        os.replace(tmp, part / "state.json")

    def drop_part(self, part: Path) -> None:
        shutil.rmtree(part, ignore_errors=True)

    # finished layers
    def save(self, backward: bool, depth: int, keys, counts, sizes: list[int],
             notes: dict | None = None):
        """Keep a finished layer (written to the folder unless it was built there); returns the
        layer to go on with (a memmap of the files when it was built on disk)."""
        side = "b" if backward else "f"
        name = f"{side}{depth:03d}"
        kpath, cpath = self.layer_paths(name)
        on_disk = isinstance(keys, np.memmap) or (len(keys) == 0 and kpath.exists())
        if self.persistent or on_disk:
            if not on_disk:
                for a, p in ((keys, kpath), (counts, cpath)):
                    self.need(a.nbytes)
                    tmp = p.with_suffix(".tmp")
                    np.ascontiguousarray(a).tofile(tmp)
                    os.replace(tmp, p)
            entry = {"side": side, "depth": depth, "n": len(keys), "words": counts.shape[1]}
            if self.persistent:
                entry |= {"keys": file_sha256(kpath), "counts": file_sha256(cpath)}
            self.man["layers"][name] = entry
        self.man["sizes"][side] = sizes
        if notes is not None:
            self.man["notes"][name] = notes
        keep = self.KEEP if self.persistent else 1
        old = sorted(n for n, e in self.man["layers"].items() if e["side"] == side)[:-keep]
        self._write()
        for n in old:  # dropped after the manifest no longer needs them
            self.man["layers"].pop(n)
            self.man["notes"].pop(n, None)
            for p in self.layer_paths(n):
                p.unlink(missing_ok=True)
        if old:
            self._write()
        return keys, counts

    def last(self, backward: bool):
        """The deepest intact saved layer of a side: (keys, counts, depth), or None."""
        if not self.persistent:
            return None
        side = "b" if backward else "f"
        for name in sorted((n for n, e in self.man["layers"].items() if e["side"] == side),
                           reverse=True):
            e = self.man["layers"][name]
            kpath, cpath = self.layer_paths(name)
            ok = all(_regular_size(p) == size and file_sha256(p) == e[part]
                     for p, part, size in ((kpath, "keys", 8 * e["n"]),
                                           (cpath, "counts", 8 * e["n"] * e["words"])))
            if ok:
                self._notes = self.man["notes"].get(name, {})
                keys, counts = _memmaps(kpath, cpath, e["n"], e["words"])
                if 8 * e["n"] * (1 + e["words"]) <= LOAD_BYTES:  # small: into memory
                    keys, counts = np.array(keys), np.array(counts)
                return keys, counts, e["depth"]
            self.redone.append(name)
            self.man["layers"].pop(name)
            self.man["notes"].pop(name, None)
            self._write()
        return None

    def sizes(self, backward: bool) -> list[int]:
        return list(self.man["sizes"].get("b" if backward else "f", []))

    def notes(self) -> dict:
        return self._notes


def _regular_size(p: Path) -> int | None:
    """The size of a regular file (not a link, FIFO or device), else None."""
    import stat
    try:
        st = os.lstat(p)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _is_int(x, lo: int = 0, hi: int = 1 << 62) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi


def _sane_manifest(m: dict) -> bool:
    """Whether a sealed manifest has the shapes the count reads (a sealed one always does;
    this keeps a damaged key or code change from becoming a traceback)."""
    layers, sizes, notes = m.get("layers"), m.get("sizes"), m.get("notes")
    if not (isinstance(layers, dict) and isinstance(sizes, dict) and isinstance(notes, dict)):
        return False
    for e in layers.values():
        if not (isinstance(e, dict) and e.get("side") in ("f", "b") and _is_int(e.get("depth"), 0, 1 << 16)
                and _is_int(e.get("n"), 0, 1 << 46) and _is_int(e.get("words"), 1, 1 << 16)
                and isinstance(e.get("keys"), str) and isinstance(e.get("counts"), str)):
            return False
    return all(isinstance(v, list) and all(_is_int(x) for x in v) for v in sizes.values())


def _sane_state(s: dict) -> bool:
    """Whether a sealed checkpoint has the shapes `expand_on_disk` reads."""
    sizes, sha, spl = s.get("sizes"), s.get("sha"), s.get("splitters")
    return (_is_int(s.get("next"), 0, 1 << 62) and isinstance(s.get("dead"), str)
            and s["dead"].isdigit() and isinstance(sizes, list) and isinstance(sha, list)
            and isinstance(spl, list) and len(sizes) == len(sha) == len(spl) + 1
            and all(_is_int(x) for x in sizes)
            and all(isinstance(p, list) and len(p) == 2 and all(isinstance(h, str) for h in p)
                    for p in sha) and all(_is_int(x, 0, (1 << 64) - 1) for x in spl))


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
                keep_free: int | None = None, progress=None):
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
                        work_dir=work_dir, keep_free=keep_free,
                        progress=None if progress is None else
                        (lambda side, d, n, v=v: progress(v, side, d, n)))
        rows = [TableRow(v, f, None if r.per_finish is None else r.per_finish.get(f, 0), size)
                for (_, f), size in pairs]
        yield v, r, rows
