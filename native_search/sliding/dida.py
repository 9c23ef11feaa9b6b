"""IDA* and dual IDA* (DIDA*) over additive pattern databases, with regular and dual lookups.

Sources: Korf & Felner, "Disjoint pattern database heuristics" (AIJ 134, 2002) for the additive
databases; Felner, Zahavi, Schaeffer & Holte, "Dual lookups in pattern databases" (IJCAI 2005)
and Zahavi, Felner, Holte & Schaeffer, "Duality in permutation state spaces and the dual search
algorithm" (AIJ 172, 2008) for dual lookups and dual search.

Vocabulary (everything in the pattern databases' frame, `pattern_db.canonical`):
- object: a tile named by its goal cell, so the goal is the identity permutation X[c] = c; the
  blank is an object too (`beta`, the blank object), and a state is the permutation X (cell ->
  object) with its inverse Y (object -> cell).
- duality: relabelling every object by Y turns the pair (X, goal) into (identity, Y), so X with
  blank object beta is exactly as far from the goal as the dual state Y (cell -> object) with
  blank object Y[beta] (the cell the blank is on), and a path a of the dual maps back reversed.
  In the tile puzzle the dual's blank is another object, so a database lookup of the dual drops
  the blank object from its pattern: every pattern minus the blank object is a database of its
  own (`reduced`), built by `pattern_db` like the others. No other condition: a dual lookup is
  admissible on every state (tested against BFS distances on small boards).
- groups: the partition itself, and with `mirror` its image under the reflection about the main
  diagonal (a state and its reflection are equally far from the goal); h of a side (regular or
  dual) is the largest group sum, h of a node the larger of the two sides.
- dual search (DIDA*): at a child whose dual side is larger, the search goes on from the dual
  state (the two sides swap roles). The path found then has segments on alternating sides; the
  solution is the even segments in order followed by the odd segments reversed, last first
  (`_emit`), replayed and checked by the caller.
Counts stay exact without dual search: with dual lookups IDA* still visits every path whose f
never passes the bound, so counting refuses dual search (the caller falls back to lookups).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, objmode

from ..live import tick
from .tables import pc16

CHECK_EVERY = (1 << 20) - 1
ZERO_LOOKUP = -2  # (while assembling) the lookup of an empty pattern
DUAL_OFF, DUAL_LOOKUP, DUAL_SEARCH = 0, 1, 2
DUAL_NAMES = {"off": DUAL_OFF, "lookup": DUAL_LOOKUP, "search": DUAL_SEARCH}


@njit(cache=True)
def _lookup(pos, li, n, dbs, lk_obj, lk_len, lk_map, lk_off, pc):
    """Value of lookup li for the objects' cells in `pos` (an empty pattern reads a zero byte)."""
    used = 0
    r = 0
    for i in range(lk_len[li]):
        c = lk_map[li, pos[lk_obj[li, i]]]
        m = used & ((1 << c) - 1)
        d = c - (pc[m & 65535] + pc[(m >> 16) & 65535] + pc[(m >> 32) & 65535])
        used |= 1 << c
        r = r * (n - i) + d
    return np.int64(dbs[lk_off[li] + r])


@njit(cache=True)
def _side(pos, beta, n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl, pv, hs):
    """Pattern values (pv[g, p]) and group sums (hs[g]) of one side from scratch; returns max."""
    best = 0
    for g in range(npat.shape[0]):
        s = 0
        for p in range(npat[g]):
            v = _lookup(pos, fl[g, beta, p], n, dbs, lk_obj, lk_len, lk_map, lk_off, pc)
            pv[g, p] = v
            s += v
        hs[g] = s
        if s > best:
            best = s
    return best


@njit(cache=True)
def heuristic2(X, beta, dual, n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl):
    """h of the state X (cell -> object) with blank object beta: the larger group sum, and with
    `dual` > 0 the larger of it and the dual state's."""
    Y = np.empty(n, np.int64)
    for c in range(n):
        Y[X[c]] = c
    ng = npat.shape[0]
    pv = np.zeros((ng, max(1, npat.max())), np.int64)
    hs = np.zeros(ng, np.int64)
    h = _side(Y, beta, n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl, pv, hs)
    if dual > 0:
        hd = _side(X, Y[beta], n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl, pv, hs)
        if hd > h:
            h = hd
    return h


