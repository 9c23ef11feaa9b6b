"""The compiled layers of count:frontier (models/count.py): numba kernels that make one layer of
the frontier count from the one before, for a formulation whose every key is in the projection.

A layer is a table of states, each packed into `W` uint64 words (each frontier constraint's value
in a fixed bit field of one word: a clause's or an XOR's bit, a cardinality's running sum, capped),
beside its count as 32-bit limbs in uint64 words (exact: a sum of two limbs never overflows a word,
and a carry out of the top limb makes the driver widen every count by one limb and merge again —
never a dropped carry, never a float). One layer to the next: `expand` writes both successors of
every state (the key false, the key true) that violate no constraint, with the index of the state
they come from; the successors are sorted (numpy's lexsort over the words) so that equal states
are adjacent; `merge` sums the counts of each run of equal states. Sorting and summing runs, not a
hash table: the count shares no code with native:count's layers (native_search/pentomino/count.py).

All kernels are `numba.njit(cache=True)` and run unchanged (slowly) under NUMBA_DISABLE_JIT=1.
"""
from __future__ import annotations

import numba
import numpy as np

LIMB = 32
_LMASK = np.uint64((1 << LIMB) - 1)
CLAUSE, CARD, XOR = 0, 1, 2


@numba.njit(cache=True)
def expand(st, s_src, s_sh, s_msk, s_kind, s_pol, s_lo, s_hi, s_sat, s_aft, s_dw, s_dsh,
           e_src, e_sh, e_msk, e_kind, e_pol, e_lo, e_hi, wout):  # pragma: no cover - compiled
    """The successors of the states `st` (rows of words) when the next key is false and when it is
    true: (successor words, index of the state each comes from, how many). Slot j of a successor
    takes the value of the constraint from word s_src[j] >> s_sh[j] & s_msk[j] (s_src -1: a
    constraint the key opens, value 0), updated by the key when s_pol[j] is 0 or 1 (the key's
    polarity in a clause; a cardinality or XOR counts a true key), written at word s_dw[j] bit
    s_dsh[j]. e_*: the constraints whose last key this is, checked and dropped."""
    S = st.shape[0]
    out = np.zeros((2 * S, wout), dtype=np.uint64)
    par = np.empty(2 * S, dtype=np.int64)
    k = 0
    ns, ne = s_kind.shape[0], e_kind.shape[0]
    for s in range(S):
        for value in range(2):
            ok = True
            for e in range(ne):
                v = np.int64(0)
                if e_src[e] >= 0:
                    v = np.int64((st[s, e_src[e]] >> np.uint64(e_sh[e])) & e_msk[e])
                kd = e_kind[e]
                if kd == CLAUSE:
                    if v == 0 and value != e_pol[e]:
                        ok = False
                        break
                elif kd == CARD:
                    v += value
                    if v < e_lo[e] or v > e_hi[e]:
                        ok = False
                        break
                else:
                    if (v ^ value) != e_lo[e]:
                        ok = False
                        break
            if not ok:
                continue
            for j in range(ns):
                v = np.int64(0)
                if s_src[j] >= 0:
                    v = np.int64((st[s, s_src[j]] >> np.uint64(s_sh[j])) & s_msk[j])
                kd = s_kind[j]
                if s_pol[j] >= 0:
                    if kd == CLAUSE:
                        if value == s_pol[j]:
                            v = 1
                    elif value == 1:
                        if kd == CARD:
                            v += 1
                            if v > s_hi[j]:
                                ok = False
                                break
                            if s_sat[j] and v > s_lo[j]:
                                v = s_lo[j]
                        else:
                            v ^= 1
                if kd == CARD and v + s_aft[j] < s_lo[j]:
                    ok = False
                    break
                out[k, s_dw[j]] |= np.uint64(v) << np.uint64(s_dsh[j])
            if ok:
                par[k] = s
                k += 1
            else:
                for w in range(wout):
                    out[k, w] = np.uint64(0)
    return out, par, k


@numba.njit(cache=True)
def merge(out, par, order, n, counts):  # pragma: no cover - compiled
    """The next layer from the successors `out[order[:n]]` (sorted: equal states adjacent), each
    with the count of the state it comes from (`counts[par]`): (states, summed counts, carry) —
    carry True when a sum outgrew the limbs (the layer is then incomplete: widen and merge again)."""
    w, limbs = out.shape[1], counts.shape[1]
    runs = 0
    for t in range(n):
        if t == 0:
            runs += 1
            continue
        a, b = order[t - 1], order[t]
        for x in range(w):
            if out[a, x] != out[b, x]:
                runs += 1
                break
    ns = np.zeros((runs, w), dtype=np.uint64)
    nc = np.zeros((runs, limbs), dtype=np.uint64)
    r = -1
    for t in range(n):
        b = order[t]
        new = t == 0
        if not new:
            a = order[t - 1]
            for x in range(w):
                if out[a, x] != out[b, x]:
                    new = True
                    break
        if new:
            r += 1
            for x in range(w):
                ns[r, x] = out[b, x]
        src = par[b]
        carry = np.uint64(0)
        for x in range(limbs):
            s = nc[r, x] + counts[src, x] + carry
            nc[r, x] = s & _LMASK
            carry = s >> np.uint64(LIMB)
        if carry != 0:
            return ns, nc, True
    return ns, nc, False


def total(counts: np.ndarray) -> int:
    """The sum of a layer's counts, as a Python int (exact)."""
    return sum(int(counts[:, x].astype(object).sum()) << (LIMB * x) for x in range(counts.shape[1]))


__all__ = ["expand", "merge", "total", "LIMB"]
