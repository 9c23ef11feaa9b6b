"""CP-SAT's binary LRAT files as text LRAT against a DIMACS CNF (compiled kernels).

CP-SAT (`output_lrat_proof`) writes one file per sub-solver: a stream of `LratProofStep`
protocol-buffer messages (ortools/sat/lrat.proto), each preceded by its length as a varint.
Every file numbers its clauses in its own id space. The text LRAT written here numbers the CNF's
clauses 1..C and gives every other clause the next id:

- an imported clause is matched by its literals (as a set) to a live clause with the same ones (a
  CNF clause or an earlier lemma; the earliest such), as CP-SAT's own merger does; an import that
  matches none gets an id no clause has, so a proof step using it is rejected by the checker;
- an inferred clause is a lemma `id lits 0 hints 0` (a RAT step's resolvant id negated before its
  own hints); a hint naming an id the file never defined gets an id no clause has (rejected);
- deletions (`deletions=True`) take the file's ids out: a clause is deleted (`k d ids 0`) when no
  id of the file names it any more and it is live.
Conversion stops at the first empty lemma. Nothing here decides whether the proof is right: the
independent checker (puzzlesat.certify) does.

Vocabulary: a step is one message (kind IMPORT, INFER or DELETE); `vals` holds, per step, its
literals (DIMACS signed) then its hints (a RAT resolvant id r as -(r + 1)); for DELETE the ids.
"""
from __future__ import annotations

import numpy as np
from numba import njit

IMPORT, INFER, DELETE = np.int64(1), np.int64(2), np.int64(3)
_ERRORS = {1: "truncated record length", 2: "truncated record", 3: "bad varint",
           4: "unsupported protocol-buffer wire type"}
_P = 2147483647          # the literal-set hash's modulus (no overflow in int64)
# _scalars' modes, as int64 values: a literal argument would compile one more specialization
AS_IS, LIT = np.int64(0), np.int64(1)


# ---- decoding ---------------------------------------------------------------------------------
@njit(cache=True)
def _varint(buf, pos, end):
    """(value, next position) of the varint at pos; next position -1 when it is cut or too long."""
    v = np.uint64(0)
    shift = 0
    while True:
        if pos >= end or shift > 63:
            return np.int64(0), -1
        b = buf[pos]
        pos += 1
        v |= np.uint64(b & 127) << np.uint64(shift)
        if b < 128:
            return np.int64(v), pos
        shift += 7


@njit(cache=True)
def _skip(buf, pos, end, wt):
    """Position after an unknown field's value of wire type wt (-1: bad)."""
    if wt == 0:
        _, pos = _varint(buf, pos, end)
        return pos
    if wt == 1:
        return pos + 8 if pos + 8 <= end else -1
    if wt == 5:
        return pos + 4 if pos + 4 <= end else -1
    if wt == 2:
        n, pos = _varint(buf, pos, end)
        if pos < 0 or pos + n > end or n < 0:
            return -1
        return pos + n
    return -1


@njit(cache=True)
def _lit(x):
    """CP-SAT literal index -> DIMACS literal."""
    return -((x >> 1) + 1) if x & 1 else (x >> 1) + 1


@njit(cache=True)
def _scalars(buf, pos, end, wt, out, k, fill, mode):
    """One repeated scalar field (packed: wt 2, or a single varint: wt 0) appended to out[k:];
    mode AS_IS or LIT (a CP-SAT literal, stored as a DIMACS one). Returns (pos, k) (pos -1: bad)."""
    if wt == 0:
        v, pos = _varint(buf, pos, end)
        if pos < 0:
            return -1, k
        if fill:
            out[k] = _lit(v) if mode == LIT else v
        return pos, k + 1
    if wt != 2:
        return -1, k
    n, pos = _varint(buf, pos, end)
    if pos < 0 or n < 0 or pos + n > end:
        return -1, k
    stop = pos + n
    while pos < stop:
        v, pos = _varint(buf, pos, stop)
        if pos < 0:
            return -1, k
        if fill:
            out[k] = _lit(v) if mode == LIT else v
        k += 1
    return pos, k


