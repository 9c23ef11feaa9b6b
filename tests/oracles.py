"""Brute-force oracles shared by the tests: each recomputes an answer from the rules alone,
sharing no code with the engines (only the instance data and, where said, the checker)."""
from __future__ import annotations

import itertools
import random
from collections import deque
from pathlib import Path

import numpy as np

from puzzlesat.puzzles import peg
from puzzlesat.puzzles.sliding import Sliding, default_goal
# ---- formulations ---------------------------------------------------------------------------------
def constraint_holds(c, val) -> bool:
    """Whether formulation constraint `c` (models/formulation.py) holds under `val` (key -> 0/1 or
    an integer), by its definition."""
    from puzzlesat.models.formulation import AtLeast, AtMost, AtMostOne, Clause, ExactlyOne, Xor
    if isinstance(c, Clause):
        return any(val[k] == p for k, p in c.lits)
    if not hasattr(c, "keys"):  # Linear, half-reified by its enforce literals
        if not all(val[k] == p for k, p in c.enforce):
            return True
        return c.lo <= sum(co * val[k] for co, k in c.terms) <= c.hi
    ones = sum(val[k] for k in c.keys)
    if isinstance(c, ExactlyOne):
        return ones == 1
    if isinstance(c, AtMostOne):
        return ones <= 1
    if isinstance(c, AtMost):
        return ones <= c.k
    if isinstance(c, AtLeast):
        return ones >= c.k
    assert isinstance(c, Xor)
    return ones % 2 == c.parity


# ---- peg ---------------------------------------------------------------------------------------
def peg_oracle(inst: peg.PegInstance) -> tuple[int | None, int]:
    """(minimum moves, number of optimal jump sequences) by plain exhaustive search."""
    lines = [(a, b, c) for a in range(inst.board.n) for (b, c) in inst.board.jump_table[a]]
    best, count = None, 0

    def rec(pegs, seq):
        nonlocal best, count
        if len(pegs) == (1 if inst.finish is None else len(inst.finish)):
            if inst.finish is None or pegs == inst.finish:
                m = peg.moves(seq)
                if best is None or m < best:
                    best, count = m, 1
                elif m == best:
                    count += 1
            return
        for a, b, c in lines:
            if a in pegs and b in pegs and c not in pegs:
                if not seq and inst.first_jump and (a, c) != inst.first_jump:
                    continue
                rec(pegs - {a, b} | {c}, seq + [(a, b, c)])
    rec(frozenset(inst.start), [])
    return best, count


def brute_table(b, vacates=None) -> dict:
    """{(v, f): min moves or None} for every vacate v (or those given) and finish f: plain BFS by
    moves over bitmask positions from each single-vacancy start (every prefix of a jump chain is
    one move)."""
    lines = [(1 << a, 1 << m, 1 << c, c) for a, m, c in b.lines]
    by_from: dict = {}
    for a, m, c in b.lines:
        by_from.setdefault(a, []).append((1 << a, 1 << m, 1 << c, c))
    full = (1 << b.n) - 1
    out = {}
    for v in (range(b.n) if vacates is None else vacates):
        start = full ^ (1 << v)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            d = dist[p] + 1
            stack = [(p ^ (A | M | C), c) for A, M, C, c in lines if p & A and p & M and not p & C]
            while stack:
                r, h = stack.pop()
                if r not in dist:
                    dist[r] = d
                    queue.append(r)
                for A, M, C, c in by_from.get(h, ()):
                    if r & M and not r & C:
                        stack.append((r ^ (A | M | C), c))
        for f in range(b.n):
            out[(v, f)] = dist.get(1 << f)
    return out