@njit(cache=True)
def _emit(D, n, seg, mvb, mvc, out, row):
    """Write the solution of a D-move path as cell pairs x*n+y: the moves of even segments in
    order, then those of odd segments from the last back."""
    k = 0
    for i in range(D):
        if seg[i] % 2 == 0:
            out[row, k] = mvb[i] * n + mvc[i]
            k += 1
    for i in range(D - 1, -1, -1):
        if seg[i] % 2 == 1:
            out[row, k] = mvb[i] * n + mvc[i]
            k += 1


@njit(cache=True)
def dfs(X0, beta0, bound, dual, prev_blank, find_first, deadline, out, counters, n, nbr, nnbr, dbs,
        lk_obj, lk_len, lk_map, lk_off, pc, npat, patof, fl, fillobj, order, cd):
    """All paths of exactly `bound` moves from X0 (cell -> object, blank object beta0) to the
    identity whose nodes have f = g + h <= bound (f rounded up to the parity of bound: every path
    from a node to the goal has the parity of the blank's distance to its goal cell); h over the
    groups' sums (and the dual's with dual >= 1, with pathmax and BPMX, Felner et al. 2005, as the
    dual makes h inconsistent; dual == 2 jumps to the dual where it is larger).
    Never undoes the previous move (nor moves the blank to prev_blank first). `fillobj` (-1: none)
    is the object that takes the blank object's place in its pattern (`tables(fill=True)`).
    `order` 1: a node's children in the order of the moved tile's Manhattan change (towards its
    goal cell first; `cd` the cells' distances), else the board's neighbour order; it changes
    only where in the last iteration the first solution is met, never what an iteration proves.
    Returns the solutions found (the first out.shape[0] written as cell pairs, see `_emit`);
    counters[0] += nodes generated, counters[1] = the smallest f above bound, counters[2] = 1
    when the wall clock passed `deadline` first."""
    ng = npat.shape[0]
    npm = max(1, npat.max())
    W = ng * npm
    X = np.empty(n, np.int64)  # cell -> object of the side searched
    Y = np.empty(n, np.int64)  # its inverse
    for c in range(n):
        X[c] = X0[c]
        Y[X0[c]] = c
    betas = np.zeros(bound + 1, np.int64)
    bl = np.zeros(bound + 1, np.int64)
    prevc = np.zeros(bound + 1, np.int64)
    nxt = np.zeros(bound + 1, np.int64)
    kord = np.zeros((bound + 1, 4), np.int64)  # with order: the neighbour indices in visiting order
    seg = np.zeros(bound + 1, np.int64)
    mis = np.zeros(bound + 1, np.int64)
    mvb = np.zeros(bound + 1, np.int64)
    mvc = np.zeros(bound + 1, np.int64)
    mvt = np.zeros(bound + 1, np.int64)
    h0s = np.zeros((bound + 1, ng), np.int64)  # group sums, searched side
    h1s = np.zeros((bound + 1, ng), np.int64)  # group sums, dual side
    p0s = np.zeros((bound + 1, W), np.int64)   # pattern values g * npm + p, searched side
    p1s = np.zeros((bound + 1, W), np.int64)
    ns0 = np.zeros(ng, np.int64)
    ns1 = np.zeros(ng, np.int64)
    nv0 = np.zeros(ng, np.int64)
    np0 = np.zeros(ng, np.int64)
    tmp = np.zeros(W, np.int64)
    hcur = np.zeros(bound + 1, np.int64)  # a node's h, raised by pathmax and BPMX (dual only)
    pv = np.zeros((ng, npm), np.int64)
    hs = np.zeros(ng, np.int64)
    m0 = 0
    for c in range(n):
        if X0[c] != c:
            m0 += 1
    mis[0] = m0
    betas[0] = beta0
    bl[0] = Y[beta0]
    prevc[0] = prev_blank
    _side(Y, beta0, n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl, pv, hs)
    for g in range(ng):
        h0s[0, g] = hs[g]
        for p in range(npm):
            p0s[0, g * npm + p] = pv[g, p]
    for g in range(ng):
        if h0s[0, g] > hcur[0]:
            hcur[0] = h0s[0, g]
    if dual > 0:
        _side(X, bl[0], n, dbs, lk_obj, lk_len, lk_map, lk_off, pc, npat, fl, pv, hs)
        for g in range(ng):
            if hs[g] > hcur[0]:
                hcur[0] = hs[g]
            h1s[0, g] = hs[g]
            for p in range(npm):
                p1s[0, g * npm + p] = pv[g, p]
    nodes = 0
    found = 0
    next_bound = 1 << 30
    if m0 == 0 and bound == 0:
        counters[1] = next_bound
        return 1
    d = 0
    while d >= 0:
        b = bl[d]
        k = nxt[d]
        if k >= nnbr[b] or d == bound:
            if d > 0:  # undo the move that led here (and the jump, if any)
                if seg[d] != seg[d - 1]:
                    X, Y = Y, X
                pb = mvb[d - 1]
                pcl = mvc[d - 1]
                t = mvt[d - 1]
                be = betas[d - 1]
                X[pb] = be
                X[pcl] = t
                Y[t] = pcl
                Y[be] = pb
            d -= 1
            continue
        if order == 1 and k == 0:  # first visit: the tiles moving towards their goal first
            j = 0
            for want in (-1, 1):
                for i in range(nnbr[b]):
                    ci = nbr[b, i]
                    if cd[X[ci], b] - cd[X[ci], ci] == want:
                        kord[d, j] = i
                        j += 1
        nxt[d] = k + 1
        c = nbr[b, kord[d, k]] if order == 1 else nbr[b, k]
        if c == prevc[d]:
            continue
        beta = betas[d]
        t = X[c]
        nodes += 1
        if (nodes & CHECK_EVERY) == 0:
            with objmode(now="float64"):
                now = tick(nodes)
            if now > deadline:
                counters[0] += nodes
                counters[1] = next_bound
                counters[2] = 1
                return found
        # searched side: object t moves from c to b, the blank object stays
        hr = 0
        lim = bound - d - 1  # a child with h above lim is cut: the other groups are not looked up
        Y[t] = b
        tp = beta if t == fillobj else t  # whose pattern t's move changes
        for g in range(ng):
            p = patof[g, tp]
            np0[g] = p
            s = h0s[d, g]
            if p >= 0:
                v = _lookup(Y, fl[g, beta, p], n, dbs, lk_obj, lk_len, lk_map, lk_off, pc)
                nv0[g] = v
                s += v - p0s[d, g * npm + p]
            ns0[g] = s
            if s > hr:
                hr = s
                if s > lim:
                    break
        Y[t] = c
        hc = hr
        if dual > 0 and hcur[d] - 1 > hc:  # pathmax: a child is at most one move closer
            hc = hcur[d] - 1
        f = d + 1 + hc
        f += (f - bound) & 1  # the remaining distance has the parity of bound - d - 1
        if f > bound:
            if f < next_bound:
                next_bound = f
            if dual > 0 and hc - 1 > hcur[d]:  # BPMX: the parent is at most one move closer
                hcur[d] = hc - 1
                fp = d + hcur[d]
                fp += (fp - bound) & 1
                if fp > bound:  # the parent's other children need not be generated
                    nxt[d] = 4
                    if fp < next_bound:
                        next_bound = fp
            continue
        hd = 0
        if dual > 0:
            # dual side: dual objects b and c move (to dual cells t and beta); its blank object
            # goes from b to c, so any pattern whose lookup depends on it is looked up again
            X[b] = t
            X[c] = beta
            for g in range(ng):
                s = 0
                pbg = patof[g, b]
                pcg = patof[g, c]
                for p in range(npat[g]):
                    i = g * npm + p
                    if p == pbg or p == pcg or fl[g, b, p] != fl[g, c, p]:
                        v = _lookup(X, fl[g, c, p], n, dbs, lk_obj, lk_len, lk_map, lk_off, pc)
                    else:
                        v = p1s[d, i]
                    tmp[i] = v
                    s += v
                ns1[g] = s
                if s > hd:
                    hd = s
                    if s > lim:
                        break
            X[b] = beta
            X[c] = t
            if hd > hc:
                hc = hd
            f = d + 1 + hc
            f += (f - bound) & 1
            if f > bound:
                if f < next_bound:
                    next_bound = f
                if hc - 1 > hcur[d]:  # BPMX, as above
                    hcur[d] = hc - 1
                    fp = d + hcur[d]
                    fp += (fp - bound) & 1
                    if fp > bound:
                        nxt[d] = 4
                        if fp < next_bound:
                            next_bound = fp
                continue
        # apply the move
        m2 = mis[d]
        if beta != b:
            m2 -= 1
        if t != c:
            m2 -= 1
        if t != b:
            m2 += 1
        if beta != c:
            m2 += 1
        X[b] = t
        X[c] = beta
        Y[t] = b
        Y[beta] = c
        mvb[d] = b
        mvc[d] = c
        mvt[d] = t
        e = d + 1
        mis[e] = m2
        nxt[e] = 0
        hcur[e] = hc
        if dual == 2 and hd > hr:  # go on from the dual state: the sides swap
            for i in range(W):
                p1s[e, i] = p0s[d, i]
                p0s[e, i] = tmp[i]
            for g in range(ng):
                if np0[g] >= 0:
                    p1s[e, g * npm + np0[g]] = nv0[g]
                h0s[e, g] = ns1[g]
                h1s[e, g] = ns0[g]
            X, Y = Y, X
            betas[e] = c
            bl[e] = beta
            prevc[e] = -1  # no move of the dual undoes the jump (the blank object changed)
            seg[e] = seg[d] + 1
        else:
            for i in range(W):
                p0s[e, i] = p0s[d, i]
            for g in range(ng):
                if np0[g] >= 0:
                    p0s[e, g * npm + np0[g]] = nv0[g]
                h0s[e, g] = ns0[g]
            if dual > 0:
                for i in range(W):
                    p1s[e, i] = tmp[i]
                for g in range(ng):
                    h1s[e, g] = ns1[g]
            betas[e] = beta
            bl[e] = c
            prevc[e] = b
            seg[e] = seg[d]
        d = e
        if m2 == 0 and d == bound:
            if found < out.shape[0]:
                _emit(d, n, seg, mvb, mvc, out, found)
            found += 1
            if find_first:
                counters[0] += nodes
                counters[1] = next_bound
                return found
    counters[0] += nodes
    counters[1] = next_bound
    return found