@njit(cache=True)
def _clause_msg(buf, pos, end, vals, k, fill, kind):
    """A step's message in buf[pos:end] (kind IMPORT, INFER or DELETE): (error, clause id, k
    after the literals (DELETE: after the ids), k after the hints). Literals first, then unit
    ids, then each RAT info (its resolvant, then its unit ids), whatever order the fields come in."""
    cid = np.int64(0)
    p = pos
    while p < end:  # clause id and literals (DELETE: the ids)
        tag, p = _varint(buf, p, end)
        if p < 0:
            return 3, cid, k, k
        f, wt = tag >> 3, tag & 7
        if f == 1 and kind == DELETE:
            p, k = _scalars(buf, p, end, wt, vals, k, fill, AS_IS)
        elif f == 1 and wt == 0:
            cid, p = _varint(buf, p, end)
        elif f == 2 and kind != DELETE:
            p, k = _scalars(buf, p, end, wt, vals, k, fill, LIT)
        else:
            p = _skip(buf, p, end, wt)
        if p < 0:
            return 4, cid, k, k
    mid = k
    if kind != INFER:
        return 0, cid, mid, k
    p = pos
    while p < end:  # unit ids
        tag, p = _varint(buf, p, end)
        if p < 0:
            return 3, cid, mid, k
        f, wt = tag >> 3, tag & 7
        if f == 3:
            p, k = _scalars(buf, p, end, wt, vals, k, fill, AS_IS)
        else:
            p = _skip(buf, p, end, wt)
        if p < 0:
            return 4, cid, mid, k
    p = pos
    while p < end:  # RAT infos, in order
        tag, p = _varint(buf, p, end)
        if p < 0:
            return 3, cid, mid, k
        f, wt = tag >> 3, tag & 7
        if f == 4 and wt == 2:
            n, p = _varint(buf, p, end)
            if p < 0 or n < 0 or p + n > end:
                return 4, cid, mid, k
            q, stop = p, p + n
            res = np.int64(0)
            while q < stop:  # the resolvant first, wherever it is
                t2, q = _varint(buf, q, stop)
                if q < 0:
                    return 3, cid, mid, k
                if (t2 >> 3) == 1 and (t2 & 7) == 0:
                    res, q = _varint(buf, q, stop)
                else:
                    q = _skip(buf, q, stop, t2 & 7)
                if q < 0:
                    return 4, cid, mid, k
            if fill:
                vals[k] = -(res + 1)
            k += 1
            q = p
            while q < stop:
                t2, q = _varint(buf, q, stop)
                if q < 0:
                    return 3, cid, mid, k
                if (t2 >> 3) == 2:
                    q, k = _scalars(buf, q, stop, t2 & 7, vals, k, fill, AS_IS)
                else:
                    q = _skip(buf, q, stop, t2 & 7)
                if q < 0:
                    return 4, cid, mid, k
            p = stop
        else:
            p = _skip(buf, p, end, wt)
        if p < 0:
            return 4, cid, mid, k
    return 0, cid, mid, k


@njit(cache=True)
def _decode(buf, fill, kind, cid, beg, mid, end, vals):
    """Every step of a file (fill False: only count them). Returns (error, byte offset of the
    record, steps, values)."""
    n = buf.shape[0]
    pos = 0
    s = 0
    k = 0
    while pos < n:
        size, q = _varint(buf, pos, n)
        if q < 0:
            return 1, pos, s, k
        if size < 0 or q + size > n:
            return 2, pos, s, k
        p, stop = q, q + size
        while p < stop:
            tag, p = _varint(buf, p, stop)
            if p < 0:
                return 3, pos, s, k
            f, wt = tag >> 3, tag & 7
            if (f == 1 or f == 2 or f == 4) and wt == 2:
                ln, p = _varint(buf, p, stop)
                if p < 0 or ln < 0 or p + ln > stop:
                    return 2, pos, s, k
                k0 = k
                kd = IMPORT if f == 1 else (INFER if f == 2 else DELETE)
                err, c, m, k = _clause_msg(buf, p, p + ln, vals, k, fill, kd)
                if err:
                    return err, pos, s, k
                if fill:
                    kind[s] = kd
                    cid[s] = c
                    beg[s] = k0
                    mid[s] = m
                    end[s] = k
                s += 1
                p += ln
            else:
                p = _skip(buf, p, stop, wt)
                if p < 0:
                    return 4, pos, s, k
        pos = stop
    return 0, pos, s, k


