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

from ..core.result import Context, Outcome, Status, Task
from ..puzzles.peg import Jump, PegInstance, Solution

Perm = tuple[int, ...]        # a symmetry as a hole permutation: hole h goes to perm[h]
Chain = list[Jump]            # the jumps of one move, in playing order

CHUNK = 1 << 22               # successor buffer (entries) per kernel call: 32 MiB
MEMORY_BUDGET = 8 << 30       # bytes for layers at most (by default)
BYTE = np.uint64(255)
EIGHT = np.uint64(8)
ONE = np.uint64(1)
ZERO = np.uint64(0)


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
def _expand(layer, i0, m3, want, to, lstart, tables, nbytes, out):
    """Canonical successors by one move of layer[i0:], written to `out` until it is full.

    A line j applies to bitboard p when p & m3[j] == want[j]; it flips the three holes
    (p ^ m3[j]) and the moving peg lands in to[j], where the chain may go on with lines
    lstart[to[j]] .. lstart[to[j] + 1] - 1. Every chain prefix is emitted. A position's successors
    are written all or none: returns (index of the first position not expanded, entries written).
    """
    cap = out.shape[0]
    nlines = m3.shape[0]
    depth = 66
    stk_p = np.empty(depth, np.uint64)
    stk_h = np.empty(depth, np.int64)
    stk_j = np.empty(depth, np.int64)
    k = 0
    i = i0
    while i < layer.shape[0]:
        p = layer[i]
        k0 = k
        full = False
        for j0 in range(nlines):
            if (p & m3[j0]) != want[j0]:
                continue
            q = p ^ m3[j0]
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
            return i, k0
        i += 1
    return i, k


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
        if b.n > 64:
            raise ValueError(f"bitboards hold at most 64 holes (board {b.name} has {b.n})")
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

    def expand(self, layer: np.ndarray, backward: bool, seen: np.ndarray, counters: dict
               ) -> np.ndarray:
        """The next layer: canonical successors of `layer` not in `seen`, sorted, unique."""
        m3, want, to, lstart = self.arrays[backward]
        out = np.empty(CHUNK, np.uint64)
        acc = np.empty(0, np.uint64)  # the layer so far, sorted and unique
        parts, i = [], 0               # and the chunks not merged into it yet
        while i < len(layer):
            i2, k = _expand(layer, i, m3, want, to, lstart, self.tables, self.nbytes, out)
            if i2 == i:  # one position has more successors than the buffer holds
                out = np.empty(2 * len(out), np.uint64)
                continue
            counters["nodes"] += int(k)
            parts.append(_minus(_unique(out[:k]), seen))
            i = i2
            if len(parts) > 8:
                acc = merge_unique(acc, _unique(np.concatenate(parts)))
                parts = []
        if parts:
            acc = merge_unique(acc, _unique(np.concatenate(parts)))
        return acc


def _unique(a) -> np.ndarray:
    """Sorted distinct elements (np.sort and a neighbour mask: np.unique is several times slower)."""
    a = np.sort(np.asarray(a, dtype=np.uint64))
    if len(a) < 2:
        return a
    keep = np.empty(len(a), np.bool_)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


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
    j = 0
    k = 0
    for i in range(a.shape[0]):
        x = a[i]
        j = gallop(b, j, x)
        if j < nb and b[j] == x:
            continue
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


def _union(seen: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Sorted union of two disjoint sorted arrays (a linear merge)."""
    return merge_unique(seen, new)


def layers(space: Space, root: np.ndarray, backward: bool, counters: dict | None = None,
           limit: int | None = None) -> Iterator[np.ndarray]:
    """BFS layers from `root` (a sorted canonical array): root first, then each next layer, ending
    with the first empty one (or after layer `limit`). counters["nodes"] counts successors.

    >>> from puzzlesat.puzzles.peg import catalogue
    >>> inst = catalogue()["english33"]()
    >>> sp = Space(inst, group_for(inst, symmetry=True, with_finish=False))
    >>> [len(x) for x in layers(sp, np.array([_bits(inst.start)], np.uint64), False, limit=7)]
    [1, 1, 2, 9, 47, 263, 1452, 7772]
    """
    counters = {"nodes": 0} if counters is None else counters
    layer = root
    seen = root.copy()
    yield layer
    depth = 0
    while len(layer) and (limit is None or depth < limit):
        depth += 1
        layer = space.expand(layer, backward, seen, counters)
        seen = _union(seen, layer)
        yield layer


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
    """What a search found: optimum (None: no solution), one optimal solution, layer sizes."""

    moves: int | None
    solution: Solution | None
    layers_forward: list[int] = field(default_factory=list)
    layers_backward: list[int] = field(default_factory=list)
    seconds_forward: list[float] = field(default_factory=list)
    seconds_backward: list[float] = field(default_factory=list)
    nodes: int = 0
    group_order: int = 1
    meet: tuple[int, int] | None = None
    exhausted: bool = False  # the forward side was searched to its end
    out_of_memory: bool = False  # stopped by the memory budget: nothing proved
    reason: str | None = None

    @property
    def reachable_total(self) -> int:
        return sum(self.layers_forward)


def memory_budget() -> int:
    """Bytes the layers may use: 8 GiB, or 60% of the memory available now if that is less."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemAvailable:"):
                    avail = int(ln.split()[1]) * 1024
    except OSError:
        pass
    return min(MEMORY_BUDGET, int(0.6 * avail)) if avail else MEMORY_BUDGET


