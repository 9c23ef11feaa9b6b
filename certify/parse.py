"""Parsers for the checker's inputs: DIMACS CNF, DRAT/DRUP proofs (text and binary), LRAT (text).

Every format becomes a clause arena: `lits` (int32 literal codes, 2*var + 1 if negated), `beg`
(clause i is lits[beg[i]:beg[i+1]]), each clause sorted with duplicate literals removed; `pivot`
keeps the first literal as written (the RAT pivot; -1 for the empty clause) and `taut` flags a
clause holding a literal and its negation. `where` is the line of each clause (for a binary
proof: the byte offset of its step).

Grammar, as drat-trim reads it:

    DIMACS   `c` comment lines, then `p cnf V C`, then C clauses, each ended by 0 (a clause may span
             lines; a line starting with `%` ends the input, as in the SATLIB files)
    DRAT     text: one step per clause, ended by 0; `d` before the literals deletes; `c` comments.
             binary: each step is `a` (0x61) or `d` (0x64), then literals as variable-length
             unsigned integers (7 bits a byte, high bit = more; value 2*var + negated), then 0x00.
             A file with a NUL byte, or starting with `a`, is binary (text never has either).
    LRAT     text: `id lits 0 hints 0` adds a lemma (a negative hint -j opens the RAT hints of
             candidate clause j), `id d ids 0` deletes clauses; the CNF's clauses are ids 1..C.

Bad input raises InputError naming the file, the line and the problem. Tokenising and the proof
grammars are numba kernels over the file's bytes (they also run as plain Python under
NUMBA_DISABLE_JIT=1); NumPy assembles the arrays.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from ..core.inputs import open_regular
from ..core.result import InputError

MAX_VAR = (1 << 30) - 1          # literal codes fit an int32
UNKNOWN_ID = -1                  # an LRAT hint naming no clause of the file
RAT_UNKNOWN = -(1 << 62)         # a RAT marker (-j) naming no clause of the file

# tokeniser / grammar error codes -> messages
_ERRORS = {
    1: "unexpected character {ch!r}",
    2: "malformed number",
    3: "number too large",
    4: "'d' must start a step",
    5: "last step not terminated by 0 (truncated file?)",
    6: "a step must start with 'a' or 'd', found byte {ch:#04x}",
    7: "literal 0 or variable above 2^30 - 1",
    8: "a clause id must be a positive integer",
    9: "'d' inside a clause or its hints",
    10: "a deleted clause id must be positive",
}


@dataclass
class Clauses:
    """A clause arena: sorted, duplicate-free int32 codes; pivot = first literal as written."""

    lits: np.ndarray     # int32 codes 2*v + neg
    beg: np.ndarray      # int64, len n+1
    pivot: np.ndarray    # int32 code of the first literal as written, -1 for the empty clause
    taut: np.ndarray     # bool: holds x and -x
    where: np.ndarray    # int64 line (byte offset for binary DRAT) of each clause

    def __len__(self) -> int:
        return len(self.beg) - 1

    def clause(self, i: int) -> list[int]:
        """Clause i as signed DIMACS literals, pivot first."""
        return decode(self.lits[self.beg[i]:self.beg[i + 1]], int(self.pivot[i]))


@dataclass
class Cnf:
    """A parsed DIMACS file: header counts and its clauses (ids 1..len in file order)."""

    path: Path
    nvars: int
    clauses: Clauses


@dataclass
class Drat:
    """A parsed DRAT/DRUP proof: one clause per step, `delete` marks deletion steps."""

    path: Path
    binary: bool
    steps: Clauses
    delete: np.ndarray   # bool per step
    maxvar: int


@dataclass
class Lrat:
    """A parsed LRAT proof. Step s adds clause `ids[s]` (steps.clause(s), hints hints[hbeg[s]:
    hbeg[s+1]]) or, if `delete[s]`, deletes the ids in that hint range. `hints` is raw (file ids)."""

    path: Path
    steps: Clauses
    delete: np.ndarray   # bool per step
    ids: np.ndarray      # int64 id of each step's line
    hints: np.ndarray    # int64 raw hint ids (negative: RAT candidate markers)
    hbeg: np.ndarray     # int64, len steps+1
    maxvar: int


def decode(codes, pivot: int = -1) -> list[int]:
    """Signed DIMACS literals of int codes, `pivot` (a code) moved first."""
    out = [(-(int(c) >> 1) if c & 1 else int(c) >> 1) for c in codes]
    if pivot >= 0:
        p = -(pivot >> 1) if pivot & 1 else pivot >> 1
        out.remove(p)
        out.insert(0, p)
    return out


def sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(open_regular(path), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read(path: str | Path) -> np.ndarray:
    """The file's bytes: a regular file only (a FIFO, device or socket is refused by name;
    proofs have no size limit but the memory's)."""
    try:
        with open(open_regular(path), "rb") as f:
            return np.fromfile(f, dtype=np.uint8)
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", file=path) from None