# ---- tiling ------------------------------------------------------------------------------------
# Published unique counts (Polyform Puzzler, D. Goodger; 3x4x5 also Bouwkamp 1981; Soma: 240
# unique, 11,520 in all), with the totals our engines find (all = Σ orbit sizes, tested below).
PUBLISHED_TILINGS = {"soma": (11520, 240), "2x3x10": (96, 12), "8x8-holes-2-5": (168, 21),
             "8x8-holes-1-6": (1504, 188), "one-sided-3x30": (184, 46), "8x8-corners": (17360, 2170),
             "3x4x5": (31520, 3940)}
# Polyform Puzzler (D. Goodger): the 8 tetracubes in boxes, (all, up to rotations and
# reflections, up to proper rotations only).
PUBLISHED_TETRACUBES = {"tetracubes-2x4x4": (11120, 695, 1390), "tetracubes-2x2x8": (1792, 112, 224)}


def rotations3():
    """The 24 proper rotations of the cube as integer matrices: the closure of the quarter turns
    about x and z (numpy)."""
    rx = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    seen = {np.eye(3, dtype=int).tobytes(): np.eye(3, dtype=int)}
    todo = [np.eye(3, dtype=int)]
    while todo:
        m = todo.pop()
        for g in (rx, rz):
            n = g @ m
            if n.tobytes() not in seen:
                seen[n.tobytes()] = n
                todo.append(n)
    return list(seen.values())


def oracle_forms(cells, one_sided=False):
    """The allowed fixed orientations: 2D all 8 (rotations only when one-sided), 3D the 24
    rotations, each translated to the origin."""
    cells = [tuple(x) for x in cells]
    if len(cells[0]) == 3:
        mats = rotations3()
    else:
        mats = [np.array(m) for m in ([[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]],
                                      [[0, 1], [-1, 0]])]
        if not one_sided:
            mats += [m @ np.array([[1, 0], [0, -1]]) for m in mats]
    out = set()
    for m in mats:
        pts = [tuple(int(v) for v in m @ np.array(x)) for x in cells]
        lo = [min(p[k] for p in pts) for k in range(len(pts[0]))]
        out.add(frozenset(tuple(a - b for a, b in zip(p, lo)) for p in pts))
    return out


class TooMany(Exception):
    """More tilings than the oracle was asked to list."""


def tiling_oracle_tilings(board, pieces, limit=None):
    """Every set of placements covering `board`, each once, as a frozenset of (name, frozenset
    of cells); pieces {name: (cells, count, one_sided)}, a count an int or a range (fewest, most
    or None: no limit). The first empty cell's covering placement decides the branch, so no
    tiling comes twice. TooMany past `limit` tilings."""
    forms = {n: oracle_forms(c, o) for n, (c, _, o) in pieces.items()}
    rng = {n: (k, k) if isinstance(k, int) else k for n, (_, k, _) in pieces.items()}
    left = {n: len(board) if hi is None else hi for n, (_, hi) in rng.items()}
    out = []

    def rec(empty, chosen):
        if not empty:
            used = {n: sum(1 for m, _ in chosen if m == n) for n in pieces}
            if any(used[n] < rng[n][0] for n in pieces):
                return
            out.append(frozenset(chosen))
            if limit is not None and len(out) > limit:
                raise TooMany
            return
        first = min(empty)
        for n in left:
            if not left[n]:
                continue
            for f in forms[n]:
                anchor = min(f)
                cells = frozenset(tuple(a - b + c for a, b, c in zip(x, anchor, first)) for x in f)
                if cells <= empty:
                    left[n] -= 1
                    rec(empty - cells, chosen + [(n, cells)])
                    left[n] += 1
    rec(frozenset(tuple(x) for x in board), [])
    return out


def tiling_oracle_count(board, pieces):
    """Count the sets of placements covering `board`; pieces {name: (cells, count, one_sided)}."""
    return len(tiling_oracle_tilings(board, pieces))


