"""Peg solitaire by breadth-first search on *moves*, bidirectional, reduced by the board's symmetries.

A layer is the set of positions first reached after exactly d moves (a move = one peg's whole jump
chain; every prefix of a chain is a successor), held as a sorted `np.uint64` array of bitboards in
canonical form: the minimum over the images under a subgroup G of the board's symmetry group.
One numba kernel generates the successors of a layer (a DFS over each position's chains) and
canonicalises them with per-byte image tables; NumPy sorts, de-duplicates and subtracts the
positions seen on earlier layers.

The backward search runs the same kernel on *unjumps* (a peg in `c` with `b` and `a` empty moves to
`a` and refills `b`) — this is a jump of holes, i.e. the forward game on the complemented board. An
unjump chain is exactly the reverse of a forward chain, so backward layer e holds the positions whose
distance to the finish is e moves. The bidirectional search always extends the side with the smaller
frontier and stops at the first layer that meets the other side's frontier: with no meeting among
layers 0..d and 0..e the optimum exceeds d + e, so the first meeting, d + 1 + e, is optimal. One
optimal jump sequence is rebuilt from the stored layers by walking from a meeting position back to
the start (through unjump chains landing in the previous forward layer) and on to the finish.

Symmetry: canonical forms are only compared within one group. The bidirectional search uses the
symmetries that map the start, the finish and the required first jump onto themselves (so every
layer on both sides is closed under the group); forward-only searches need only the start's (and
first jump's) stabiliser, and map the solution found onto the real finish at the end.

>>> from puzzlesat.puzzles.peg import catalogue
>>> r = search(catalogue()["hoppers"]())
>>> r.moves, r.layers_forward, r.layers_backward
(7, [1, 1, 2, 9, 40], [1, 14, 35, 89])
"""
from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
from numba import njit

from ...core.limits import PEG_BITBOARD_HOLES
from ...core.result import Context, InputError, Outcome, Status, Task
from ...puzzles.peg import Jump, PegInstance, Solution

from . import disk
from .bound import NO_BOUND, Bound, backward_bound, bound_of, forward_bound
from .disk import DiskFull, LayerBuilder, OutOfTime, Store, check_time

Perm = tuple[int, ...]        # a symmetry as a hole permutation: hole h goes to perm[h]
Chain = list[Jump]            # the jumps of one move, in playing order

CHUNK = 1 << 22               # successor buffer (entries) per kernel call: 32 MiB
SLICE_IN = 1 << 21            # positions of a layer read at once (a layer may be a memmap)
CHECKPOINT_SECONDS = 60.0     # a layer built on disk in a work folder records its progress this often
BYTE = np.uint64(255)
EIGHT = np.uint64(8)
ONE = np.uint64(1)
ZERO = np.uint64(0)
LOW32 = np.uint64(0xFFFFFFFF)


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _canon(p, tables, nbytes):
    """The least image of bitboard `p` under the symmetries tabulated in `tables` (and identity)."""
    best = p
    for g in range(tables.shape[0]):
        q = ZERO
        x = p
        for j in range(nbytes):
            q |= tables[g, j, x & BYTE]
            x >>= EIGHT
        if q < best:
            best = q
    return best


@njit(cache=True)
def canon_many(ps, tables, nbytes):
    """Canonical forms of an array of bitboards."""
    out = np.empty(ps.shape[0], np.uint64)
    for i in range(ps.shape[0]):
        out[i] = _canon(ps[i], tables, nbytes)
    return out


@njit(cache=True)
def _visit(s, hole, keys, holes, ticks, t, used):
    """Mark chain state (s, hole) for the position stamped t in an open-addressing table:
    returns (seen before, entries used). The caller keeps the table at most half full."""
    mask = keys.shape[0] - 1
    # 32-bit halves times 32-bit odd constants: no product wraps (plain Python warns on wrapping)
    x = (((s & LOW32) * np.uint64(0x9E3779B1)) ^ ((s >> np.uint64(32)) * np.uint64(0x85EBCA77))
         ^ (np.uint64(hole + 1) * np.uint64(0xC2B2AE3D)))
    idx = np.int64((x >> np.uint64(13)) & np.uint64(mask))
    while ticks[idx] == t:
        if keys[idx] == s and holes[idx] == hole:
            return True, used
        idx = (idx + 1) & mask
    ticks[idx] = t
    keys[idx] = s
    holes[idx] = hole
    return False, used + 1