# ---- kernels ----------------------------------------------------------------------------------
@njit(cache=True)
def _tokenize(buf, pos, line, dimacs, fill, val, kind, where):
    """Integers and `d` tokens of a text file from byte `pos` (at line `line`): comment lines
    skipped, `%` ends a DIMACS file. With `fill`, writes value/kind (0 int, 1 'd')/line of each.
    Returns (tokens, error code, error line, error byte)."""
    n = buf.shape[0]
    nt = 0
    start = True  # at a line's first non-blank character
    while pos < n:
        ch = buf[pos]
        if ch == 10:
            line += 1
            pos += 1
            start = True
            continue
        if ch == 32 or ch == 9 or ch == 13 or ch == 11 or ch == 12:
            pos += 1
            continue
        if start and ch == 99:  # 'c': a comment line
            while pos < n and buf[pos] != 10:
                pos += 1
            continue
        if start and dimacs and ch == 37:  # '%': end of a SATLIB file
            break
        start = False
        if ch == 100:  # 'd'
            if pos + 1 < n and not (buf[pos + 1] == 32 or buf[pos + 1] == 9 or buf[pos + 1] == 10
                                    or buf[pos + 1] == 13):
                return nt, 1, line, np.int64(ch)
            if fill:
                val[nt] = 0
                kind[nt] = 1
                where[nt] = line
            nt += 1
            pos += 1
            continue
        if ch == 45 or (48 <= ch <= 57):
            neg = ch == 45
            if neg:
                pos += 1
            x = 0
            digits = 0
            while pos < n and 48 <= buf[pos] <= 57:
                if digits >= 18:
                    return nt, 3, line, np.int64(buf[pos])
                x = x * 10 + (np.int64(buf[pos]) - 48)
                digits += 1
                pos += 1
            if digits == 0 or (pos < n and not (buf[pos] == 32 or buf[pos] == 9 or buf[pos] == 10
                                                or buf[pos] == 13)):
                return nt, 2, line, np.int64(buf[pos]) if pos < n else np.int64(0)
            if fill:
                val[nt] = -x if neg else x
                kind[nt] = 0
                where[nt] = line
            nt += 1
            continue
        return nt, 1, line, np.int64(ch)
    return nt, 0, line, np.int64(0)


@njit(cache=True)
def _drat_steps(val, kind, where, nt, nsteps, nlits):
    """Text DRAT tokens (`nsteps` zeros, `nlits` other integers) -> (signed literals, step
    begins, delete flags, step lines, error, error line). Each step is `[d] lits 0`."""
    lits = np.empty(nlits, np.int64)
    beg = np.empty(nsteps + 1, np.int64)
    dele = np.zeros(nsteps + 1, np.bool_)
    wh = np.empty(nsteps + 1, np.int64)
    nl = 0
    ns = 0
    fresh = True
    for t in range(nt):
        if fresh:
            beg[ns] = nl
            wh[ns] = where[t]
            dele[ns] = False
            fresh = False
            if kind[t] == 1:
                dele[ns] = True
                continue
        if kind[t] == 1:
            return lits[:0], beg[:1], dele[:0], wh[:0], 4, where[t]
        x = val[t]
        if x == 0:
            ns += 1
            fresh = True
        else:
            if x > 1073741823 or x < -1073741823:
                return lits[:0], beg[:1], dele[:0], wh[:0], 7, where[t]
            lits[nl] = x
            nl += 1
    if not fresh:
        return lits[:0], beg[:1], dele[:0], wh[:0], 5, wh[ns]
    beg[ns] = nl
    return lits[:nl], beg[:ns + 1], dele[:ns], wh[:ns], 0, 0