def _over_budget(res, stored: list, side: list, memory: int, direction: str) -> bool:
    """True (and `res` says why) when the next layer of `side` would pass the memory budget."""
    need = _needed_bytes(sum(map(len, stored)), len(side[-1]), len(side[-2]) if len(side) > 1 else 1)
    if need <= memory:
        return False
    res.out_of_memory = True
    res.reason = (f"memory budget: the next {direction} layer would need about "
                  f"{need / 2**30:.2f} GiB of {memory / 2**30:.2f} GiB")
    return True


def _needed_bytes(stored: int, frontier: int, previous: int) -> int:
    """Rough peak bytes of the next expansion: stored layers and their union, plus the next
    layer (guessed from the last growth ratio) about four times over while it is built."""
    growth = max(1.0, frontier / max(1, previous))
    return 8 * (2 * stored + int(4 * frontier * growth)) + 8 * CHUNK


def search(inst: PegInstance, *, symmetry: bool = True, bidirectional: bool = True,
           exhaust: bool = False, direction: str = "forward", ctx: Context | None = None,
           memory: int | None = None) -> Result:
    """Minimum moves from inst.start to inst.finish by layered BFS, with one optimal solution.

    `exhaust` searches one way to the end and still reports the optimum: forward (`direction`
    "forward": every position reachable from the start, the first depth at which the finish
    appears) or backward ("backward": every position that can reach the finish, by the moves it
    needs; the start's layer is the optimum). It implies a one-sided search. When the next layer
    would not fit in `memory` bytes (default: memory_budget()) the search stops with `res.moves`
    None and `res.out_of_memory` set (a limit, not a proof).
    """
    memory = memory_budget() if memory is None else memory
    ctx = ctx or Context()
    if exhaust and direction == "backward":
        return _search_backward(inst, symmetry, ctx, memory)
    t0 = time.monotonic()
    bidirectional = bidirectional and not exhaust
    group = group_for(inst, symmetry, with_finish=bidirectional)
    sp = Space(inst, group)
    res = Result(None, None, group_order=len(group))
    counters = {"nodes": 0}
    start = _bits(inst.start)
    finish = None if inst.finish is None else _bits(inst.finish)
    targets = (sp.canon([1 << h for h in range(sp.n)]) if finish is None else sp.canon([finish]))
    targets = _unique(targets)

    # forward roots: the start (layer 0); with a required first jump, layer 1 is the chains
    # beginning with it, and the search proper starts there (layer 0 may not meet anything).
    if inst.solved_at_start:
        res.moves, res.solution, res.layers_forward, res.meet = 0, (), [1], (0, 0)
        return res
    if inst.jumps_needed <= 0:
        res.reason = "no jump can be made (the finish has as many pegs as the start)"
        res.layers_forward = [1]
        return res
    fwd_layers: list[np.ndarray] = [np.array([start], np.uint64)]
    first_line = None
    if inst.first_jump is not None:
        a, c = inst.first_jump
        first_line = next((l for l in sp.lines[False] if l[0] == a and l[2] == c), None)
        if first_line is None or not sp.applies(start, first_line, False):
            res.reason = f"the first jump {a}->{c} is not possible from the start"
            res.layers_forward = [1]
            return res
        fwd_layers.append(_unique(sp.canon([q for q, _ in sp.chains(start, False, first_line)])))

    fgen = layers(sp, fwd_layers[-1], False, counters)
    next(fgen)
    res.layers_forward = [len(x) for x in fwd_layers]
    res.seconds_forward = [0.0] * len(fwd_layers)
    bwd_layers: list[np.ndarray] = [targets]
    res.layers_backward = [len(targets)]
    res.seconds_backward = [0.0]
    bgen = layers(sp, targets, True, counters) if bidirectional else None
    if bgen is not None:
        next(bgen)

    def report(side: str, depth: int, size: int) -> None:
        ctx.progress(side=side, layer=depth, size=size, nodes=counters["nodes"],
                     elapsed=round(time.monotonic() - t0, 2))

    report("forward", len(fwd_layers) - 1, len(fwd_layers[-1]))
    if bgen is not None:
        report("backward", 0, len(targets))
    meeting = None  # (forward depth, backward depth, a common canonical position)
    common = _common(fwd_layers[-1], bwd_layers[-1])  # layer 1 after a required first jump
    if len(common):
        meeting = (len(fwd_layers) - 1, 0, int(common[0]))
    while meeting is None or exhaust:
        forward = bgen is None or len(fwd_layers[-1]) <= len(bwd_layers[-1])
        side = fwd_layers if forward else bwd_layers
        if _over_budget(res, fwd_layers + bwd_layers, side, memory, "forward" if forward else "backward"):
            break
        t1 = time.monotonic()
        if forward:
            new = next(fgen, None)
            if new is None:
                res.exhausted = True
                break
            fwd_layers.append(new)
            res.layers_forward.append(len(new))
            res.seconds_forward.append(round(time.monotonic() - t1, 3))
            report("forward", len(fwd_layers) - 1, len(new))
        else:
            new = next(bgen)
            bwd_layers.append(new)
            res.layers_backward.append(len(new))
            res.seconds_backward.append(round(time.monotonic() - t1, 3))
            report("backward", len(bwd_layers) - 1, len(new))
        if len(new) == 0:
            if forward:
                res.exhausted = True
                fwd_layers.pop()
                res.layers_forward.pop()
                res.seconds_forward.pop()
            else:
                bwd_layers.pop()
                res.layers_backward.pop()
                res.seconds_backward.pop()
            break
        if meeting is None:
            common = _common(new, bwd_layers[-1] if forward else fwd_layers[-1])
            if len(common):
                meeting = (len(fwd_layers) - 1, len(bwd_layers) - 1, int(common[0]))
    res.nodes = counters["nodes"]
    del fgen, bgen
    if res.out_of_memory and meeting is None:
        return res
    if meeting is None:
        res.reason = res.reason or ("the {} search ran out of positions without meeting the other side"
                                    .format("forward" if res.exhausted or not bidirectional else "backward"))
        return res
    d, e, m = meeting
    res.meet = (d, e)
    res.moves = d + e
    res.solution = _reconstruct(sp, fwd_layers, bwd_layers, d, e, m, first_line)
    return res