@njit(cache=True)
def _expand(layer, i0, m3, want, to, lstart, tables, nbytes, out, singles, masks, group_len,
            offset, table, anywhere, flip, hmax, keys, holes, ticks, tick):
    """Canonical successors by one move of layer[i0:], written to `out` until it is full.

    A line j applies to bitboard p when p & m3[j] == want[j]; it flips the three holes
    (p ^ m3[j]) and the moving peg lands in to[j], where the chain may go on with lines
    lstart[to[j]] .. lstart[to[j] + 1] - 1. Every chain prefix is a successor; with hmax >= 0 one
    is written only when its bound (bound.bound_of with the bound arguments) is at most hmax
    (the chain is followed on either way: a later prefix may have a smaller bound). A chain state
    (position, moving peg's hole) two or more jumps deep that an earlier chain of the same move
    reached is not followed again (its prefixes are the same positions): the table keys/holes/
    ticks, stamped per position by tick[0], keeps the number of chains followed to the distinct
    states (a lone peg unjumping on a large empty board has exponentially many chains to few
    states). A position's successors are written all or none: returns (index of the first
    position not expanded, entries written, chain states generated, whether the table ran full:
    then the caller gives a larger one and calls again from that index).
    """
    cap = out.shape[0]
    nlines = m3.shape[0]
    depth = 66
    stk_p = np.empty(depth, np.uint64)
    stk_h = np.empty(depth, np.int64)
    stk_j = np.empty(depth, np.int64)
    k = 0
    gen = 0
    i = i0
    while i < layer.shape[0]:
        p = layer[i]
        k0 = k
        g0 = gen
        full = False
        tick[0] += 1
        t = tick[0]
        used = 0
        for j0 in range(nlines):
            if (p & m3[j0]) != want[j0]:
                continue
            q = p ^ m3[j0]
            gen += 1
            if hmax < 0 or bound_of(q, singles, masks, group_len, offset, table, anywhere,
                                    flip) <= hmax:
                if k == cap:
                    full = True
                    break
                out[k] = _canon(q, tables, nbytes)
                k += 1
            sp = 0
            stk_p[0] = q
            stk_h[0] = to[j0]
            stk_j[0] = lstart[to[j0]]
            while sp >= 0:
                h = stk_h[sp]
                j = stk_j[sp]
                if j < lstart[h + 1]:
                    stk_j[sp] = j + 1
                    r = stk_p[sp]
                    if (r & m3[j]) == want[j]:
                        s = r ^ m3[j]
                        seen, used = _visit(s, to[j], keys, holes, ticks, t, used)
                        if seen:
                            continue
                        if 2 * used > keys.shape[0]:
                            return i, k0, g0, True
                        gen += 1
                        if hmax < 0 or bound_of(s, singles, masks, group_len, offset, table,
                                                anywhere, flip) <= hmax:
                            if k == cap:
                                full = True
                                break
                            out[k] = _canon(s, tables, nbytes)
                            k += 1
                        sp += 1
                        stk_p[sp] = s
                        stk_h[sp] = to[j]
                        stk_j[sp] = lstart[to[j]]
                else:
                    sp -= 1
            if full:
                break
        if full:
            return i, k0, g0, False
        i += 1
    return i, k, gen, False


# ---- the search space -------------------------------------------------------------------------
def _bits(holes) -> int:
    m = 0
    for h in holes:
        m |= 1 << h
    return m


def _image(perm: Perm, p: int) -> int:
    q = 0
    while p:
        low = p & -p
        q |= 1 << perm[low.bit_length() - 1]
        p ^= low
    return q


class Space:
    """A board's jump lines as kernel arrays (forward and backward) and a symmetry subgroup."""

    def __init__(self, inst: PegInstance, group: list[Perm]):
        b = inst.board
        if b.n > PEG_BITBOARD_HOLES:
            raise ValueError(f"bitboards hold at most {PEG_BITBOARD_HOLES} holes (board {b.name} "
                             f"has {b.n})")
        self.inst, self.n, self.group = inst, b.n, group
        self.nbytes = (b.n + 7) // 8
        self.full = (1 << b.n) - 1
        others = [g for g in group if list(g) != list(range(b.n))]
        self.tables = np.zeros((len(others), self.nbytes, 256), np.uint64)
        for gi, g in enumerate(others):
            for j in range(self.nbytes):
                for v in range(256):
                    self.tables[gi, j, v] = _image(g, (v << (8 * j)) & self.full)
        fwd = sorted(b.lines)                          # a peg in a jumps over b into c
        bwd = sorted((c, m, a) for a, m, c in b.lines)  # unjump: a peg in c goes back to a
        self.lines = {False: fwd, True: bwd}
        self.arrays = {False: self._arrays(fwd, backward=False), True: self._arrays(bwd, backward=True)}
        self.by_from = {k: {h: [l for l in ls if l[0] == h] for h in range(b.n)}
                        for k, ls in self.lines.items()}

    def _arrays(self, lines, backward: bool):
        m3 = np.array([_bits(l) for l in lines], np.uint64)
        want = np.array([_bits(l[:1] if backward else l[:2]) for l in lines], np.uint64)
        to = np.array([l[2] for l in lines], np.int64)
        lstart = np.searchsorted(np.array([l[0] for l in lines], np.int64),
                                 np.arange(self.n + 1)).astype(np.int64)
        return m3, want, to, lstart

    def canon(self, ps) -> np.ndarray:
        """Canonical forms of bitboards (a list or array)."""
        return canon_many(np.asarray(ps, dtype=np.uint64), self.tables, self.nbytes)

    def applies(self, p: int, line: Jump, backward: bool) -> bool:
        a, m, c = line
        return bool(p >> a & 1) and (not p >> m & 1) == backward and not p >> c & 1

    def chains(self, p: int, backward: bool = False, first: Jump | None = None
               ) -> Iterator[tuple[int, Chain]]:
        """Every (position, chain) one move away from p (plain Python, for reconstruction).

        Backward chains are listed as unjumps (c, b, a); `first` fixes the chain's first line."""
        heads = [first] if first is not None else self.lines[backward]
        stack = [(p ^ _bits(l), [l]) for l in heads if self.applies(p, l, backward)]
        while stack:
            q, ch = stack.pop()
            yield q, ch
            for l in self.by_from[backward][ch[-1][2]]:
                if self.applies(q, l, backward):
                    stack.append((q ^ _bits(l), ch + [l]))

    def expand(self, layer: np.ndarray, backward: bool, previous, counters: dict, *,
               store: Store | None = None, name: str = "layer", bound: Bound | None = None,
               hmax: int = -1, deadline: float | None = None) -> np.ndarray:
        """The next layer: canonical successors of `layer` (with `bound`: only those whose bound is
        at most `hmax`) that are in no array of `previous` (an array or a list of them), sorted,
        unique. Built in memory while it fits in the store's budget, else on disk (disk.py);
        `name` names it in the store. `layer` may be a memmap: it is read in slices. Past
        `deadline` (time.monotonic(); checked before each kernel call and in the merge) it raises
        disk.OutOfTime and the unfinished layer's files are removed — except, with a work
        folder, a layer built on disk: its range files and a checkpoint (every
        CHECKPOINT_SECONDS) stay, and building the same layer again goes on from the checkpoint
        (disk.LayerBuilder.resume; counters["resumed_inside"] counts the positions skipped)."""
        if isinstance(previous, np.ndarray):
            previous = [previous]
        store = store or default_store()
        m3, want, to, lstart = self.arrays[backward]
        bargs = (bound or NO_BOUND).args
        if bound is None:
            hmax = -1
        out = np.empty(CHUNK, np.uint64)
        keys, holes, ticks, tick = _state_table()
        builder = LayerBuilder(store, name, merge_unique, _minus)
        ident = {"layer": name, "n": len(layer), "backward": bool(backward), "hmax": int(hmax),
                 "ends": [int(layer[0]), int(layer[-1])] if len(layer) else []}
        state = builder.resume(ident) if store.persistent else None
        start, base = 0, counters["nodes"]
        if state is not None:  # a checkpoint inside this layer: go on from it
            start = state["next"]
            counters["nodes"] += state["nodes"]
            counters["kept"] = counters.get("kept", 0) + state["kept"]
            counters["resumed_inside"] = counters.get("resumed_inside", 0) + start
        kept0 = counters.get("kept", 0) - (state["kept"] if state else 0)
        last_cp = time.monotonic()
        try:
            for s0 in range(start, len(layer), SLICE_IN):
                part = np.asarray(layer[s0:s0 + SLICE_IN])
                i = 0
                while i < len(part):
                    check_time(deadline, f"the expansion of layer {name}")
                    i2, k, gen, table_full = _expand(part, i, m3, want, to, lstart, self.tables,
                                                     self.nbytes, out, *bargs, hmax, keys, holes,
                                                     ticks, tick)
                    if table_full:  # one position's chains reach more states than the table holds
                        keys, holes, ticks, tick = _state_table(4 * len(keys))
                    elif i2 == i:  # one position has more successors than the buffer holds
                        out = np.empty(2 * len(out), np.uint64)
                    if k:  # the positions before i2 are done
                        counters["nodes"] += int(gen)
                        counters["kept"] = counters.get("kept", 0) + int(k)
                        builder.expected = max(1.5, 1.5 * len(layer) / max(1, s0 + i2))
                        builder.add(_unique(out[:k]))
                    elif i2 > i:
                        counters["nodes"] += int(gen)
                    i = i2
                    if store.persistent and time.monotonic() - last_cp > CHECKPOINT_SECONDS:
                        builder.checkpoint(ident, {"next": s0 + i, "nodes": counters["nodes"] - base,
                                                   "kept": counters.get("kept", 0) - kept0})
                        last_cp = time.monotonic()
            res = builder.finish(previous, deadline=deadline)
        except BaseException as e:
            builder.abandon(keep=not isinstance(e, DiskFull))
            raise
        if builder.spilled:
            counters["spilled"] = counters.get("spilled", 0) + 1
        return res