@njit(cache=True)
def _drat_binary(buf, fill, nsteps, nlits):
    """Binary DRAT bytes -> (signed literals, step begins, delete flags, step byte offsets, error,
    error offset, error byte). Without `fill` only counts: the first two results are then empty
    and their sizes come back as (steps, literals) in place of (error offset, error byte)."""
    n = buf.shape[0]
    lits = np.empty(nlits if fill else 0, np.int64)
    beg = np.empty(nsteps + 1 if fill else 1, np.int64)
    dele = np.zeros(nsteps + 1 if fill else 1, np.bool_)
    wh = np.empty(nsteps + 1 if fill else 1, np.int64)
    nl = 0
    ns = 0
    pos = 0
    while pos < n:
        ch = buf[pos]
        if ch != 97 and ch != 100:
            return lits[:0], beg[:1], dele[:0], wh[:0], 6, pos, np.int64(ch)
        start = pos
        if fill:
            beg[ns] = nl
            wh[ns] = pos
            dele[ns] = ch == 100
        pos += 1
        done = False
        while pos < n:
            x = 0
            shift = 0
            ended = False
            while pos < n:
                b = buf[pos]
                pos += 1
                if shift > 56:
                    return lits[:0], beg[:1], dele[:0], wh[:0], 3, start, 0
                x |= (np.int64(b) & 127) << shift
                shift += 7
                if b < 128:
                    ended = True
                    break
            if not ended:
                return lits[:0], beg[:1], dele[:0], wh[:0], 5, start, 0
            if x == 0:
                done = True
                break
            v = x >> 1
            if v == 0 or v > 1073741823:
                return lits[:0], beg[:1], dele[:0], wh[:0], 7, start, 0
            if fill:
                lits[nl] = -v if x & 1 else v
            nl += 1
        if not done:
            return lits[:0], beg[:1], dele[:0], wh[:0], 5, start, 0
        ns += 1
    if not fill:
        return lits, beg, dele, wh, 0, ns, nl
    beg[ns] = nl
    return lits[:nl], beg[:ns + 1], dele[:ns], wh[:ns], 0, 0, 0


@njit(cache=True)
def _lrat_steps(val, kind, where, nt, nsteps):
    """LRAT tokens -> (ids, delete flags, lines, lits, lit begins, hints, hint begins, error,
    error line). Steps (at most `nsteps`): `id lits 0 hints 0` or `id d ids 0`."""
    ids = np.empty(nsteps + 1, np.int64)
    dele = np.zeros(nsteps + 1, np.bool_)
    wh = np.empty(nsteps + 1, np.int64)
    lits = np.empty(nt, np.int64)
    lbeg = np.empty(nsteps + 1, np.int64)
    hints = np.empty(nt, np.int64)
    hbeg = np.empty(nsteps + 1, np.int64)
    nl = 0
    nh = 0
    ns = 0
    t = 0
    while t < nt:
        if kind[t] == 1 or val[t] <= 0:
            return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 8, where[t]
        ids[ns] = val[t]
        wh[ns] = where[t]
        lbeg[ns] = nl
        hbeg[ns] = nh
        t += 1
        if t < nt and kind[t] == 1:  # deletion: ids until 0
            dele[ns] = True
            t += 1
            closed = False
            while t < nt:
                if kind[t] == 1:
                    return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 9, where[t]
                x = val[t]
                t += 1
                if x == 0:
                    closed = True
                    break
                if x < 0:
                    return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 10, where[t - 1]
                hints[nh] = x
                nh += 1
        else:
            dele[ns] = False
            closed = False
            while t < nt:  # literals until 0
                if kind[t] == 1:
                    return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 9, where[t]
                x = val[t]
                t += 1
                if x == 0:
                    closed = True
                    break
                if x > 1073741823 or x < -1073741823:
                    return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 7, where[t - 1]
                lits[nl] = x
                nl += 1
            if closed:
                closed = False
                while t < nt:  # hints until 0
                    if kind[t] == 1:
                        return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 9, where[t]
                    x = val[t]
                    t += 1
                    if x == 0:
                        closed = True
                        break
                    hints[nh] = x
                    nh += 1
        if not closed:
            return ids[:0], dele[:0], wh[:0], lits[:0], lbeg[:1], hints[:0], hbeg[:1], 5, wh[ns]
        ns += 1
    lbeg[ns] = nl
    hbeg[ns] = nh
    return ids[:ns], dele[:ns], wh[:ns], lits[:nl], lbeg[:ns + 1], hints[:nh], hbeg[:ns + 1], 0, 0