class Steps:
    """One CP-SAT LRAT file decoded: per step kind, its clause id and its range of `vals`."""

    def __init__(self, path):
        buf = np.fromfile(path, dtype=np.uint8)
        one = np.zeros(1, np.int64)
        err, off, n, nv = _decode(buf, False, one.astype(np.int8), one, one, one, one, one)
        if err:
            raise ValueError(f"{path}: {_ERRORS[err]} at byte {off}")
        self.kind = np.zeros(n, np.int8)
        self.cid, self.beg, self.mid, self.end = (np.zeros(n, np.int64) for _ in range(4))
        self.vals = np.zeros(nv, np.int64)
        _decode(buf, True, self.kind, self.cid, self.beg, self.mid, self.end, self.vals)
        # the largest id the file may name (literals included: an upper bound is enough)
        self.top = int(max(self.cid.max(initial=0), np.abs(self.vals).max(initial=0)))
        self.path = path

    def __len__(self) -> int:
        return len(self.kind)

    def empty_and_lemmas(self) -> tuple[bool, int]:
        """(derives the empty clause, lemmas up to the first empty one, or all)."""
        inf = np.flatnonzero(self.kind == INFER)
        empty = inf[self.beg[inf] == self.mid[inf]]
        if len(empty):
            return True, int(np.searchsorted(inf, empty[0]) + 1)
        return False, int(len(inf))


# ---- the live clauses and the conversion ------------------------------------------------------
@njit(cache=True)
def _norm(vals, b, e, tmp):
    """The sorted distinct literals of vals[b:e] into tmp; returns their number."""
    n = e - b
    for i in range(n):
        tmp[i] = vals[b + i]
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap > 0:  # Shell sort (insertion sort for short clauses): no np.sort, quick to compile
        for i in range(gap, n):
            x = tmp[i]
            j = i - gap
            while j >= 0 and tmp[j] > x:
                tmp[j + gap] = tmp[j]
                j -= gap
            tmp[j + gap] = x
        gap //= 3
    m = 0
    for i in range(n):
        if m == 0 or tmp[i] != tmp[m - 1]:
            tmp[m] = tmp[i]
            m += 1
    return m


@njit(cache=True)
def _hash(tmp, m):
    h = np.int64(m + 7)
    for i in range(m):
        h = (h * 1000003 + (tmp[i] % _P + _P)) % _P
    return h


@njit(cache=True)
def _add(g, tmp, m, st, pool, pb, pe, head, tail, nxt, hv):
    """Clause g (our id) with sorted literals tmp[:m] becomes live (after its equals)."""
    p = st[7]
    for i in range(m):
        pool[p + i] = tmp[i]
    pb[g] = p
    pe[g] = p + m
    st[7] = p + m
    h = _hash(tmp, m)
    hv[g] = h
    b = h & (head.shape[0] - 1)
    nxt[g] = -1
    if head[b] < 0:
        head[b] = g
    else:
        nxt[tail[b]] = g
    tail[b] = g


@njit(cache=True)
def _find(tmp, m, pool, pb, pe, head, nxt, hv, alive):
    """The earliest live clause with exactly the literals tmp[:m], or -1."""
    h = _hash(tmp, m)
    g = head[h & (head.shape[0] - 1)]
    while g >= 0:
        if alive[g] and hv[g] == h and pe[g] - pb[g] == m:
            same = True
            for i in range(m):
                if pool[pb[g] + i] != tmp[i]:
                    same = False
                    break
            if same:
                return g
        g = nxt[g]
    return -1


@njit(cache=True)
def add_clauses(vals, beg, end, st, pool, pb, pe, head, tail, nxt, hv, alive, tmp):
    """The CNF's clauses (literals vals[beg[i]:end[i]]) as live clauses 1..C."""
    for i in range(beg.shape[0]):
        m = _norm(vals, beg[i], end[i], tmp)
        _add(i + 1, tmp, m, st, pool, pb, pe, head, tail, nxt, hv)
        alive[i + 1] = 1