def all_vacancies(b) -> tuple:
    """(space of board b under all its symmetries, the canonical single-vacancy starts, the
    canonical lone pegs): the roots of the searches over every problem at once (`--least`)."""
    group = [tuple(g) for g in b.symmetries]
    inst = PegInstance(f"{b.name}:all", b, frozenset(range(1, b.n)), frozenset({0}))
    sp = Space(inst, group)
    full = (1 << b.n) - 1
    return (sp, _unique(sp.canon([full ^ (1 << h) for h in range(b.n)])),
            _unique(sp.canon([1 << h for h in range(b.n)])))


STATE_TABLE = 1 << 16         # chain states remembered per position expanded, to start with


def _state_table(size: int = STATE_TABLE) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The chain-state table of _expand (a power-of-two size): keys, holes, ticks, tick counter."""
    return (np.zeros(size, np.uint64), np.zeros(size, np.int8), np.zeros(size, np.int64),
            np.zeros(1, np.int64))


_unique = disk.unique_sorted  # sorted distinct elements


@njit(cache=True)
def gallop(b, j, x):
    """The first index >= j of sorted b whose element is >= x (exponential then binary search)."""
    nb = b.shape[0]
    if j >= nb or b[j] >= x:
        return j
    step = 1
    while j + step < nb and b[j + step] < x:
        j += step
        step *= 2
    lo = j + 1
    hi = min(j + step, nb)
    while lo < hi:  # b[lo - 1] < x <= b[hi] (or hi == nb)
        mid = (lo + hi) // 2
        if b[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _merge_sorted(a, b, out):
    """Merge sorted unique a and b into out without repeats; returns the length written."""
    i = j = k = 0
    na, nb = a.shape[0], b.shape[0]
    while i < na and j < nb:
        x, y = a[i], b[j]
        if x < y:
            out[k] = x
            i += 1
        elif y < x:
            out[k] = y
            j += 1
        else:
            out[k] = x
            i += 1
            j += 1
        k += 1
    while i < na:
        out[k] = a[i]
        i += 1
        k += 1
    while j < nb:
        out[k] = b[j]
        j += 1
        k += 1
    return k


def merge_unique(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted union of sorted unique arrays (a linear merge: re-sorting a growing layer with each
    new chunk cost time quadratic in the chunks)."""
    if len(a) == 0 or len(b) == 0:
        return b if len(a) == 0 else a
    out = np.empty(len(a) + len(b), np.uint64)
    k = _merge_sorted(a, b, out)
    return out[:k]  # the slack (repeats of the last merge) is small beside the layer