def _orthogonal(dim):
    """Every integer orthogonal dim x dim matrix (signed permutation matrices) with its
    determinant (numpy)."""
    out = []
    for perm in itertools.permutations(range(dim)):
        for signs in itertools.product((1, -1), repeat=dim):
            m = np.zeros((dim, dim), dtype=int)
            for i, (p, s) in enumerate(zip(perm, signs)):
                m[i, p] = s
            out.append((m, int(round(np.linalg.det(m)))))
    return out


def tiling_oracle_orbits(board, pieces, tilings, group):
    """The number of orbits of `tilings` (as `tiling_oracle_tilings` gives them) under the
    board's symmetries: the integer orthogonal maps that take the cell set onto itself after
    translating back to the origin; group "rotations": determinant +1 only; "all": the reflections
    too, when every piece's mirror image (its cells with the last coordinate negated) has the
    orientations of a piece with the same count, to which a reflection renames it."""
    board = [tuple(x) for x in board]
    dim = len(board[0])
    forms = {n: frozenset(oracle_forms(c, o)) for n, (c, _, o) in pieces.items()}
    partner = {}
    for n, (c, k, o) in pieces.items():
        mirrored = frozenset(oracle_forms([tuple(x[:-1]) + (-x[-1],) for x in c], o))
        hits = [m for m in pieces if forms[m] == mirrored and pieces[m][1] == k]
        partner[n] = hits[0] if hits else None
    closed = all(v is not None for v in partner.values())
    cellset = set(board)
    maps = []
    for m, det in _orthogonal(dim):
        if det != 1 and (group == "rotations" or not closed):
            continue
        img = {x: tuple(int(v) for v in m @ np.array(x)) for x in board}
        lo = [min(y[i] for y in img.values()) for i in range(dim)]
        img = {x: tuple(a - b for a, b in zip(y, lo)) for x, y in img.items()}
        if set(img.values()) == cellset:
            maps.append((img, (lambda n: n) if det == 1 else partner.__getitem__))
    seen = set()
    for t in tilings:
        seen.add(min(tuple(sorted((ren(n), tuple(sorted(img[x] for x in cells))) for n, cells in t))
                     for img, ren in maps))
    return len(seen)


# ---- sliding -----------------------------------------------------------------------------------
def sliding_walk(rows, cols, seed, length, goal=None):
    """A solvable position: a random walk of the blank from the goal that never steps back."""
    rng = random.Random(seed)
    goal = default_goal(rows, cols) if goal is None else tuple(goal)
    b = list(goal)
    prev = None
    for _ in range(length):  # a random walk of the blank that never steps straight back
        z = b.index(0)
        r, c = divmod(z, cols)
        opts = [y for y, ok in ((z - cols, r > 0), (z + cols, r < rows - 1), (z - 1, c > 0),
                                (z + 1, c < cols - 1)) if ok and y != prev]
        y = rng.choice(opts)
        b[z], b[y] = b[y], 0
        prev = z
    return Sliding(f"{rows}x{cols}", rows, cols, tuple(b), goal)


# ---- maze --------------------------------------------------------------------------------------
def maze_snake(W, H, keep):
    """A pre-walked path snaking through rows 0..H-3, then zig-zagging down the last two rows,
    leaving a 2 x `keep` block (and dead-end columns) free: a big grid with a tiny search."""
    assert (H - 3) % 2 == 1
    p = []
    for y in range(H - 2):
        p += [y * W + x for x in (range(W) if y % 2 == 0 else range(W - 1, -1, -1))]
    for x in range(W - keep):
        col = [(H - 2) * W + x, (H - 1) * W + x]
        p += col if x % 2 == 0 else col[::-1]
    return tuple(p)


# ---- certify: clause lists, naive unit propagation, proofs written and read independently ------
Clause = list[int]


def brute_sat(nvars: int, clauses: list[Clause]) -> bool:
    """Some assignment of variables 1..nvars satisfies every clause (2^nvars tries)."""
    for bits in itertools.product((False, True), repeat=nvars):
        if all(any(bits[abs(l) - 1] == (l > 0) for l in c) for c in clauses):
            return True
    return False


