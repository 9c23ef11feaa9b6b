"""Move pruning for sliding-tile IDA*: an automaton over the blank's moves that rejects every move
sequence some shorter or lexicographically earlier sequence replaces (Taylor & Korf, "Pruning
duplicate nodes in depth-first search", AAAI 1993; Clausecker's `cmd/genloops` + `compilefsm`).

- Paths: a path is its start cell and the cells the blank enters, in order. Paths are ordered
  shortlex (length first, then cell by cell): replacing a piece of a path by a smaller one with
  the same effect gives a smaller path, so the smallest optimal solution contains no rejected
  piece and survives every prune (one optimal path is kept, not all: a count must not prune).
- Rejected pieces (`rejected`): from each start cell a breadth-first search over positions
  (every tile distinct), children in increasing cell order, so each position's first path is its
  smallest; a move that reaches a position seen before gives a rejected piece (that path plus
  the move) unless its first move equals the earlier path's first move (then a later start cell
  finds the shorter piece without the common first move). `limit` bounds the pieces' length.
- Automaton (`automaton`): Aho-Corasick over the pieces (a state is a trie node: a start cell
  and the cells entered since; its failure state the longest proper suffix that is a trie
  node); `nxt[state, e]` is the state after the blank moves to its e-th neighbour (cells in
  increasing order), -1 when that completes a rejected piece; `start[cell]` the empty path there.
  `simple` (limit 2) only rejects undoing the previous move.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
from numba import njit

from ...core.files import write_atomic
from ...core.result import InputError
from .tables import sorted_tables

FORMAT = "puzzlesat-sliding-fsm"
VERSION = 1


@njit(cache=True)
def _hash(lo, hi):
    h = (lo * 0x9E3779B97F4A7C15) ^ (hi * 0xC2B2AE3D27D4EB4F)
    return h ^ (h >> 29)


@njit(cache=True)
def _grown(a, size):
    b = np.zeros(size, a.dtype)
    b[:a.size] = a
    return b


@njit(cache=True)
def _bfs_pieces(s, n, limit, nbr, nnbr, max_nodes):
    """Rejected pieces from start cell s (see the module docstring), as (node, cell) pairs: the
    piece is node's path plus the blank entering `cell`; plus the BFS tree (parent, cell) to read
    paths back. Positions are tile cells, 5 bits each, tiles 1..n-1 in two words (n <= 25)."""
    size = 1 << 12
    cap = 2 * size
    keys_lo = np.zeros(cap, np.uint64)
    keys_hi = np.zeros(cap, np.uint64)
    slot = np.full(cap, -1, np.int64)
    lo_a = np.zeros(size, np.uint64)
    hi_a = np.zeros(size, np.uint64)
    parent = np.full(size, -1, np.int64)
    cell = np.zeros(size, np.int64)
    first = np.full(size, -1, np.int64)
    pieces_node = np.zeros(1024, np.int64)
    pieces_cell = np.zeros(1024, np.int64)
    npieces = 0
    # the start: tile t on cell t for t != s, tile s's place taken by the blank (tile s on 0)
    pos = np.zeros(n, np.int64)
    for t in range(1, n):
        pos[t] = t
    pos[0] = s
    if s != 0:
        pos[s] = 0  # tile s stands on cell 0 (tiles stay distinct; the labels do not matter)
    lo = np.uint64(0)
    hi = np.uint64(0)
    for t in range(1, n):
        if t <= 12:
            lo |= np.uint64(pos[t]) << np.uint64(5 * (t - 1))
        else:
            hi |= np.uint64(pos[t]) << np.uint64(5 * (t - 13))
    nodes = 1
    lo_a[0] = lo
    hi_a[0] = hi
    cell[0] = s
    h = _hash(lo, hi) & np.uint64(cap - 1)
    keys_lo[h] = lo
    keys_hi[h] = hi
    slot[h] = 0
    board = np.zeros(n, np.int64)
    begin = 0
    end = 1
    overflow = False
    for d in range(limit):
        for i in range(begin, end):
            lo = lo_a[i]
            hi = hi_a[i]
            b = cell[i]
            for x in range(n):
                board[x] = 0
            for t in range(1, n):
                if t <= 12:
                    c = (lo >> np.uint64(5 * (t - 1))) & np.uint64(31)
                else:
                    c = (hi >> np.uint64(5 * (t - 13))) & np.uint64(31)
                board[c] = t
            for e in range(nnbr[b]):
                c = nbr[b, e]
                t = board[c]
                # tile t: c -> b
                if t <= 12:
                    sh = np.uint64(5 * (t - 1))
                    lo2 = (lo & ~(np.uint64(31) << sh)) | (np.uint64(b) << sh)
                    hi2 = hi
                else:
                    sh = np.uint64(5 * (t - 13))
                    hi2 = (hi & ~(np.uint64(31) << sh)) | (np.uint64(b) << sh)
                    lo2 = lo
                h = _hash(lo2, hi2) & np.uint64(cap - 1)
                found = -1
                while slot[h] >= 0:
                    if keys_lo[h] == lo2 and keys_hi[h] == hi2:
                        found = slot[h]
                        break
                    h = (h + np.uint64(1)) & np.uint64(cap - 1)
                f1 = c if d == 0 else first[i]
                if found >= 0:
                    if first[found] != f1:
                        if npieces == pieces_node.size:
                            pn = np.zeros(npieces * 2, np.int64)
                            pc = np.zeros(npieces * 2, np.int64)
                            pn[:npieces] = pieces_node
                            pc[:npieces] = pieces_cell
                            pieces_node = pn
                            pieces_cell = pc
                        pieces_node[npieces] = i
                        pieces_cell[npieces] = c
                        npieces += 1
                    continue
                if nodes == max_nodes:
                    overflow = True
                    continue
                if nodes == size:  # grow the node arrays and the table (rehash)
                    size *= 2
                    lo_a = _grown(lo_a, size)
                    hi_a = _grown(hi_a, size)
                    parent = _grown(parent, size)
                    cell = _grown(cell, size)
                    first = _grown(first, size)
                    cap = 2 * size
                    keys_lo = np.zeros(cap, np.uint64)
                    keys_hi = np.zeros(cap, np.uint64)
                    slot = np.full(cap, -1, np.int64)
                    for j in range(nodes):
                        hh = _hash(lo_a[j], hi_a[j]) & np.uint64(cap - 1)
                        while slot[hh] >= 0:
                            hh = (hh + np.uint64(1)) & np.uint64(cap - 1)
                        keys_lo[hh] = lo_a[j]
                        keys_hi[hh] = hi_a[j]
                        slot[hh] = j
                    h = _hash(lo2, hi2) & np.uint64(cap - 1)
                    while slot[h] >= 0:
                        h = (h + np.uint64(1)) & np.uint64(cap - 1)
                keys_lo[h] = lo2
                keys_hi[h] = hi2
                slot[h] = nodes
                lo_a[nodes] = lo2
                hi_a[nodes] = hi2
                parent[nodes] = i
                cell[nodes] = c
                first[nodes] = f1
                nodes += 1
        begin = end
        end = nodes
    return pieces_node[:npieces], pieces_cell[:npieces], parent[:nodes], cell[:nodes], overflow


def rejected(rows: int, cols: int, limit: int, max_nodes: int = 60_000_000) -> list[tuple[int, ...]]:
    """Every rejected piece of at most `limit` moves (see the module docstring), as cell tuples
    (start cell first)."""
    n = rows * cols
    if n > 25:
        raise ValueError("move pruning automata: boards of at most 25 cells")
    nbr, nnbr = sorted_tables(rows, cols)
    out = []
    for s in range(n):
        pn, pc, parent, cell, overflow = _bfs_pieces(s, n, limit, nbr, nnbr, max_nodes)
        if overflow:
            raise MemoryError(f"move pruning automaton: more than {max_nodes} positions within "
                              f"{limit} moves of cell {s}")
        for i, c in zip(pn.tolist(), pc.tolist()):
            path = [c]
            x = i
            while x >= 0:
                path.append(int(cell[x]))
                x = int(parent[x])
            out.append(tuple(reversed(path)))
    return out


def automaton(rows: int, cols: int, pieces: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """(nxt, start): the Aho-Corasick automaton rejecting every piece (see the module docstring)."""
    n = rows * cols
    nbr, nnbr = sorted_tables(rows, cols)
    # trie: node -> {cell: child}; node's blank cell
    children: list[dict] = []
    where: list[int] = []
    terminal: list[bool] = []
    roots = []
    for c in range(n):
        roots.append(len(children))
        children.append({})
        where.append(c)
        terminal.append(False)
    for p in pieces:
        v = roots[p[0]]
        for c in p[1:]:
            w = children[v].get(c)
            if w is None:
                w = len(children)
                children[v][c] = w
                children.append({})
                where.append(c)
                terminal.append(False)
            v = w
        terminal[v] = True
    m = len(children)
    fail = [0] * m
    nxt = np.full((m, 4), -1, np.int32)
    order = []
    for c in range(n):
        fail[roots[c]] = roots[c]
        order.append(roots[c])
    # breadth-first over the trie: a node's goto needs its failure's goto
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        b = where[v]
        for e in range(int(nnbr[b])):
            c = int(nbr[b, e])
            w = children[v].get(c)
            if w is not None:
                if v == roots[b]:
                    fail[w] = roots[c]
                else:
                    fail[w] = int(nxt[fail[v], e]) if nxt[fail[v], e] >= 0 else _goto_fail(
                        fail[v], e, c, nxt, children, roots, fail, where, nbr, nnbr)
                terminal[w] = terminal[w] or terminal[fail[w]]
                nxt[v, e] = w
                order.append(w)
            elif v == roots[b]:
                nxt[v, e] = roots[c]
            else:
                nxt[v, e] = nxt[fail[v], e] if nxt[fail[v], e] >= 0 else _goto_fail(
                    fail[v], e, c, nxt, children, roots, fail, where, nbr, nnbr)
    # moves completing a rejected piece go to -1
    term = np.array(terminal, bool)
    bad = term[np.where(nxt >= 0, nxt, 0)] & (nxt >= 0)
    nxt[bad] = -1
    return nxt, np.array(roots, np.int64)


def _goto_fail(v, e, c, nxt, children, roots, fail, where, nbr, nnbr):
    """goto(v, move to c) when v's table row still says -1 (v terminal: its row was cut); walks
    the failure chain (terminal states are never entered by a search, so any answer is fine)."""
    while True:
        w = children[v].get(c)
        if w is not None:
            return w
        if v == roots[where[v]]:
            return roots[c]
        v = fail[v]


_MEMO: dict = {}


def cache_path(folder: Path, rows: int, cols: int, limit: int) -> Path:
    return Path(folder) / f"fsm-{rows}x{cols}-loops{limit}-v{VERSION}.bin"


def _read(f: Path, rows: int, cols: int, limit: int):
    """The cached automaton in file f, or None when missing, damaged or of another version."""
    try:
        raw = f.read_bytes()
        line, body = raw.split(b"\n", 1)
        head = json.loads(line.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    want = {"format": FORMAT, "version": VERSION, "rows": rows, "cols": cols, "limit": limit}
    if not isinstance(head, dict) or any(head.get(k) != v for k, v in want.items()):
        return None
    if hashlib.blake2b(body, digest_size=16).hexdigest() != head.get("blake2b"):
        return None
    n, m = rows * cols, head.get("states", -1)
    if len(body) != m * 16 + n * 8:
        return None
    nxt = np.frombuffer(body, np.int32, m * 4).reshape(m, 4).copy()
    start = np.frombuffer(body, np.int64, n, offset=m * 16).copy()
    return nxt, start


def _write(f: Path, rows: int, cols: int, limit: int, nxt: np.ndarray, start: np.ndarray, seconds: float,
           pieces: int) -> None:
    body = nxt.astype(np.int32).tobytes() + start.astype(np.int64).tobytes()
    head = {"format": FORMAT, "version": VERSION, "rows": rows, "cols": cols, "limit": limit,
            "states": int(nxt.shape[0]), "pieces": pieces, "build_seconds": round(seconds, 2),
            "blake2b": hashlib.blake2b(body, digest_size=16).hexdigest()}
    f.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(f, (json.dumps(head) + "\n").encode("utf-8") + body, "move-pruning automaton")


def loops(rows: int, cols: int, limit: int, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """The automaton rejecting every rejected piece of at most `limit` moves: from memory, from
    the disk cache in `folder` (beside the pattern databases, checked like them), or built and
    cached."""
    key = (rows, cols, limit, str(folder))
    if key not in _MEMO:
        f = cache_path(folder, rows, cols, limit)
        got = _read(f, rows, cols, limit)
        if got is None:
            t0 = time.perf_counter()
            pieces = rejected(rows, cols, limit)
            got = automaton(rows, cols, pieces)
            try:
                _write(f, rows, cols, limit, got[0], got[1], time.perf_counter() - t0, len(pieces))
            except (OSError, InputError):   # a read-only or full cache: used from memory, not kept
                pass
        _MEMO[key] = got
    return _MEMO[key]