@njit(cache=True)
def _minus_sorted(a, b):
    """Sorted a without the elements of sorted b: a merge that gallops through b."""
    out = np.empty(a.shape[0], np.uint64)
    nb = b.shape[0]
    j = np.int64(0)  # not the literal 0: gallop compiles once
    k = 0
    for i in range(a.shape[0]):
        x = a[i]
        j = gallop(b, j, x)
        if j < nb and b[j] == x:
            continue
        out[k] = x
        k += 1
    return out[:k]


@njit(cache=True)
def common_sorted(a, b):
    """The elements of sorted a that are in sorted b: a merge that gallops through the longer side."""
    if a.shape[0] > b.shape[0]:
        a, b = b, a
    out = np.empty(a.shape[0], np.uint64)
    nb = b.shape[0]
    j = np.int64(0)  # not the literal 0: gallop compiles once
    k = 0
    for i in range(a.shape[0]):
        x = a[i]
        j = gallop(b, j, x)
        if j < nb and b[j] == x:
            out[k] = x
            k += 1
    return out[:k]


def _minus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted a without the elements of sorted b."""
    if len(a) == 0 or len(b) == 0:
        return a
    return _minus_sorted(a, b)


def _common(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted elements of sorted a that are in sorted b."""
    if len(a) > len(b):
        a, b = b, a
    if len(a) == 0:
        return a
    idx = np.searchsorted(b, a)
    idx[idx == len(b)] = 0
    return a[b[idx] == a]


def contains(layer: np.ndarray, x: int) -> bool:
    i = int(np.searchsorted(layer, np.uint64(x)))
    return i < len(layer) and int(layer[i]) == x