# ---------------------------------------------------------------- the lookup tables


@dataclass
class Tables:
    """Lookups into a flat byte array of databases, for every (group, blank object, pattern)."""

    dbs: np.ndarray       # uint8, the databases one after another
    lk_obj: np.ndarray    # (L, kmax) the lookup's objects in the database's item order
    lk_len: np.ndarray    # (L,)
    lk_map: np.ndarray    # (L, n) board cell -> cell in the database's frame
    lk_off: np.ndarray    # (L,) offset of the database in dbs
    npat: np.ndarray      # (G,) patterns per group
    patof: np.ndarray     # (G, n) the pattern of object o in group g, -1 if none
    fl: np.ndarray        # (G, n, P) lookup of pattern p in group g when the blank object is o
    keys: tuple           # the databases (pattern_db.Key), in dbs order
    groups: int
    fillobj: int = -1     # the object filling the blank object's place (fill=True), else -1


def fill_cap(fill, n: int) -> int:
    """The largest pattern (tiles) that `fill` fills: True every pattern, False none, an int k
    those of at most k tiles (the larger ones lose the blank object instead)."""
    if fill is True:
        return n
    return int(fill)


def _groups(rows: int, cols: int, partitions, blank: int, mirror: bool) -> list:
    """(cell map, patterns) of every group: each partition, and its mirror image where allowed."""
    from . import pattern_db as P
    ident = list(range(rows * cols))
    maps = [ident]
    if mirror and rows == cols:
        refl = P.mirror_cells(rows, cols)
        if refl[blank] == blank:
            maps.append(refl)
    return [(h, [tuple(sorted(p)) for p in part]) for part in partitions for h in maps]


