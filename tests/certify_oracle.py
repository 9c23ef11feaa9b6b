"""Test oracles for the proof checker, written independently of it: plain-Python clause lists,
naive unit propagation (no watches), brute-force satisfiability, a naive LRAT checker, and proof
writers/readers (text and binary DRAT) that share no code with puzzlesat.certify."""
from __future__ import annotations

import itertools
from pathlib import Path

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
