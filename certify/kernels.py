"""The checking kernels: DRAT/DRUP by backward checking, LRAT by its hints, LRAT emission.

DRAT (Wetzler, Heule, Hunt, "DRAT-trim: Efficient Checking and Trimming Using Expressive Clausal
Proofs", SAT 2014), as drat-trim does it by default:

1. Forward pass. The formula's clauses, then each proof step in order: a lemma is added (two
   watched literals), a deletion removes the live clause with the same literals (the most recent
   one; a deletion that matches no live clause is ignored and counted); after each step unit
   propagation runs at the top level. **The deletion of a clause that is the reason of a
   top-level assignment is ignored** (drat-trim's default: "ignoring deletion of unit clauses");
   keeping a clause is always sound, it only makes the database larger. The pass stops at the
   first step after which propagation finds a conflict; no conflict at all: "no empty clause".
2. The clauses of that conflict (the conflicting clause and the reasons of every assignment it
   depends on) are marked *core*.
3. Backward pass, from the conflict step down to the first step: a deletion is undone (the clause
   comes back), a lemma is removed (top-level assignments resting on it are undone and the rest
   re-propagated) and, if core, checked against the clauses live before it: RUP (assign its
   negation, propagate; a conflict must follow), else — DRAT only — RAT on its first literal p as
   written (every live clause D with -p must give a RUP resolvent C | D - {-p}). Propagation is
   core-first: all core clauses to a fixpoint before any non-core clause is looked at. Every
   clause a successful check used becomes core (and is checked in its turn if it is a lemma).

The proof is VERIFIED when every core lemma passed; every clause any check used is then either a
formula clause or a checked lemma, so the formula is unsatisfiable. Lemmas that no check used are
never checked (they cannot matter). With `emit` the kernel records, for each core lemma, the
clauses its check used in the order they became unit (then the conflicting clause), and for RAT
the candidate and its chain: exactly the hints of an LRAT proof (`emit_lrat`).

LRAT (Cruz-Filipe, Heule, Hunt, Kaufmann, Schneider-Kamp, "Efficient Certified RAT Verification",
CADE 2017): each lemma is checked using exactly its hints: with the lemma's negation assigned,
every hint must be a live clause with at most one literal not false (that literal is assigned);
a hint with none is the conflict that proves the lemma. If the unit hints end without conflict,
the lemma needs RAT on its first literal p: every live, non-tautological clause D holding -p either
has a literal true under the current assignment or is named by a RAT group `-D hints...`, whose
hints (after assigning the negation of D - {-p}) must reach a conflict. Deletions drop clauses.
The proof is VERIFIED when a lemma without literals passes.

Literal codes: variable v >= 1 is 2v (positive) and 2v+1 (negative); x ^ 1 negates. Clauses live
in one arena (`lits`, `beg`); the formula is clauses 0..nf-1, the proof's step s is clause nf+s.

What is trusted: the parsers (parse.py) that turn files into these arrays; these kernels; and the
empty-clause detection (a DRAT proof is complete when top-level propagation of the formula plus
the checked lemmas conflicts; an LRAT proof when a lemma with no literals passes). Everything
else — the solver, its proof, our own LRAT emission — is checked, not trusted.
"""
from __future__ import annotations

import numpy as np
from numba import njit

NONE = np.int64(-1)  # typed int64, not Literal[int]: numba compiles a callee once per literal
ZERO = np.int64(0)   # argument signature, and the checker's compile time is what CI pays cold

# kernel outcomes
OK, NO_CONFLICT, FAIL, INTERNAL = 0, 1, 2, 3
# LRAT failure kinds (detail of FAIL)
L_HINT_DEAD, L_HINT_NOT_UNIT, L_NO_CONFLICT, L_RAT_MISSING, L_RAT_NO_CONFLICT, L_RAT_EMPTY = range(6)


# ---- assignment -------------------------------------------------------------------------------
@njit(cache=True)
def _assign(lit, rsn, val, reason, tpos, trail, st):
    """Make `lit` true with reason clause `rsn` (-1: an assumption), pushed on the trail."""
    n = st[0]
    trail[n] = lit
    val[lit] = 1
    val[lit ^ 1] = -1
    reason[lit >> 1] = rsn
    tpos[lit >> 1] = n
    st[0] = n + 1