def needed_keys(rows: int, cols: int, partitions, blank: int, mirror: bool, dual: bool,
                fill: bool | int = False) -> list:
    """The databases (pattern_db.Key) `tables` reads for these arguments, nothing loaded."""
    return _assemble(rows, cols, partitions, blank, mirror, dual, fill)[3]


def _assemble(rows: int, cols: int, partitions, blank: int, mirror: bool, dual: bool, fill: bool | int):
    """(groups, fl, patof, keys, lookups as (key, objects, cell map)) of `tables`."""
    from . import pattern_db as P
    n = rows * cols
    groups = _groups(rows, cols, partitions, blank, mirror)
    ng = len(groups)
    npm = max(len(pats) for _, pats in groups)
    lookups: dict[tuple, int] = {}
    rows_: list[tuple] = []   # (key, objects, map)
    keys: list = []
    key_index: dict = {}
    fl = np.full((ng, n, npm), -1, np.int64)
    patof = np.full((ng, n), -1, np.int64)
    betas = range(n) if dual else [blank]
    cap = fill_cap(fill, n)
    for gi, (h, pats) in enumerate(groups):
        for pi, cells in enumerate(pats):
            for v in cells:
                patof[gi, h[v]] = pi
            for beta in betas:
                bq = h[beta]  # the blank object in the partition's own coordinates
                q = tuple(c for c in cells if c != bq)
                if fill and len(q) < len(cells) and len(cells) <= cap:
                    q = tuple(sorted(q + (blank,)))  # the frame's blank object takes the place
                if not q:
                    fl[gi, beta, pi] = ZERO_LOOKUP
                    continue
                key, g = P.key_of(rows, cols, q, bq)
                inv = [0] * n
                for c in range(n):
                    inv[g[c]] = c
                objs = tuple(h[inv[k]] for k in key.cells)
                cmap = tuple(g[h[c]] for c in range(n))
                sig = (key, objs, cmap)
                if sig not in lookups:
                    lookups[sig] = len(rows_)
                    rows_.append(sig)
                    if key not in key_index:
                        key_index[key] = len(keys)
                        keys.append(key)
                fl[gi, beta, pi] = lookups[sig]
    return groups, fl, patof, keys, rows_