@njit(cache=True)
def _sift(a, root, n):
    """Move a[root] down the max-heap a[:n] to its place."""
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and a[child] < a[child + 1]:
            child += 1
        if a[root] >= a[child]:
            return
        a[root], a[child] = a[child], a[root]
        root = child


@njit(cache=True)
def _heapsort(a):
    """Sort `a` in place, ascending (a heapsort: O(n log n) on any clause, and a few lines to
    compile where NumPy's sort costs numba 1.7 s)."""
    n = a.shape[0]
    for root in range(n // 2 - 1, -1, -1):
        _sift(a, root, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, np.int64(0), end)


@njit(cache=True)
def _normalize(signed, beg):
    """Signed literals per clause -> (int32 codes sorted and duplicate-free, new begins, pivot
    codes, tautology flags, largest variable)."""
    n = beg.shape[0] - 1
    codes = np.empty(signed.shape[0], np.int32)
    nbeg = np.empty(n + 1, np.int64)
    pivot = np.full(n, -1, np.int32)
    taut = np.zeros(n, np.bool_)
    maxvar = 0
    out = 0
    for i in range(n):
        nbeg[i] = out
        b = beg[i]
        e = beg[i + 1]
        if e == b:
            continue
        seg = np.empty(e - b, np.int32)
        for k in range(b, e):
            x = signed[k]
            v = -x if x < 0 else x
            if v > maxvar:
                maxvar = v
            seg[k - b] = 2 * v + (1 if x < 0 else 0)
        pivot[i] = seg[0]
        _heapsort(seg)
        prev = -1
        for k in range(e - b):
            c = seg[k]
            if c == prev:
                continue
            if prev >= 0 and (c >> 1) == (prev >> 1):
                taut[i] = True
            codes[out] = c
            out += 1
            prev = c
    nbeg[n] = out
    return codes[:out], nbeg, pivot, taut, maxvar


# ---- front ends ------------------------------------------------------------------------------
def _tokens(buf: np.ndarray, pos: int, line: int, dimacs: bool, path) -> tuple:
    dummy64 = np.empty(0, np.int64)
    dummy8 = np.empty(0, np.int8)
    nt, err, eline, ch = _tokenize(buf, pos, line, dimacs, False, dummy64, dummy8, dummy64)
    if err:
        raise InputError(_ERRORS[err].format(ch=chr(ch) if 32 <= ch < 127 else ch), file=path,
                         line=int(eline))
    val = np.empty(nt, np.int64)
    kind = np.empty(nt, np.int8)
    where = np.empty(nt, np.int64)
    _tokenize(buf, pos, line, dimacs, True, val, kind, where)
    return val, kind, where


def _clauses(signed, beg, where) -> tuple[Clauses, int]:
    codes, nbeg, pivot, taut, maxvar = _normalize(signed, beg)
    return Clauses(codes, nbeg, pivot, taut, np.asarray(where, np.int64)), int(maxvar)


def parse_cnf(path: str | Path) -> Cnf:
    """A DIMACS CNF file; InputError (file, line, problem) on anything malformed."""
    path = Path(path)
    buf = _read(path)
    # the header: first line that is neither blank nor a comment
    pos, line = 0, 1
    n = len(buf)
    raw = buf.tobytes()
    while True:
        if pos >= n:
            raise InputError("no 'p cnf <variables> <clauses>' header", file=path, line=line)
        end = raw.find(b"\n", pos)
        end = n if end < 0 else end
        text = raw[pos:end].decode("latin-1").strip()
        if text and not text.startswith("c"):
            parts = text.split()
            if (len(parts) != 4 or parts[:2] != ["p", "cnf"] or not parts[2].isdigit()
                    or not parts[3].isdigit()):
                raise InputError(f"expected the header 'p cnf <variables> <clauses>', found {text[:60]!r}",
                                 file=path, line=line)
            nvars, ncls = int(parts[2]), int(parts[3])
            if nvars > MAX_VAR:
                raise InputError(f"{nvars} variables: at most {MAX_VAR} supported", file=path, line=line)
            pos, line = end + 1, line + 1
            break
        pos, line = end + 1, line + 1
    val, kind, where = _tokens(buf, pos, line, True, path)
    if np.any(kind != 0):
        bad = int(np.flatnonzero(kind != 0)[0])
        raise InputError("unexpected 'd' in a CNF", file=path, line=int(where[bad]))
    zeros = np.flatnonzero(val == 0)
    if len(val) and (len(zeros) == 0 or zeros[-1] != len(val) - 1):
        last = int(zeros[-1]) + 1 if len(zeros) else 0
        raise InputError("last clause not terminated by 0", file=path, line=int(where[last]))
    if len(zeros) != ncls:
        raise InputError(f"the header announces {ncls} clauses, the file has {len(zeros)}",
                         file=path, line=int(where[-1]) if len(where) else line)
    big = np.flatnonzero(np.abs(val) > nvars)
    if len(big):
        t = int(big[0])
        raise InputError(f"literal {int(val[t])} exceeds the header's {nvars} variables", file=path,
                         line=int(where[t]))
    starts = np.concatenate(([0], zeros[:-1] + 1)) if len(zeros) else np.zeros(0, np.int64)
    keep = val != 0
    signed = val[keep]
    # clause i's literals: tokens starts[i]..zeros[i]-1; positions in `signed` = token - i
    beg = np.concatenate((starts - np.arange(len(starts)), [len(signed)])).astype(np.int64)
    clauses, _ = _clauses(signed, beg, where[starts] if len(starts) else np.zeros(0, np.int64))
    return Cnf(path, nvars, clauses)


def is_binary(buf: np.ndarray) -> bool:
    """drat-trim's question, answered exactly: text DRAT never has a NUL byte nor starts with 'a'."""
    return bool(len(buf) > 0 and (buf[0] == 97 or np.any(buf == 0)))


def parse_drat(path: str | Path, binary: bool | None = None) -> Drat:
    """A DRAT (or DRUP) proof, text or binary (detected unless `binary` is given)."""
    path = Path(path)
    buf = _read(path)
    binary = is_binary(buf) if binary is None else bool(binary)
    if binary:
        _, _, _, _, err, off, ch = _drat_binary(buf, False, 0, 0)
        if not err:
            signed, beg, dele, wh, err, off, ch = _drat_binary(buf, True, off, ch)
        if err:
            raise InputError(f"binary DRAT, byte offset {int(off)}: " + _ERRORS[err].format(ch=int(ch)),
                             file=path)
    else:
        val, kind, where = _tokens(buf, 0, 1, False, path)
        zeros = int(np.count_nonzero((val == 0) & (kind == 0)))
        signed, beg, dele, wh, err, eline = _drat_steps(val, kind, where, len(val), zeros,
                                                        len(val) - zeros)
        del val, kind, where
        if err:
            raise InputError(_ERRORS[err], file=path, line=int(eline))
    steps, maxvar = _clauses(signed, beg, wh)
    return Drat(path, binary, steps, dele.astype(bool), maxvar)


def parse_lrat(path: str | Path) -> Lrat:
    """An LRAT proof in text."""
    path = Path(path)
    buf = _read(path)
    if is_binary(buf):
        raise InputError("binary LRAT is not supported (text LRAT only)", file=path)
    val, kind, where = _tokens(buf, 0, 1, False, path)
    zeros = int(np.count_nonzero((val == 0) & (kind == 0)))
    ids, dele, wh, signed, lbeg, hints, hbeg, err, eline = _lrat_steps(val, kind, where, len(val),
                                                                       zeros)
    del val, kind, where
    if err:
        raise InputError(_ERRORS[err], file=path, line=int(eline))
    steps, maxvar = _clauses(signed, lbeg, wh)
    return Lrat(path, steps, dele.astype(bool), ids, hints, hbeg, maxvar)