@njit(cache=True)
def _backtrack(pos, val, trail, st):
    """Unassign the trail from position `pos` on."""
    for i in range(pos, st[0]):
        lit = trail[i]
        val[lit] = 0
        val[lit ^ 1] = 0
    st[0] = pos


# ---- watches: clause c watches lits[beg[c]] and lits[beg[c]+1]; literal l's watch list is
# wpool[wbeg[l] : wbeg[l] + wcnt[l]] (capacity = occurrences of l, so it never overflows) ---------
@njit(cache=True)
def _watch(c, lit, wpool, wbeg, wcnt):
    wpool[wbeg[lit] + wcnt[lit]] = c
    wcnt[lit] += 1


@njit(cache=True)
def _unwatch(c, lit, wpool, wbeg, wcnt):
    b = wbeg[lit]
    n = wcnt[lit]
    for i in range(b, b + n):
        if wpool[i] == c:
            wpool[i] = wpool[b + n - 1]
            wcnt[lit] = n - 1
            return


@njit(cache=True)
def _attach(c, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st):
    """Watch clause c under the current assignment (true literals first, then unassigned, then
    the latest false). Returns 0 (nothing forced), 1 (unit: its literal assigned), 2 (all false)."""
    s = beg[c]
    e = beg[c + 1]
    if e == s:
        return 2
    if e - s == 1:
        lit = lits[s]
        if val[lit] == 1:
            return 0
        if val[lit] == -1:
            return 2
        _assign(np.int64(lit), np.int64(c), val, reason, tpos, trail, st)
        return 1
    for w in range(2):  # bring the two best literals to positions s, s+1
        best = s + w
        bkey = -1
        for k in range(s + w, e):
            lit = lits[k]
            key = (1 << 62) if val[lit] == 1 else ((1 << 61) if val[lit] == 0 else tpos[lit >> 1])
            if key > bkey:
                bkey = key
                best = k
        tmp = lits[s + w]
        lits[s + w] = lits[best]
        lits[best] = tmp
    _watch(np.int64(c), np.int64(lits[s]), wpool, wbeg, wcnt)
    _watch(np.int64(c), np.int64(lits[s + 1]), wpool, wbeg, wcnt)
    a = val[lits[s]]
    if a == 1 or (a == 0 and val[lits[s + 1]] != -1):
        return 0
    if a == 0:
        _assign(np.int64(lits[s]), np.int64(c), val, reason, tpos, trail, st)
        return 1
    return 2


@njit(cache=True)
def _detach(c, lits, beg, wpool, wbeg, wcnt):
    if beg[c + 1] - beg[c] >= 2:
        _unwatch(c, lits[beg[c]], wpool, wbeg, wcnt)
        _unwatch(c, lits[beg[c] + 1], wpool, wbeg, wcnt)


@njit(cache=True)
def _is_reason(c, lits, beg, val, reason):
    """Clause c is the reason of a current assignment (its implied literal sits first)."""
    if beg[c + 1] == beg[c]:
        return False
    lit = lits[beg[c]]
    return val[lit] == 1 and reason[lit >> 1] == c


# ---- propagation ------------------------------------------------------------------------------
@njit(cache=True)
def _visit(f, want_core, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core):
    """Literal f became false: visit the clauses watching it whose core flag is `want_core`.
    Returns a conflicting clause or -1."""
    b = wbeg[f]
    n = wcnt[f]
    j = 0
    confl = -1
    for i in range(n):
        c = wpool[b + i]
        if confl >= 0 or core[c] != want_core:
            wpool[b + j] = c
            j += 1
            continue
        s = beg[c]
        if lits[s] == f:
            lits[s] = lits[s + 1]
            lits[s + 1] = f
        other = lits[s]
        if val[other] == 1:
            wpool[b + j] = c
            j += 1
            continue
        moved = False
        for k in range(s + 2, beg[c + 1]):
            lit = lits[k]
            if val[lit] != -1:
                lits[s + 1] = lit
                lits[k] = f
                _watch(np.int64(c), np.int64(lit), wpool, wbeg, wcnt)
                moved = True
                break
        if moved:
            continue
        wpool[b + j] = c
        j += 1
        if val[other] == -1:
            confl = c
        else:
            _assign(np.int64(other), np.int64(c), val, reason, tpos, trail, st)
    wcnt[f] = j
    return confl