@njit(cache=True)
def _put(buf, p, v):
    """Write integer v in decimal at buf[p:]; returns the position after it."""
    if v < 0:
        buf[p] = 45  # '-'
        p += 1
        v = -v
    if v == 0:
        buf[p] = 48
        return p + 1
    q = p
    while v > 0:
        buf[q] = 48 + v % 10
        v //= 10
        q += 1
    i, j = p, q - 1
    while i < j:
        buf[i], buf[j] = buf[j], buf[i]
        i += 1
        j -= 1
    return q


@njit(cache=True)
def _ref(h, idmap, st):
    """Our id of the file's id h (a fresh one, counted, when the file never defined h)."""
    if h < idmap.shape[0] and h >= 0 and idmap[h] >= 0:
        return idmap[h]
    g = st[0]
    st[0] += 1
    st[4] += 1
    if 0 <= h < idmap.shape[0]:
        idmap[h] = g
    return g


@njit(cache=True)
def convert(kind, cid, beg, mid, end, vals, s0, deletions, idmap, uses, mark, st, pool, pb,
            pe, head, tail, nxt, hv, alive, tmp, buf):
    """Steps s0.. of one file into text LRAT in buf. Returns (next step, bytes, code): code 0 =
    the file is done, 1 = buf is full (write it out and call again from the next step), 2 = an
    empty lemma was written (stop), 3 = buf is too small for the next step, 4 = the id arrays
    are too small for the next step (grow them and call again). st: [next id,
    lemmas, deletion lines, unmatched imports, unknown hints, empty, deletion stamp, pool used]."""
    cap = buf.shape[0]
    p = 0
    s = s0
    n = kind.shape[0]
    ids = alive.shape[0]
    while s < n:
        k = kind[s]
        if st[0] + 2 + (end[s] - mid[s]) >= ids:  # the ids this step may take do not fit
            return s, p, 4
        if k == IMPORT:
            m = _norm(vals, beg[s], mid[s], tmp)
            g = _find(tmp, m, pool, pb, pe, head, nxt, hv, alive)
            c = cid[s]
            if g >= 0:
                idmap[c] = g
                uses[g] = (0 if uses[g] < 0 else uses[g]) + 1
            else:
                idmap[c] = st[0]
                st[0] += 1
                st[3] += 1
        elif k == INFER:
            need = (end[s] - beg[s] + 4) * 21
            if p + need > cap:
                return s, p, 1 if p > 0 else 3
            g = st[0]
            st[0] += 1
            p = _put(buf, p, g)
            for i in range(beg[s], mid[s]):
                buf[p] = 32
                p = _put(buf, p + 1, vals[i])
            buf[p] = 32
            buf[p + 1] = 48
            p += 2
            for i in range(mid[s], end[s]):
                h = vals[i]
                buf[p] = 32
                if h < 0:
                    p = _put(buf, p + 1, -_ref(-h - 1, idmap, st))
                else:
                    p = _put(buf, p + 1, _ref(h, idmap, st))
            buf[p] = 32
            buf[p + 1] = 48
            buf[p + 2] = 10
            p += 3
            idmap[cid[s]] = g
            m = _norm(vals, beg[s], mid[s], tmp)
            _add(g, tmp, m, st, pool, pb, pe, head, tail, nxt, hv)
            alive[g] = 1
            st[1] += 1
            if mid[s] == beg[s]:
                st[5] = 1
                return s + 1, p, 2
        elif k == DELETE and deletions:
            need = (end[s] - beg[s] + 4) * 21
            if p + need > cap:
                return s, p, 1 if p > 0 else 3
            st[6] += 1
            stamp = st[6]
            ng = 0
            for i in range(beg[s], end[s]):
                x = vals[i]
                if 0 <= x < idmap.shape[0] and idmap[x] >= 0:
                    g = idmap[x]
                    idmap[x] = -1
                    uses[g] = (1 if uses[g] < 0 else uses[g]) - 1
                    if uses[g] <= 0 and mark[g] != stamp:
                        mark[g] = stamp
                        if alive[g]:
                            tmp[ng] = g
                            ng += 1
            if ng:
                p = _put(buf, p, st[0] - 1)
                buf[p] = 32
                buf[p + 1] = 100  # 'd'
                p += 2
                for i in range(ng):
                    alive[tmp[i]] = 0
                    buf[p] = 32
                    p = _put(buf, p + 1, tmp[i])
                buf[p] = 32
                buf[p + 1] = 48
                buf[p + 2] = 10
                p += 3
                st[2] += 1
        s += 1
    return s, p, 0