def up_conflict(clauses: list[Clause], assumed: list[int] = ()) -> bool:
    """Unit propagation from literals `assumed` (true) over `clauses` reaches a conflict."""
    true = set()
    for l in assumed:
        if -l in true:
            return True
        true.add(l)
    changed = True
    while changed:
        changed = False
        for c in clauses:
            if any(l in true for l in c):
                continue
            free = [l for l in c if -l not in true]
            if not free:
                return True
            if len(free) == 1:
                true.add(free[0])
                changed = True
    return False


def is_rup(c: Clause, db: list[Clause]) -> bool:
    """Clause c follows from db by unit propagation on its negation."""
    return up_conflict(db, [-l for l in c])


def is_rat(c: Clause, db: list[Clause]) -> bool:
    """c is RUP, or RAT on its first literal w.r.t. db (tautological candidates skipped)."""
    if is_rup(c, db):
        return True
    if not c:
        return False
    p = c[0]
    for d in db:
        if -p not in d or any(-l in d for l in d):
            continue
        res = list(dict.fromkeys(c + [l for l in d if l != -p]))
        if any(-l in res for l in res):
            continue
        if not is_rup(res, db):
            return False
    return True


def read_dimacs(path) -> tuple[int, list[Clause]]:
    nv, clauses, cur = 0, [], []
    for line in Path(path).read_text().splitlines():
        t = line.split()
        if not t or t[0] == "c":
            continue
        if t[0] == "p":
            nv = int(t[2])
            continue
        for x in map(int, t):
            if x == 0:
                clauses.append(cur)
                cur = []
            else:
                cur.append(x)
    return nv, clauses


def write_dimacs(path, nvars: int, clauses: list[Clause]) -> None:
    Path(path).write_text(f"p cnf {nvars} {len(clauses)}\n"
                          + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))


def read_drat(path) -> list[tuple[bool, Clause]]:
    """(is deletion, literals) per step of a text or binary DRAT file."""
    data = Path(path).read_bytes()
    steps = []
    if data[:1] == b"a" or b"\0" in data:
        i = 0
        while i < len(data):
            dele = data[i] == ord("d")
            i += 1
            lits = []
            while True:
                x = shift = 0
                while True:
                    b = data[i]
                    i += 1
                    x |= (b & 127) << shift
                    shift += 7
                    if b < 128:
                        break
                if x == 0:
                    break
                lits.append(-(x >> 1) if x & 1 else x >> 1)
            steps.append((dele, lits))
        return steps
    for line in data.decode().splitlines():
        t = line.split()
        if not t or t[0] == "c":
            continue
        dele = t[0] == "d"
        nums = list(map(int, t[1:] if dele else t))
        assert nums[-1] == 0
        steps.append((dele, nums[:-1]))
    return steps


def write_drat(path, steps: list[tuple[bool, Clause]], binary: bool = False) -> None:
    if not binary:
        Path(path).write_text("".join(("d " if d else "") + " ".join(map(str, c)) + (" " if c else "")
                                      + "0\n" for d, c in steps))
        return
    out = bytearray()
    for d, c in steps:
        out.append(ord("d") if d else ord("a"))
        for l in c:
            x = 2 * abs(l) + (l < 0)
            while x >= 128:
                out.append((x & 127) | 128)
                x >>= 7
            out.append(x)
        out.append(0)
    Path(path).write_bytes(bytes(out))


def live_sets(clauses: list[Clause], steps: list[tuple[bool, Clause]]):
    """For each step s: (every clause added before s, the same minus every earlier deletion).
    The checker's database before s lies between the two (it may ignore unit deletions)."""
    all_, dele = [list(c) for c in clauses], [list(c) for c in clauses]
    out = []
    for d, c in steps:
        out.append((list(all_), list(dele)))
        if d:
            key = sorted(set(c))
            for i in range(len(dele) - 1, -1, -1):
                if sorted(set(dele[i])) == key:
                    del dele[i]
                    break
        else:
            all_.append(list(c))
            dele.append(list(c))
    out.append((all_, dele))
    return out