def _search_backward(inst: PegInstance, symmetry: bool, ctx: Context, memory: int) -> Result:
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
    bwd: list[np.ndarray] = []
    gen = layers(sp, targets, True, counters)
    while True:
        if bwd:
            if _over_budget(res, bwd, bwd, memory, "backward"):
                break
        t1 = time.monotonic()
        new = next(gen, None)
        if new is None or (bwd and len(new) == 0):
            res.exhausted = True
            break
        bwd.append(new)
        res.layers_backward.append(len(new))
        res.seconds_backward.append(round(time.monotonic() - t1, 3))
        ctx.progress(side="backward", layer=len(bwd) - 1, size=len(new), nodes=counters["nodes"],
                     elapsed=round(time.monotonic() - t0, 2))
    del gen
    res.nodes = counters["nodes"]
    start = _bits(inst.start)
    first_line = None
    if inst.first_jump is not None:
        a, c = inst.first_jump
        first_line = next((l for l in sp.lines[False] if l[0] == a and l[2] == c), None)
        if first_line is None or not sp.applies(start, first_line, False):
            res.reason = f"the first jump {a}->{c} is not possible from the start"
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
        if not res.out_of_memory:
            res.reason = "the start is not among the positions that can reach the finish"
        return res
    res.moves, res.meet = best, (0, best)
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


# the engine's options and their defaults (families/peg.py declares the same; a test checks)
OPTION_DEFAULTS = {"exhaust": False, "direction": "forward", "symmetry": True, "bidirectional": True}


def run(inst: PegInstance, task: Task, ctx: Context) -> Outcome:
    """Engine `native:bfs`: the optimum and one optimal jump sequence (task feasible: the same)."""
    opts = {**OPTION_DEFAULTS, **ctx.options}
    t0 = time.monotonic()
    res = search(inst, symmetry=opts["symmetry"], bidirectional=opts["bidirectional"],
                 exhaust=opts["exhaust"], direction=opts["direction"], ctx=ctx)
    stats = {"nodes": res.nodes, "layers_forward": res.layers_forward,
             "layers_backward": res.layers_backward, "seconds_forward": res.seconds_forward,
             "seconds_backward": res.seconds_backward, "symmetries": res.group_order,
             "meet": list(res.meet) if res.meet else None, "peak_rss_mib": peak_rss_mib(),
             "seconds": round(time.monotonic() - t0, 3)}
    if opts["exhaust"]:
        lay = res.layers_backward if opts["direction"] == "backward" else res.layers_forward
        stats.update({"direction": opts["direction"], "layers": lay, "total": sum(lay),
                      "exhausted": res.exhausted})
        if opts["direction"] == "forward":
            stats["reachable_total"] = res.reachable_total
    if res.out_of_memory:
        stats["memory_budget_gib"] = round(memory_budget() / 2**30, 2)
        if res.moves is None:
            return Outcome(Status.UNKNOWN, stats=stats, reason=res.reason)
    if res.moves is None:
        return Outcome(Status.INFEASIBLE, stats=stats, reason=res.reason)
    ctx.found(res.solution)
    status = Status.FEASIBLE if task is Task.FEASIBLE else Status.OPTIMAL
    return Outcome(status, res.moves, None, (res.solution,), stats,
                   res.reason if res.out_of_memory else None)