class Converter:
    """Text LRAT from CP-SAT's files against `clauses` (lists of DIMACS literals), written to the
    open binary file `out` as the steps are converted."""

    PER_ID = ("pb", "pe", "nxt", "hv", "alive", "uses", "mark")

    def __init__(self, clauses, files: list[Steps], out, chunk: int = 1 << 24):
        lens = np.fromiter((len(c) for c in clauses), np.int64, len(clauses))
        cend = np.cumsum(lens)
        cbeg = cend - lens
        cvals = np.fromiter((x for c in clauses for x in c), np.int64,
                            int(cend[-1]) if len(cend) else 0)
        C = len(clauses)
        steps = sum(len(f) for f in files)
        litsum = len(cvals) + sum(int((f.mid - f.beg).sum()) for f in files)
        widest = max([int((f.end - f.beg).max(initial=0)) for f in files]
                     + [int(lens.max(initial=0))])
        ids = C + steps + 1024        # ids are given to lemmas and imports; unknown hints: grown
        self.st = np.zeros(8, np.int64)
        self.st[0] = C + 1
        self.pool = np.zeros(max(litsum, 1), np.int64)
        self.pb = np.zeros(ids, np.int64)
        self.pe = np.zeros(ids, np.int64)
        self.nxt = np.full(ids, -1, np.int64)
        self.hv = np.zeros(ids, np.int64)
        self.alive = np.zeros(ids, np.int8)
        self.uses = np.full(ids, -1, np.int64)
        self.mark = np.zeros(ids, np.int64)
        buckets = 1 << max(4, int(C + steps).bit_length() + 1)
        self.head = np.full(buckets, -1, np.int64)
        self.tail = np.full(buckets, -1, np.int64)
        self.tmp = np.zeros(max(widest, 1), np.int64)
        self.buf = np.zeros(chunk, np.uint8)
        self.out = out
        add_clauses(cvals, cbeg, cend, self.st, self.pool, self.pb, self.pe, self.head, self.tail,
                    self.nxt, self.hv, self.alive, self.tmp)

    def _grow(self, need: int) -> None:
        """Room for ids up to `need` (doubling): every per-id array keeps its values."""
        size = len(self.alive)
        while size <= need:
            size *= 2
        for name in self.PER_ID:
            old = getattr(self, name)
            fill = -1 if name in ("nxt", "uses") else 0
            new = np.full(size, fill, old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def convert(self, f: Steps, deletions: bool) -> None:
        """Append file f's steps until its empty lemma; `deletions`: its deletions too."""
        idmap = np.full(f.top + 1, -1, np.int64)
        self.uses[:] = -1
        s = 0
        while True:
            s, nb, code = convert(f.kind, f.cid, f.beg, f.mid, f.end, f.vals, s, deletions, idmap,
                                  self.uses, self.mark, self.st, self.pool, self.pb, self.pe,
                                  self.head, self.tail, self.nxt, self.hv, self.alive, self.tmp,
                                  self.buf)
            self.out.write(self.buf[:nb].tobytes())
            if code == 3:
                self.buf = np.zeros(2 * len(self.buf), np.uint8)
            elif code == 4:
                self._grow(int(self.st[0]) + 2 + int(f.end[s] - f.mid[s]))
            elif code != 1:
                return

    @property
    def counts(self) -> dict:
        st = self.st
        return {"lemmas": int(st[1]), "deletions": int(st[2]), "unmatched_imports": int(st[3]),
                "unknown_hints": int(st[4]), "empty": bool(st[5])}