def _union(seen: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Sorted union of two disjoint sorted arrays (a linear merge)."""
    return merge_unique(seen, new)


def next_layer(space: Space, done: list[np.ndarray], backward: bool, counters: dict, store: Store,
               name: str, bound: Bound | None, K: int | None, expander=None,
               deadline: float | None = None) -> np.ndarray:
    """Layer len(done) after layers `done` (with a bound and K: depth + bound <= K kept).
    `expander`: a function with Space.expand's signature, the space first (e.g. chunks on a
    cluster, compare/peg/layers.py); default the space's own expand. Past `deadline`
    disk.OutOfTime (checked inside the layer, Space.expand)."""
    expand = (lambda *a, **k: expander(space, *a, **k)) if expander is not None else space.expand
    if bound is None or K is None:
        return expand(done[-1], backward, done, counters, store=store, name=name,
                      deadline=deadline)
    hmax = K - len(done)
    if hmax < 0:
        return store.commit(name, np.empty(0, np.uint64))
    return expand(done[-1], backward, done, counters, store=store, name=name, bound=bound,
                  hmax=hmax, deadline=deadline)


def layers(space: Space, root: np.ndarray, backward: bool, counters: dict | None = None,
           limit: int | None = None, *, store: Store | None = None, prefix: str = "",
           bound: Bound | None = None, K: int | None = None, expander=None,
           deadline: float | None = None) -> Iterator[np.ndarray]:
    """BFS layers from `root` (a sorted canonical array): root first, then each next layer, ending
    with the first empty one (or after layer `limit`). counters["nodes"] counts successors. With a
    store, layer d is named prefix + d (a layer the store already holds is read back, not
    recomputed: resuming); with `bound` and K only positions with depth + bound <= K are kept.
    Past `deadline` disk.OutOfTime, inside the layer being built.

    >>> from puzzlesat.puzzles.peg import catalogue
    >>> inst = catalogue()["english33"]()
    >>> sp = Space(inst, group_for(inst, symmetry=True, with_finish=False))
    >>> [len(x) for x in layers(sp, np.array([_bits(inst.start)], np.uint64), False, limit=7)]
    [1, 1, 2, 9, 47, 263, 1452, 7772]
    """
    counters = {"nodes": 0} if counters is None else counters
    store = store or default_store()
    done: list[np.ndarray] = [root]
    yield root
    depth = 0
    while len(done[-1]) and (limit is None or depth < limit):
        depth += 1
        name = f"{prefix}{depth:03d}"
        new = store.saved(name) if store.persistent else None
        if new is None:
            new = next_layer(space, done, backward, counters, store, name, bound, K, expander,
                             deadline)
        done.append(new)
        yield new


# ---- the search -------------------------------------------------------------------------------
def group_for(inst: PegInstance, symmetry: bool, with_finish: bool) -> list[Perm]:
    """The symmetries fixing the start, the first jump and (if `with_finish`) the finish."""
    ident = tuple(range(inst.board.n))
    if not symmetry:
        return [ident]
    keep = []
    for g in inst.board.symmetries:
        if {g[h] for h in inst.start} != set(inst.start):
            continue
        if with_finish and inst.finish is not None and {g[h] for h in inst.finish} != set(inst.finish):
            continue
        if inst.first_jump is not None and any(g[h] != h for h in inst.first_jump):
            continue
        keep.append(tuple(g))
    return keep


@dataclass
class Result:
    """What a search found: the optimum (None: not found) with one optimal solution, or what was
    proved (`lower`: no solution has fewer moves; `infeasible`: none at all), and figures."""

    moves: int | None
    solution: Solution | None
    layers_forward: list[int] = field(default_factory=list)
    layers_backward: list[int] = field(default_factory=list)
    seconds_forward: list[float] = field(default_factory=list)
    seconds_backward: list[float] = field(default_factory=list)
    nodes: int = 0
    group_order: int = 1
    meet: tuple[int, int] | None = None
    exhausted: bool = False      # a side was searched to its end (unpruned: a proof)
    infeasible: bool = False     # proved: no solution at all
    lower: int = 0               # proved: every solution has at least this many moves
    bound: int | None = None     # pruned search: K of the search that answered (moves <= K)
    refuted: list[int] = field(default_factory=list)  # pruned searches that proved moves > K
    out_of_disk: bool = False    # stopped by the disk limit: only `lower` is proved
    out_of_time: bool = False    # stopped by the time limit: only `lower` is proved
    disk_peak: int = 0           # bytes of layer files at most
    spilled: int = 0             # layers built on disk
    resumed: int = 0             # layers read back from the work folder
    resumed_inside: int = 0      # positions of an unfinished layer not expanded again (checkpoint)
    resumed_from: str | None = None  # when the earlier run that sealed those layers wrote them
    reason: str | None = None

    @property
    def reachable_total(self) -> int:
        return sum(self.layers_forward)


def _store_figures(res: Result, store: Store) -> None:
    res.disk_peak = max(res.disk_peak, store.peak_disk)
    if (res.resumed or res.resumed_inside) and store.earlier:
        res.resumed_from = store.earlier


def search_key(inst: PegInstance, sp: Space, **extra) -> dict:
    """The key of one search's work folder: the board's lines, start, finish, first jump, group."""
    return disk.search_key(kind="peg-bfs", n=inst.board.n, lines=sorted(inst.board.lines),
                               start=inst.start, finish=inst.finish, first_jump=inst.first_jump,
                               group=sorted(sp.group), **extra)


def search(inst: PegInstance, *, symmetry: bool = True, bidirectional: bool = True,
           exhaust: bool = False, direction: str = "forward", ctx: Context | None = None,
           memory: int | None = None, work_dir: str | None = None, disk_limit: int | None = None,
           prune: bool = False, max_moves: int | None = None, expander=None) -> Result:
    """Minimum moves from inst.start to inst.finish by layered BFS, with one optimal solution.

    `exhaust` searches one way to the end and still reports the optimum: forward (`direction`
    "forward": every position reachable from the start, the first depth at which the finish
    appears) or backward ("backward": every position that can reach the finish, by the moves it
    needs; the start's layer is the optimum). It implies a one-sided search.

    `prune`: searches bounded by K moves (native_search/peg/bound.py: a position at depth d is kept
    only if d + its Merson bound <= K), for K = `max_moves`, or ascending from the bound of the start
    until one meets (the first that meets is the optimum; each that does not proves moves > K).

    Layers live in memory within `memory` bytes (default disk.default_memory()), else on disk;
    with `work_dir` every finished layer is kept there and a search started again with the same
    folder resumes from its last complete layer. Past `disk_limit` bytes (or on a full disk), or
    past the context's time limit, the search stops: `moves` None, `lower` what its complete layers
    proved. `expander`: how layers are expanded (next_layer; e.g. chunks on a cluster).
    """
    ctx = ctx or Context()
    if prune and exhaust:
        raise ValueError("a pruned search cannot exhaust a side")
    if exhaust and direction == "backward":
        return _search_backward(inst, symmetry, ctx, memory, work_dir, disk_limit)
    t0 = time.monotonic()
    bidirectional = bidirectional and not exhaust
    group = group_for(inst, symmetry, with_finish=bidirectional or prune)
    sp = Space(inst, group)
    res = Result(None, None, group_order=len(group))
    if inst.solved_at_start:
        res.moves, res.solution, res.layers_forward, res.meet = 0, (), [1], (0, 0)
        return res
    if inst.jumps_needed <= 0:
        res.reason = "no jump can be made (the finish has as many pegs as the start)"
        res.layers_forward = [1]
        res.infeasible = True
        return res
    if inst.first_jump is not None:
        a, c = inst.first_jump
        line = next((l for l in sp.lines[False] if l[0] == a and l[2] == c), None)
        if line is None or not sp.applies(_bits(inst.start), line, False):
            res.reason = f"the first jump {a}->{c} is not possible from the start"
            res.layers_forward = [1]
            res.infeasible = True
            return res
    if not prune:
        store = Store(work_dir, search_key(inst, sp, bidirectional=bidirectional, exhaust=exhaust),
                      memory, disk_limit)
        try:
            _bidir(inst, sp, res, store, ctx, t0, bidirectional, exhaust, expander=expander)
        finally:
            _store_figures(res, store)
            store.close()
        return res
    fb = forward_bound(inst.board, inst.finish)
    bb = backward_bound(inst.board, frozenset(range(inst.board.n)) - inst.start)
    k = max_moves
    if k is None:
        k = max(1, int(fb.of([_bits(inst.start)])[0]))
        if inst.finish is not None:
            k = max(k, int(bb.of([_bits(inst.finish)])[0]))
    k = min(k, inst.jumps_needed)
    while True:
        store = Store(work_dir, search_key(inst, sp, bidirectional=bidirectional, K=k,
                                           bound=[fb.description, bb.description]), memory, disk_limit)
        one = Result(None, None, group_order=len(group))
        try:
            _bidir(inst, sp, one, store, ctx, t0, bidirectional, False, K=k, fb=fb, bb=bb,
                   expander=expander)
        finally:
            _store_figures(one, store)
            store.close()
        for f in ("layers_forward", "layers_backward", "seconds_forward", "seconds_backward",
                  "meet", "moves", "solution", "reason", "out_of_disk", "out_of_time"):
            setattr(res, f, getattr(one, f))
        res.nodes += one.nodes
        res.disk_peak = max(res.disk_peak, one.disk_peak)
        res.spilled += one.spilled
        res.resumed += one.resumed
        res.resumed_inside += one.resumed_inside
        res.resumed_from = res.resumed_from or one.resumed_from
        res.lower = max(res.lower, one.lower)
        res.bound = k
        if one.moves is not None or one.out_of_disk or one.out_of_time:
            return res
        res.refuted.append(k)
        if k >= inst.jumps_needed:  # every solution has jumps_needed jumps, so no more moves
            res.infeasible = True
            res.reason = (f"no solution within {k} moves, and every solution has {inst.jumps_needed} "
                          "jumps")
            return res
        if max_moves is not None:
            res.reason = f"no solution within {k} moves (pruned search)"
            return res
        k += 1


def _bidir(inst: PegInstance, sp: Space, res: Result, store: Store, ctx: Context, t0: float,
           bidirectional: bool, exhaust: bool, K: int | None = None, fb: Bound | None = None,
           bb: Bound | None = None, expander=None) -> None:
    """The bidirectional layered search (module docstring) from inst.start to inst.finish into
    `res`, with one optimal solution rebuilt; with K, layers pruned by the bounds fb (forward) and
    bb (backward) and stopped once the depths reach K."""
    start = _bits(inst.start)
    finish = None if inst.finish is None else _bits(inst.finish)
    targets = _unique(sp.canon([1 << h for h in range(sp.n)]) if finish is None else sp.canon([finish]))
    roots = [np.array([start], np.uint64)]
    first_line = None
    if inst.first_jump is not None:
        a, c = inst.first_jump
        first_line = next(l for l in sp.lines[False] if l[0] == a and l[2] == c)
        roots.append(_unique(sp.canon([q for q, _ in sp.chains(start, False, first_line)])))
    fwd, bwd, meeting = meet(sp, roots, targets, res, store, ctx, t0, bidirectional, exhaust, K, fb, bb,
                             expander)
    if meeting is not None:
        d, e, m = meeting
        res.solution = _reconstruct(sp, fwd, bwd, d, e, m, first_line)


def meet(sp: Space, roots: list[np.ndarray], targets: np.ndarray, res: Result, store: Store,
         ctx: Context, t0: float, bidirectional: bool = True, exhaust: bool = False,
         K: int | None = None, fb: Bound | None = None, bb: Bound | None = None, expander=None,
         backward_depth: int | None = None
         ) -> tuple[list[np.ndarray], list[np.ndarray], tuple[int, int, int] | None]:
    """Layers from the forward roots (layer 0, and layer 1 too when a first jump is fixed) and
    from the backward `targets`, the smaller frontier grown first, until they meet: returns the
    layers and (d, e, a common canonical position) with d + e the least distance, or None (then
    `res` says what is proved: `lower`, or infeasible when an unpruned side ran out). With K the
    layers keep depth + bound <= K (fb forward, bb backward) and the search stops at depth sum K.
    Layers live in `store` (resumed from it when it persists), expanded by `expander` (next_layer);
    `backward_depth` caps the backward side's depth (then the forward side grows alone). `res`
    gets the layer sizes, seconds, nodes, meet, moves and lower."""
    counters = {"nodes": 0}

    def root(ps: np.ndarray, bound: Bound | None, depth: int) -> np.ndarray:
        if K is None or bound is None or not len(ps):
            return ps
        return ps[bound.of(ps) + depth <= K]

    fwd: list[np.ndarray] = [root(r, fb, d) for d, r in enumerate(roots)]
    bwd: list[np.ndarray] = [root(targets, bb, 0)]
    res.layers_forward = [len(x) for x in fwd]
    res.seconds_forward = [0.0] * len(fwd)
    res.layers_backward = [len(bwd[0])]
    res.seconds_backward = [0.0]

    def report(side: str, depth: int, size: int) -> None:
        ctx.progress(side=side, layer=depth, size=size, nodes=counters["nodes"],
                     elapsed=round(time.monotonic() - t0, 2), **({"max_moves": K} if K else {}))

    report("forward", len(fwd) - 1, len(fwd[-1]))
    if bidirectional:
        report("backward", 0, len(bwd[0]))
    meeting = None  # (forward depth, backward depth, a common canonical position)
    common = _common(fwd[-1], bwd[-1])  # layer 1 after a required first jump
    if len(common):
        meeting = (len(fwd) - 1, 0, int(common[0]))
    rate = {True: 0.0, False: 0.0}  # successors generated per position expanded, by side (forward)
    empty_side = None
    if not len(fwd[-1]):
        empty_side = "forward"
    elif bidirectional and not len(bwd[0]):
        empty_side = "backward"
    while (meeting is None or exhaust) and empty_side is None:
        A, E = len(fwd) - 1, len(bwd) - 1
        if K is not None and A + E >= K:
            break
        if ctx.expired():
            res.out_of_time = True
            res.reason = f"time limit: layers to forward depth {A}, backward depth {E} searched"
            break
        if K is None:  # the smaller frontier
            forward = not bidirectional or len(fwd[-1]) <= len(bwd[-1])
        else:  # pruned: the side whose next layer generates fewer successors, by its last rate
            # (a rate from the roots alone says little: single pegs unjump far; then the other's)
            rf = rate[True] or rate[False] or 1.0
            rb = rate[False] or rate[True] or 1.0
            forward = not bidirectional or len(fwd[-1]) * rf <= len(bwd[-1]) * rb
        if backward_depth is not None and E >= backward_depth:
            forward = True
        side, name = (fwd, f"f{A + 1:03d}") if forward else (bwd, f"b{E + 1:03d}")
        t1 = time.monotonic()
        new = store.saved(name) if store.persistent else None
        before = counters["nodes"]
        if new is not None:
            res.resumed += 1
            counters["nodes"] += store.note(name).get("nodes", 0)
        else:
            spilled = counters.get("spilled", 0)
            try:
                new = next_layer(sp, side, not forward, counters, store, name,
                                 fb if forward else bb, K, expander, ctx.deadline)
            except DiskFull as e:
                res.out_of_disk = True
                res.reason = (f"{e}: layers to forward depth {A}, backward depth {E} searched")
                break
            except OutOfTime as e:
                res.out_of_time = True
                res.reason = (f"{e}: layers to forward depth {A}, backward depth {E} searched")
                break
            res.spilled += counters.get("spilled", 0) - spilled
            if store.persistent:
                store.set_note(name, {"nodes": counters["nodes"] - before,
                                      "seconds": round(time.monotonic() - t1, 3)})
        if len(side) > 1:
            rate[forward] = max(1.0, (counters["nodes"] - before) / max(1, len(side[-1])))
        side.append(new)
        sizes = res.layers_forward if forward else res.layers_backward
        secs = res.seconds_forward if forward else res.seconds_backward
        sizes.append(len(new))
        secs.append(round(time.monotonic() - t1, 3))
        report("forward" if forward else "backward", len(side) - 1, len(new))
        if len(new) == 0:
            side.pop()
            sizes.pop()
            secs.pop()
            empty_side = "forward" if forward else "backward"
            break
        if meeting is None:
            common = _common(new, bwd[-1] if forward else fwd[-1])
            if len(common):
                meeting = (len(fwd) - 1, len(bwd) - 1, int(common[0]))
    res.nodes = counters["nodes"]
    res.resumed_inside = counters.get("resumed_inside", 0)
    A, E = len(fwd) - 1, len(bwd) - 1
    if meeting is None:
        if empty_side is not None:
            res.exhausted = empty_side == "forward"
            if K is None:
                res.infeasible = True
                res.reason = (f"the {empty_side if bidirectional else 'forward'} search ran out of "
                              "positions without meeting the other side")
                return fwd, bwd, None
            res.lower = K + 1
            res.reason = f"no solution within {K} moves: the pruned {empty_side} side ran out"
            return fwd, bwd, None
        reached = A + E if bidirectional else A
        res.lower = reached + 1 if K is None else min(reached, K) + 1
        if K is not None and reached >= K and res.reason is None:
            res.reason = f"no solution within {K} moves (pruned layers to depth {A} + {E})"
        return fwd, bwd, None
    d, e, m = meeting
    res.meet = (d, e)
    res.moves = res.lower = d + e
    return fwd, bwd, meeting


def _search_backward(inst: PegInstance, symmetry: bool, ctx: Context, memory: int | None,
                     work_dir: str | None, disk_limit: int | None) -> Result:
    """Every position that can reach the finish, layer by layer (moves needed), then the start's
    distance (through the required first jump if any) and one optimal sequence walked forward."""
    t0 = time.monotonic()
    b = inst.board
    group = [tuple(range(b.n))]
    if symmetry:  # the finish's stabiliser (all symmetries for "one peg anywhere")
        group = [tuple(g) for g in b.symmetries
                 if inst.finish is None or {g[h] for h in inst.finish} == set(inst.finish)]
    sp = Space(inst, group)
    res = Result(None, None, group_order=len(group))
    counters = {"nodes": 0}
    targets = _unique(sp.canon([1 << h for h in range(sp.n)] if inst.finish is None
                               else [_bits(inst.finish)]))
    store = Store(work_dir, search_key(inst, sp, exhaust="backward"), memory, disk_limit)
    try:
        return _search_backward_in(inst, sp, res, store, ctx, t0, counters, targets)
    finally:
        _store_figures(res, store)
        store.close()


def _search_backward_in(inst, sp, res, store, ctx, t0, counters, targets) -> Result:
    bwd: list[np.ndarray] = [targets]
    res.layers_backward.append(len(targets))
    res.seconds_backward.append(0.0)
    while True:
        if ctx.expired():
            res.out_of_time = True
            res.reason = f"time limit: backward layers to depth {len(bwd) - 1} searched"
            break
        t1 = time.monotonic()
        name = f"b{len(bwd):03d}"
        new = store.saved(name) if store.persistent else None
        if new is not None:
            res.resumed += 1
        else:
            try:
                new = next_layer(sp, bwd, True, counters, store, name, None, None,
                                 deadline=ctx.deadline)
            except DiskFull as e:
                res.out_of_disk = True
                res.reason = f"{e}: backward layers to depth {len(bwd) - 1} searched"
                break
            except OutOfTime as e:
                res.out_of_time = True
                res.reason = f"{e}: backward layers to depth {len(bwd) - 1} searched"
                break
        if len(new) == 0:
            res.exhausted = True
            break
        bwd.append(new)
        res.layers_backward.append(len(new))
        res.seconds_backward.append(round(time.monotonic() - t1, 3))
        ctx.progress(side="backward", layer=len(bwd) - 1, size=len(new), nodes=counters["nodes"],
                     elapsed=round(time.monotonic() - t0, 2))
    res.nodes = counters["nodes"]
    res.spilled = counters.get("spilled", 0)
    start = _bits(inst.start)
    first_line = None
    if inst.first_jump is not None:
        a, c = inst.first_jump
        first_line = next((l for l in sp.lines[False] if l[0] == a and l[2] == c), None)
        if first_line is None or not sp.applies(start, first_line, False):
            res.reason = f"the first jump {a}->{c} is not possible from the start"
            res.infeasible = True
            return res

    def depth(p: int) -> int | None:
        c = sp.canon([p])
        return next((k for k, layer in enumerate(bwd) if len(_common(c, layer))), None)

    if first_line is None:
        best, x, jumps = depth(start), start, []
    else:  # the best first move among the chains that begin with the required jump
        best, x, jumps = None, None, []
        for q, ch in sp.chains(start, False, first_line):
            k = depth(q)
            if k is not None and (best is None or k + 1 < best):
                best, x, jumps = k + 1, q, list(ch)
    if best is None:
        if res.exhausted:
            res.infeasible = True
            res.reason = "the start is not among the positions that can reach the finish"
        else:  # stopped early: the start is farther than every layer searched
            res.lower = len(bwd) + (first_line is not None)
        return res
    res.moves, res.meet, res.lower = best, (0, best), best
    for k in range(best - (first_line is not None), 0, -1):
        cand = list(sp.chains(x, backward=False))
        i = _member(sp, [q for q, _ in cand], bwd[k - 1])
        assert i >= 0, "reconstruction: no successor in the next backward layer"
        x, chain = cand[i]
        jumps.extend(chain)
    res.solution = tuple(jumps)
    return res


def _member(sp: Space, ps: list[int], layer: np.ndarray) -> int:
    """Index in ps of the first position whose canonical form is in `layer` (-1: none)."""
    if not ps:
        return -1
    cs = sp.canon(ps)
    idx = np.searchsorted(layer, cs)
    idx[idx == len(layer)] = 0
    hit = np.nonzero(layer[idx] == cs)[0]
    return int(hit[0]) if len(hit) else -1


def _reconstruct(sp: Space, fwd: list[np.ndarray], bwd: list[np.ndarray], d: int, e: int, m: int,
                 first_line: Jump | None) -> Solution:
    """One jump sequence start -> m (d moves) -> finish (e moves) through the stored layers."""
    inst = sp.inst
    start = _bits(inst.start)
    moves_back: list[Chain] = []  # forward chains, last move first
    x = m
    for k in range(d, 1, -1):
        cand = list(sp.chains(x, backward=True))
        i = _member(sp, [q for q, _ in cand], fwd[k - 1])
        assert i >= 0, "reconstruction: no predecessor in the previous forward layer"
        x, unjumps = cand[i]
        moves_back.append([(c, b, a) for a, b, c in reversed(unjumps)])
    if d >= 1:  # x is one move from the start exactly (the group fixes the start and first jump)
        chain = next((ch for q, ch in sp.chains(start, False, first_line) if q == x), None)
        assert chain is not None, "reconstruction: the first move does not reach layer 1"
        moves_back.append(chain)
    jumps = [j for ch in reversed(moves_back) for j in ch]
    x = m
    for k in range(e, 0, -1):
        cand = list(sp.chains(x, backward=False))
        i = _member(sp, [q for q, _ in cand], bwd[k - 1])
        assert i >= 0, "reconstruction: no successor in the next backward layer"
        x, chain = cand[i]
        jumps.extend(chain)
    if inst.finish is not None and x != _bits(inst.finish):
        # forward-only: x is a symmetric image of the finish under a symmetry fixing the start
        fin = _bits(inst.finish)
        g = next(g for g in sp.group if _image(g, x) == fin)
        jumps = [(g[a], g[b], g[c]) for a, b, c in jumps]
    return tuple(jumps)


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


_DEFAULT_STORE: Store | None = None


def default_store() -> Store:
    """The store of searches given none: the default memory budget, a temporary folder."""
    global _DEFAULT_STORE
    if _DEFAULT_STORE is None:
        import atexit
        _DEFAULT_STORE = Store()
        atexit.register(_DEFAULT_STORE.close)
    return _DEFAULT_STORE


# the engine's options and their defaults (families/peg.py declares the same; a test checks)
OPTION_DEFAULTS = {"exhaust": False, "direction": "forward", "symmetry": True, "bidirectional": True,
                   "prune": "none", "max_moves": 0, "memory_mb": 0, "work_dir": "",
                   "disk_limit_mb": 0}


def run(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `native:bfs`: the optimum and one optimal jump sequence (task feasible: the same)."""
    opts = {**OPTION_DEFAULTS, **ctx.options}
    t0 = time.monotonic()
    memory = opts.get("memory_mb", 0) * 2**20 or None
    disk = opts.get("disk_limit_mb", 0) * 2**20 or None
    prune = opts.get("prune", "none") == "merson"
    if prune and opts["exhaust"]:
        raise InputError("native:bfs: prune=merson cannot be combined with exhaust")
    res = search(inst, symmetry=opts["symmetry"], bidirectional=opts["bidirectional"],
                 exhaust=opts["exhaust"], direction=opts["direction"], ctx=ctx, memory=memory,
                 work_dir=opts.get("work_dir") or None, disk_limit=disk, prune=prune,
                 max_moves=opts.get("max_moves", 0) or None)
    stats = {"nodes": res.nodes, "layers_forward": res.layers_forward,
             "layers_backward": res.layers_backward, "seconds_forward": res.seconds_forward,
             "seconds_backward": res.seconds_backward, "symmetries": res.group_order,
             "meet": list(res.meet) if res.meet else None, "peak_rss_mib": peak_rss_mib(),
             "disk_peak_mib": round(res.disk_peak / 2**20, 1), "layers_on_disk": res.spilled,
             "layers_resumed": res.resumed, "seconds": round(time.monotonic() - t0, 3),
             "layers_verified_in": "earlier run" if res.resumed_from else "this run"}
    if res.resumed_from:  # the layers it rests on were built (and sealed) by an earlier run
        stats["layers_resumed_from"] = res.resumed_from
    if prune:
        stats.update({"max_moves": res.bound, "refuted": res.refuted})
    if opts["exhaust"]:
        lay = res.layers_backward if opts["direction"] == "backward" else res.layers_forward
        stats.update({"direction": opts["direction"], "layers": lay, "total": sum(lay),
                      "exhausted": res.exhausted})
        if opts["direction"] == "forward":
            stats["reachable_total"] = res.reachable_total
    if res.moves is None:
        if res.infeasible:
            return Outcome(Status.INFEASIBLE, stats=stats, reason=res.reason)
        stats["lower_bound"] = res.lower
        return Outcome(Status.UNKNOWN, stats=stats, reason=res.reason)
    ctx.found(res.solution)
    stats["lower_bound"] = res.moves
    status = Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL
    return Outcome(status, res.moves, None, (res.solution,), stats)