def tables(rows: int, cols: int, partitions, blank: int, mirror: bool, dual: bool, progress=None,
           deadline: float = float("inf"), info: dict | None = None, fill: bool | int = False) -> Tables:
    """The lookups of each partition in `partitions` (patterns as goal cells in the frame whose
    goal has the blank at `blank`): a group for the partition itself and, with `mirror` (square
    boards whose reflection about the main diagonal keeps `blank`), one for its reflection.
    Without `dual` only the blank object `blank` is prepared (the regular search never changes
    it); with it every blank object, each pattern minus the blank object a database of its own,
    or with `fill` (True, or the largest pattern filled) plus the frame's blank object."""
    from . import pattern_db as P
    n = rows * cols
    memo = (rows, cols, tuple(tuple(tuple(p) for p in part) for part in partitions), blank, mirror, dual,
            fill_cap(fill, n) if fill else 0)  # (True == 1 as a key: the cap tells them apart)
    if memo in _TABLES:
        return _TABLES[memo]
    groups, fl, patof, keys, rows_ = _assemble(rows, cols, partitions, blank, mirror, dual, fill)
    ng = len(groups)
    arrays, offs, total = [], {}, 0
    for i, key in enumerate(keys):
        def prog(level, states, placements, _i=i, _key=key):
            if progress is not None:
                progress(database=_i + 1, level=level, states=states, placements=placements,
                         cells=list(_key.cells))
        db = P.database(key, prog, deadline, info=info)
        offs[key] = total
        total += db.size
        arrays.append(db)
    kmax = max(len(r[1]) for r in rows_)
    L = len(rows_) + 1  # and the empty pattern's lookup, last: a zero byte after the databases
    fl[fl == ZERO_LOOKUP] = L - 1
    fl[fl < 0] = L - 1  # (blank objects the search never has without dual)
    lk_obj = np.zeros((L, kmax), np.int64)
    lk_len = np.zeros(L, np.int64)
    lk_map = np.zeros((L, n), np.int64)
    lk_off = np.zeros(L, np.int64)
    for i, (key, objs, cmap) in enumerate(rows_):
        lk_obj[i, :len(objs)] = objs
        lk_len[i] = len(objs)
        lk_map[i] = cmap
        lk_off[i] = offs[key]
    lk_off[L - 1] = total
    dbs = np.concatenate(arrays + [np.zeros(1, np.uint8)])
    for key in keys:  # the loaded copies become views of the one array (memory once)
        P._LOADED[key] = dbs[offs[key]:offs[key] + P._LOADED[key].size]
    del arrays
    t = Tables(dbs, lk_obj, lk_len, lk_map, lk_off,
               np.array([len(pats) for _, pats in groups], np.int64), patof, fl, tuple(keys), ng,
               blank if fill else -1)
    _TABLES[memo] = t
    return t


_TABLES: dict[tuple, Tables] = {}  # assembled in this process; cleared when a database is rebuilt


def replay(frame_start, pairs, n: int) -> list[int]:
    """The frame tiles moved by a path of cell pairs x*n+y (one of them the blank's cell)."""
    board = list(frame_start)
    tiles = []
    for xy in pairs:
        x, y = divmod(int(xy), n)
        if board[x] == 0:
            x, y = y, x
        if board[y] != 0:
            raise AssertionError(f"dual search: move {x}-{y} does not involve the blank")
        tiles.append(board[x])
        board[y], board[x] = board[x], 0
    return tiles


__all__ = ["DUAL_NAMES", "Tables", "tables", "dfs", "heuristic2", "replay", "pc16"]


def _register() -> None:
    from .pattern_db import CACHES
    CACHES.append(_TABLES)


_register()
