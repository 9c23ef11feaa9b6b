"""Shared test helpers that are neither oracles nor strategies: instance files and stores."""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path
# ---- campaigns -------------------------------------------------------------------------------
def boards(folder: Path, n: int, seed: int = 13) -> list[Path]:
    """n small sliding boards (2x3 and 3x3), each a random walk of 4-8 moves from the goal."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        rows, cols = (2, 3) if i % 2 else (3, 3)
        s, b, prev = list(range(1, rows * cols)) + [0], rows * cols - 1, None
        for _ in range(4 + i % 5):
            r, c = divmod(b, cols)
            nb = [(r + dr) * cols + c + dc for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                  if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr) * cols + c + dc != prev]
            nxt = rng.choice(nb)
            s[b], s[nxt] = s[nxt], 0
            prev, b = b, nxt
        p = folder / f"s{i:02d}.toml"
        p.write_text(f'kind = "sliding"\nrows = {rows}\ncols = {cols}\nstart = {s}\n')
        out.append(p)
    return out


def spec(folder: Path, text: str, name: str = "campaign.toml") -> Path:
    p = folder / name
    p.write_text(text)
    return p


def rows(db: Path) -> list[dict]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM runs")]
    finally:
        con.close()


# ---- results ------------------------------------------------------------------------------------
def proved_count(r) -> int:
    """The count a result proved: status OPTIMAL (the count) or INFEASIBLE (0); any other status
    (a limit, an error) fails the test, so an unfinished run never passes as a count of 0."""
    from puzzlesat.core.result import Status
    assert r.status in (Status.OPTIMAL, Status.INFEASIBLE), (r.engine, r.status, r.reason)
    assert r.count == (0 if r.status is Status.INFEASIBLE else r.count) and r.count is not None
    return r.count