@njit(cache=True)
def _propagate(lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core):
    """Unit propagation to a fixpoint or a conflict (returned; -1: none), core clauses first.
    st[0] = trail length, st[1] / st[2] = trail positions processed for core / other clauses."""
    while True:
        while st[1] < st[0]:
            f = trail[st[1]] ^ 1
            st[1] += 1
            confl = _visit(f, 1, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core)
            if confl >= 0:
                return confl
        if st[2] >= st[0]:
            return -1
        f = trail[st[2]] ^ 1
        st[2] += 1
        confl = _visit(f, 0, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core)
        if confl >= 0:
            return confl


@njit(cache=True)
def _analyze(confl, cvar, lits, beg, reason, trail, st, seen, core, out):
    """Mark core the clauses behind a conflict: clause `confl` all false, or (confl = -1) variable
    `cvar` assigned both ways. Writes into `out` the reasons used, in trail order, then `confl`;
    returns how many."""
    pending = 0
    if confl >= 0:
        core[confl] = 1
        for k in range(beg[confl], beg[confl + 1]):
            v = lits[k] >> 1
            if seen[v] == 0:
                seen[v] = 1
                pending += 1
    else:
        seen[cvar] = 1
        pending = 1
    nh = 0
    i = st[0] - 1
    while pending > 0:
        v = trail[i] >> 1
        i -= 1
        if seen[v] == 0:
            continue
        seen[v] = 0
        pending -= 1
        r = reason[v]
        if r < 0:
            continue
        core[r] = 1
        out[nh] = r
        nh += 1
        for k in range(beg[r] + 1, beg[r + 1]):  # beg[r] holds v's own literal
            u = lits[k] >> 1
            if seen[u] == 0:
                seen[u] = 1
                pending += 1
    for k in range(nh // 2):
        tmp = out[k]
        out[k] = out[nh - 1 - k]
        out[nh - 1 - k] = tmp
    if confl >= 0:
        out[nh] = confl
        nh += 1
    return nh


@njit(cache=True)
def _rup(c, d, dlit, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core, seen, out):
    """Is clause c (with, if d >= 0, clause d minus literal `dlit`) a RUP consequence of the live
    clauses? Top level must be at a fixpoint. Returns the number of hints written to `out`,
    -1 (no conflict) or -2 (the resolvent is a tautology). The assignment is restored."""
    top = st[0]
    cvar = -1
    taut = False
    for pass_ in range(2):
        x = c if pass_ == 0 else d
        if x < 0:
            break
        for k in range(beg[x], beg[x + 1]):
            lit = lits[k]
            if pass_ == 1 and lit == dlit:
                continue
            if val[lit] == 1:
                if tpos[lit >> 1] >= top:
                    taut = True
                else:
                    cvar = lit >> 1
                break
            if val[lit] == 0:
                _assign(np.int64(lit ^ 1), NONE, val, reason, tpos, trail, st)
        if cvar >= 0 or taut:
            break
    if taut:
        _backtrack(top, val, trail, st)
        st[1] = top
        st[2] = top
        return -2
    confl = -1
    if cvar < 0:
        confl = _propagate(lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core)
    nh = -1
    if confl >= 0 or cvar >= 0:
        nh = _analyze(confl, cvar, lits, beg, reason, trail, st, seen, core, out)
    _backtrack(top, val, trail, st)
    st[1] = top
    st[2] = top
    return nh


# ---- deletion matching ------------------------------------------------------------------------
@njit(cache=True)
def _hash(c, lits, beg):
    h = np.uint64(beg[c + 1] - beg[c])
    for k in range(beg[c], beg[c + 1]):
        x = np.uint64(lits[k]) * np.uint64(0x9E3779B97F4A7C15)
        h += x ^ (x >> np.uint64(29))
    return h


@njit(cache=True)
def _same(a, b, lits, beg, stamp, tick):
    """Clauses a and b have the same literals (duplicate-free; order may differ: watching
    reorders them). `stamp` is a per-literal scratch array, `tick` a value not yet in it."""
    n = beg[a + 1] - beg[a]
    if beg[b + 1] - beg[b] != n:
        return False
    for k in range(beg[a], beg[a + 1]):
        stamp[lits[k]] = tick
    for k in range(beg[b], beg[b + 1]):
        if stamp[lits[k]] != tick:
            return False
    return True


# ---- DRAT -------------------------------------------------------------------------------------
@njit(cache=True)
def _grow(buf, need):
    if need <= buf.shape[0]:
        return buf
    nb = np.empty(max(need, 2 * buf.shape[0]), buf.dtype)
    for i in range(buf.shape[0]):  # a loop, not a slice assignment: that costs 3 s to compile
        nb[i] = buf[i]
    return nb


@njit(cache=True)
def drat_check(lits, beg, pivot, taut, nf, delete, nvars, rat, emit):
    """Check a DRAT proof (steps = clauses nf.. of the arena; `delete` per step) against the
    formula (clauses 0..nf-1). `rat`: allow RAT lemmas (DRAT) or not (DRUP). `lits` is reordered.

    Returns (outcome, step, detail, conflict_step, target, ignored, core, hstart, hlen, hbuf,
    final_hints, counts): outcome OK / NO_CONFLICT / FAIL (at `step`; detail -1: RUP failed and no
    RAT, else the RAT candidate clause that failed) / INTERNAL; conflict_step = the step after
    which propagation conflicts (-1: the formula alone); target[s] = the clause a deletion step
    removed (-1: none matched); ignored[s] = deletion of a reason, not done; per clause the core
    flag and (emit) its hints hbuf[hstart:hstart+hlen]; final_hints: the top-level conflict's;
    counts = [missing deletions, ignored deletions, core lemmas, RAT lemmas, re-propagations]."""
    ncl = beg.shape[0] - 1
    ns = ncl - nf
    nlit = 2 * nvars + 2
    # watch capacities: occurrences over every clause that can be attached
    occ = np.zeros(nlit + 1, np.int64)
    for c in range(ncl):
        if c >= nf and delete[c - nf]:
            continue
        if beg[c + 1] - beg[c] >= 2 and not taut[c]:
            for k in range(beg[c], beg[c + 1]):
                occ[lits[k] + 1] += 1
    wbeg = np.cumsum(occ)[:nlit]
    wpool = np.empty(max(1, wbeg[nlit - 1] + occ[nlit]), np.int32)
    wcnt = np.zeros(nlit, np.int64)
    val = np.zeros(nlit, np.int8)
    reason = np.full(nvars + 1, -1, np.int64)
    tpos = np.zeros(nvars + 1, np.int64)
    trail = np.empty(nvars + 1, np.int32)
    seen = np.zeros(nvars + 1, np.uint8)
    out = np.empty(nvars + 2, np.int64)
    st = np.zeros(3, np.int64)
    core = np.zeros(ncl, np.uint8)
    alive = np.zeros(ncl, np.uint8)
    target = np.full(ns, -1, np.int64)
    ignored = np.zeros(ns, np.uint8)
    counts = np.zeros(5, np.int64)
    hstart = np.zeros(ncl, np.int64)
    hlen = np.zeros(ncl, np.int64)
    hbuf = np.empty(1024 if emit else 0, np.int64)
    nbuf = 0
    empty_hints = np.empty(0, np.int64)
    # hash chains of live clauses, for deletions
    nb = 1
    while nb < 2 * ncl + 2:
        nb *= 2
    mask = np.uint64(nb - 1)
    head = np.full(nb, -1, np.int64)
    nxt = np.full(ncl, -1, np.int64)
    hval = np.zeros(ncl, np.uint64)
    stamp = np.zeros(nlit, np.int64)
    tick = 0

    # ---- forward pass
    confl = -1
    kstep = -1
    mark = 0
    for c in range(nf):
        alive[c] = 1
        hval[c] = _hash(c, lits, beg)
        slot = hval[c] & mask
        nxt[c] = head[slot]
        head[slot] = c
        if confl < 0 and not taut[c]:
            if _attach(c, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st) == 2:
                confl = c
    if confl < 0:
        confl = _propagate(lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core)
    if confl < 0:
        for s in range(ns):
            c = nf + s
            if not delete[s]:
                mark = st[0]
                alive[c] = 1
                hval[c] = _hash(c, lits, beg)
                slot = hval[c] & mask
                nxt[c] = head[slot]
                head[slot] = c
                if taut[c]:
                    continue
                if _attach(c, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st) == 2:
                    confl = c
                else:
                    confl = _propagate(lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core)
                if confl >= 0:
                    kstep = s
                    break
                continue
            h = _hash(c, lits, beg)
            slot = h & mask
            prev = -1
            d = head[slot]
            while d >= 0:
                if hval[d] == h:
                    tick += 1
                    if _same(c, d, lits, beg, stamp, tick):
                        break
                prev = d
                d = nxt[d]
            if d < 0:
                counts[0] += 1
                continue
            target[s] = d
            if not taut[d] and _is_reason(d, lits, beg, val, reason):
                ignored[s] = 1
                counts[1] += 1
                continue
            if prev < 0:
                head[slot] = nxt[d]
            else:
                nxt[prev] = nxt[d]
            alive[d] = 0
            if not taut[d]:
                _detach(d, lits, beg, wpool, wbeg, wcnt)
    if confl < 0:
        return (NO_CONFLICT, -1, -1, -1, target, ignored, core, hstart, hlen, hbuf[:nbuf],
                empty_hints, counts)
    nh = _analyze(confl, NONE, lits, beg, reason, trail, st, seen, core, out)
    final_hints = out[:nh].copy()
    if kstep < 0:
        return (OK, -1, -1, -1, target, ignored, core, hstart, hlen, hbuf[:nbuf], final_hints, counts)
    # the state before the conflict step was a fixpoint without conflict
    _backtrack(mark, val, trail, st)
    st[1] = mark
    st[2] = mark

    # ---- backward pass
    nu = 0
    for c in range(ncl):
        if beg[c + 1] - beg[c] == 1 and (c < nf or not delete[c - nf]):
            nu += 1
    units = np.empty(nu, np.int64)
    nu = 0
    for c in range(ncl):
        if beg[c + 1] - beg[c] == 1 and (c < nf or not delete[c - nf]):
            units[nu] = c
            nu += 1
    for s in range(kstep, -1, -1):
        c = nf + s
        if delete[s]:
            d = target[s]
            if d < 0 or ignored[s] == 1:
                continue
            alive[d] = 1
            if not taut[d]:
                if _attach(d, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st) == 2:
                    return (INTERNAL, s, -1, kstep, target, ignored, core, hstart, hlen,
                            hbuf[:nbuf], final_hints, counts)
            continue
        alive[c] = 0
        if taut[c]:
            continue
        if _is_reason(c, lits, beg, val, reason):
            # undo the assignments from c's literal on, assert the live unit clauses again (they
            # are not watched), and let propagation over the whole trail re-derive the rest
            _backtrack(tpos[lits[beg[c]] >> 1], val, trail, st)
            for i in range(units.shape[0]):
                u = units[i]
                if alive[u] == 1 and val[lits[beg[u]]] == 0:
                    _assign(np.int64(lits[beg[u]]), np.int64(u), val, reason, tpos, trail, st)
            st[1] = 0
            st[2] = 0
            counts[4] += 1
        _detach(c, lits, beg, wpool, wbeg, wcnt)
        if core[c] == 0:
            continue
        counts[2] += 1
        if _propagate(lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core) >= 0:
            return (INTERNAL, s, -1, kstep, target, ignored, core, hstart, hlen, hbuf[:nbuf],
                    final_hints, counts)
        nh = _rup(c, NONE, NONE, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st, core,
                  seen, out)
        if nh >= 0:
            if emit:
                hbuf = _grow(hbuf, nbuf + nh)
                hstart[c] = nbuf
                hlen[c] = nh
                for k in range(nh):
                    hbuf[nbuf + k] = out[k]
                nbuf += nh
            continue
        if not rat or beg[c + 1] == beg[c]:
            return (FAIL, s, -1, kstep, target, ignored, core, hstart, hlen, hbuf[:nbuf],
                    final_hints, counts)
        # RAT on the pivot: every live clause with its negation gives a RUP resolvent
        counts[3] += 1
        npiv = pivot[c] ^ 1
        hstart[c] = nbuf
        for d in range(ncl):
            if alive[d] == 0 or taut[d]:
                continue
            has = False
            for k in range(beg[d], beg[d + 1]):
                if lits[k] == npiv:
                    has = True
                    break
            if not has:
                continue
            nh = _rup(c, d, npiv, lits, beg, wpool, wbeg, wcnt, val, reason, tpos, trail, st,
                      core, seen, out)
            if nh == -2:
                continue
            if nh < 0:
                return (FAIL, s, d, kstep, target, ignored, core, hstart, hlen, hbuf[:nbuf],
                        final_hints, counts)
            core[d] = 1
            if emit:
                hbuf = _grow(hbuf, nbuf + nh + 1)
                hbuf[nbuf] = -(d + 1)
                for k in range(nh):
                    hbuf[nbuf + 1 + k] = out[k]
                nbuf += nh + 1
        hlen[c] = nbuf - hstart[c]
    return (OK, -1, -1, kstep, target, ignored, core, hstart, hlen, hbuf[:nbuf], final_hints, counts)


# ---- LRAT emission ----------------------------------------------------------------------------
@njit(cache=True)
def _put(buf, n, x):
    """Append integer x and a space at buf[n:]; returns the new length (buf has room)."""
    if x < 0:
        buf[n] = 45
        n += 1
        x = -x
    k = n
    while True:
        buf[n] = 48 + x % 10
        n += 1
        x //= 10
        if x == 0:
            break
    i = k
    j = n - 1
    while i < j:
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
        i += 1
        j -= 1
    buf[n] = 32
    return n + 1


@njit(cache=True)
def _signed(code):
    return -(code >> 1) if code & 1 else code >> 1


@njit(cache=True)
def emit_lrat(lits, beg, pivot, nf, delete, kstep, target, ignored, core, hstart, hlen, hbuf,
              final_hints):
    """The LRAT text (bytes) of a checked DRAT proof: the core lemmas in proof order with their
    hints (formula clause i is id i+1, lemmas numbered on), the deletions of clauses it holds, and
    the empty clause. Needs drat_check(..., emit=True) outputs."""
    ncl = beg.shape[0] - 1
    lid = np.zeros(ncl, np.int64)
    for c in range(nf):
        lid[c] = c + 1
    nxt = nf + 1
    buf = np.empty(1 << 16, np.uint8)
    n = 0
    for s in range(kstep + 1):
        c = nf + s
        if delete[s]:
            d = target[s]
            if d < 0 or ignored[s] == 1 or lid[d] == 0:
                continue
            buf = _grow(buf, n + 64)
            n = _put(buf, n, nxt - 1)
            buf[n] = 100
            buf[n + 1] = 32
            n += 2
            n = _put(buf, n, lid[d])
            buf[n] = 48
            buf[n + 1] = 10
            n += 2
            continue
        if core[c] == 0:
            continue
        lid[c] = nxt
        nxt += 1
        buf = _grow(buf, n + 24 * (beg[c + 1] - beg[c] + hlen[c] + 4))
        n = _put(buf, n, lid[c])
        if beg[c + 1] > beg[c]:
            n = _put(buf, n, _signed(pivot[c]))
            for k in range(beg[c], beg[c + 1]):
                if lits[k] != pivot[c]:
                    n = _put(buf, n, _signed(lits[k]))
        buf[n] = 48
        buf[n + 1] = 32
        n += 2
        for k in range(hstart[c], hstart[c] + hlen[c]):
            h = hbuf[k]
            n = _put(buf, n, -lid[-h - 1] if h < 0 else lid[h])
        buf[n] = 48
        buf[n + 1] = 10
        n += 2
    # the conflict came from an empty lemma: its line above is the empty clause; else add one
    if kstep < 0 or beg[nf + kstep + 1] > beg[nf + kstep]:
        buf = _grow(buf, n + 24 * (final_hints.shape[0] + 4))
        n = _put(buf, n, nxt)
        buf[n] = 48
        buf[n + 1] = 32
        n += 2
        for k in range(final_hints.shape[0]):
            n = _put(buf, n, lid[final_hints[k]])
        buf[n] = 48
        buf[n + 1] = 10
        n += 2
    return buf[:n]


# ---- LRAT -------------------------------------------------------------------------------------
@njit(cache=True)
def _hint_unit(h, lits, beg, val, reason, tpos, trail, st):
    """Hint clause h under the assignment: 0 = conflict (all false), 1 = unit (its literal now
    true), 2 = more than one literal not false."""
    free = -1
    for k in range(beg[h], beg[h + 1]):
        lit = lits[k]
        if val[lit] != -1:
            if free >= 0:
                return 2
            free = lit
    if free < 0:
        return 0
    if val[free] == 0:
        _assign(np.int64(free), np.int64(h), val, reason, tpos, trail, st)
    return 1


@njit(cache=True)
def lrat_check(lits, beg, pivot, taut, nf, delete, hints, hbeg, nvars):
    """Check an LRAT proof. Clause nf+s is step s's lemma; `hints` are dense clause indices
    (UNKNOWN = -1), RAT markers -2-d for candidate d (a marker naming no clause: below -2-ncl).
    Returns (outcome, step, kind, hint position, candidate): OK at the step that derives the empty
    clause, NO_CONFLICT, or FAIL with its kind (L_*)."""
    ncl = beg.shape[0] - 1
    ns = ncl - nf
    nlit = 2 * nvars + 2
    val = np.zeros(nlit, np.int8)
    reason = np.full(nvars + 1, -1, np.int64)
    tpos = np.zeros(nvars + 1, np.int64)
    trail = np.empty(nvars + 1, np.int32)
    st = np.zeros(3, np.int64)
    alive = np.zeros(ncl, np.uint8)
    for c in range(nf):
        alive[c] = 1
    for s in range(ns):
        c = nf + s
        hb = hbeg[s]
        he = hbeg[s + 1]
        if delete[s]:
            for p in range(hb, he):
                if hints[p] >= 0:
                    alive[hints[p]] = 0
            continue
        conflict = False
        for k in range(beg[c], beg[c + 1]):
            lit = lits[k]
            if val[lit] == 1:  # a tautology: holds trivially
                conflict = True
                break
            if val[lit] == 0:
                _assign(np.int64(lit ^ 1), NONE, val, reason, tpos, trail, st)
        p = hb
        while not conflict and p < he and hints[p] >= -1:
            h = hints[p]
            if h < 0 or alive[h] == 0:
                _backtrack(ZERO, val, trail, st)
                return FAIL, s, L_HINT_DEAD, p, -1
            r = _hint_unit(h, lits, beg, val, reason, tpos, trail, st)
            if r == 2:
                _backtrack(ZERO, val, trail, st)
                return FAIL, s, L_HINT_NOT_UNIT, p, -1
            conflict = r == 0
            p += 1
        if not conflict:
            if p == he:
                _backtrack(ZERO, val, trail, st)
                return FAIL, s, L_NO_CONFLICT, p, -1
            if beg[c + 1] == beg[c]:
                _backtrack(ZERO, val, trail, st)
                return FAIL, s, L_RAT_EMPTY, p, -1
            npiv = pivot[c] ^ 1
            save = st[0]
            for d in range(c):
                if alive[d] == 0 or taut[d]:
                    continue
                has = False
                sat = False
                for k in range(beg[d], beg[d + 1]):
                    if lits[k] == npiv:
                        has = True
                    elif val[lits[k]] == 1:
                        sat = True
                if not has or sat:
                    continue
                g = p
                while g < he and hints[g] != -2 - d:
                    g += 1
                if g == he:
                    _backtrack(ZERO, val, trail, st)
                    return FAIL, s, L_RAT_MISSING, p, d
                for k in range(beg[d], beg[d + 1]):
                    lit = lits[k]
                    if lit != npiv and val[lit] == 0:
                        _assign(np.int64(lit ^ 1), NONE, val, reason, tpos, trail, st)
                done = False
                g += 1
                while not done and g < he and hints[g] >= -1:
                    h = hints[g]
                    if h < 0 or alive[h] == 0:
                        _backtrack(ZERO, val, trail, st)
                        return FAIL, s, L_HINT_DEAD, g, d
                    r = _hint_unit(h, lits, beg, val, reason, tpos, trail, st)
                    if r == 2:
                        _backtrack(ZERO, val, trail, st)
                        return FAIL, s, L_HINT_NOT_UNIT, g, d
                    done = r == 0
                    g += 1
                if not done:
                    _backtrack(ZERO, val, trail, st)
                    return FAIL, s, L_RAT_NO_CONFLICT, g, d
                _backtrack(save, val, trail, st)
        _backtrack(ZERO, val, trail, st)
        alive[c] = 1
        if beg[c + 1] == beg[c]:
            return OK, s, -1, -1, -1
    return NO_CONFLICT, -1, -1, -1, -1