def naive_lrat(clauses: list[Clause], text: str) -> str | None:
    """Check an LRAT proof naively; None when it derives the empty clause, else what failed."""
    db = {i + 1: list(c) for i, c in enumerate(clauses)}
    if any(not c for c in clauses):
        return None
    for ln, line in enumerate(text.splitlines(), 1):
        t = list(line.split())
        if not t or t[0] == "c":
            continue
        cid = int(t[0])
        if t[1] == "d":
            for x in t[2:-1]:
                db.pop(int(x), None)
            continue
        nums = list(map(int, t[1:]))
        z = nums.index(0)
        lits, hints = nums[:z], nums[z + 1:-1]
        if cid in db:
            return f"line {ln}: id {cid} reused"

        def run(assign: set, seq) -> bool:
            for h in seq:
                if h not in db:
                    return False
                free = [l for l in db[h] if -l not in assign]
                if not free:
                    return True
                if len(free) > 1:
                    return False
                assign.add(free[0])
            return False

        assign = {-l for l in lits}
        groups, cur = [], None
        units = []
        for h in hints:
            if h < 0:
                cur = (-h, [])
                groups.append(cur)
            elif cur is None:
                units.append(h)
            else:
                cur[1].append(h)
        if not run(assign, units):
            if not groups or not lits:
                return f"line {ln}: not RUP by its hints"
            p = lits[0]
            gmap = dict(groups)
            for did, d in db.items():
                if -p not in d or any(-l in d for l in d):
                    continue
                if any(l in assign for l in d if l != -p):
                    continue
                if did not in gmap:
                    return f"line {ln}: RAT candidate {did} missing"
                a2 = set(assign) | {-l for l in d if l != -p}
                if not run(a2, gmap[did]):
                    return f"line {ln}: RAT candidate {did} fails"
        db[cid] = lits
        if not lits:
            return None
    return "no empty clause"


# ---- CP-SAT's binary LRAT as text LRAT: the reference conversion ---------------------------------

def _varints(data: bytes):
    """Length-delimited records of ortools' recordio: (start, end) of each message."""
    pos, n = 0, len(data)
    while pos < n:
        size = shift = 0
        while True:
            if pos >= n:
                raise ValueError("truncated record length")
            b = data[pos]
            pos += 1
            size |= (b & 127) << shift
            shift += 7
            if b < 128:
                break
        if pos + size > n:
            raise ValueError("truncated record")
        yield pos, pos + size
        pos += size


def _cp_lit(i: int) -> int:
    return -((i >> 1) + 1) if i & 1 else (i >> 1) + 1


class _CpsatLrat:
    """Text LRAT from CP-SAT's binary files: the CNF's clauses are ids 1..C, every other clause
    (lemmas, and imports matching no clause) gets the next id. An imported clause is matched by
    its literals (sorted) to a live clause with the same ones (a CNF clause or an earlier lemma),
    as CP-SAT's own merger does; a deletion takes that copy out of the live ones."""

    def __init__(self, clauses, out):
        self.live: dict[tuple, list[int]] = {}   # literals -> ids of the live clauses with them
        self.key_of: dict[int, tuple] = {}
        for i, c in enumerate(clauses):
            self.add(i + 1, c)
        self.nxt = len(clauses) + 1
        self.out = out
        self.counts = {"lemmas": 0, "deletions": 0, "unmatched_imports": 0, "unknown_hints": 0,
                       "empty": False}

    def add(self, cid: int, lits) -> None:
        key = tuple(sorted(set(lits)))
        self.live.setdefault(key, []).append(cid)
        self.key_of[cid] = key

    def fresh(self) -> int:
        self.nxt += 1
        return self.nxt - 1

    def convert(self, path: Path, deletions: bool) -> None:
        """Append file `path`'s steps (its own id space) until its empty clause; `deletions`:
        write its deletions too."""
        from ortools.sat import lrat_pb2
        ids: dict[int, int] = {}
        uses: dict[int, int] = {}  # our id -> how many of this file's ids name it (imports of a
        # clause the formula has twice may share one live copy: deleted when the last one goes)

        def ref(h: int) -> str:  # an id the file never defined: an id no clause has (rejected)
            if h not in ids:
                ids[h] = self.fresh()
                self.counts["unknown_hints"] += 1
            return str(ids[h])

        data = path.read_bytes()
        step = lrat_pb2.LratProofStep()
        for a, b in _varints(data):
            step.ParseFromString(data[a:b])
            kind = step.WhichOneof("step")
            if kind == "imported_clause":
                ic = step.imported_clause
                copies = self.live.get(tuple(sorted({_cp_lit(x) for x in ic.literals})))
                if copies:
                    ids[ic.clause_id] = copies[0]
                    uses[copies[0]] = uses.get(copies[0], 0) + 1
                else:
                    ids[ic.clause_id] = self.fresh()
                    self.counts["unmatched_imports"] += 1
            elif kind == "inferred_clause":
                ic = step.inferred_clause
                new = self.fresh()
                lits = [_cp_lit(x) for x in ic.literals]
                parts = [str(new)] + [str(x) for x in lits] + ["0"]
                parts += [ref(h) for h in ic.unit_ids]
                for rat in ic.rat_infos:
                    parts.append("-" + ref(rat.resolvant_id))
                    parts += [ref(h) for h in rat.unit_ids]
                parts.append("0")
                self.out.write(" ".join(parts) + "\n")
                ids[ic.clause_id] = new
                self.add(new, lits)
                self.counts["lemmas"] += 1
                if not lits:
                    self.counts["empty"] = True
                    return
            elif kind == "deleted_clauses" and deletions:
                gone = []
                for x in step.deleted_clauses.clause_ids:
                    if x in ids:
                        g = ids.pop(x)
                        uses[g] = uses.get(g, 1) - 1
                        if uses[g] <= 0 and g not in gone:  # no other id of this file names it
                            gone.append(g)
                gone = [g for g in gone if g in self.key_of and g in self.live[self.key_of[g]]]
                for g in gone:
                    self.live[self.key_of[g]].remove(g)
                if gone:
                    self.out.write(f"{self.nxt - 1} d " + " ".join(map(str, gone)) + " 0\n")
                    self.counts["deletions"] += 1


def _has_empty(path: Path) -> tuple[bool, int]:
    """(derives the empty clause, number of lemmas) of a CP-SAT binary LRAT file."""
    from ortools.sat import lrat_pb2
    data = path.read_bytes()
    step = lrat_pb2.LratProofStep()
    n = 0
    for a, b in _varints(data):
        step.ParseFromString(data[a:b])
        if step.WhichOneof("step") == "inferred_clause":
            n += 1
            if not step.inferred_clause.literals:
                return True, n
    return False, n


def cpsat_lrat_reference(files, clauses) -> tuple[str, dict]:
    """(text LRAT, counts): the conversion of CP-SAT's binary LRAT files as plain Python over
    ortools' own protocol-buffer parser (the product's first converter, kept as the oracle of
    models/cpsat_lrat.py's kernels)."""
    import io
    f = io.StringIO()
    w = _CpsatLrat(clauses, f)
    if files:
        w.convert(files[0], deletions=False)
    if not w.counts["empty"] and len(files) > 1:
        scan = [(_has_empty(p), p) for p in files[1:]]
        (_, _), best = max(scan, key=lambda t: t[0])
        w.convert(best, deletions=True)
    return f.getvalue(), dict(w.counts)
