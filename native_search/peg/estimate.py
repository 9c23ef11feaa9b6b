"""How big a `--least` layer search will get: its first layers measured, the rest projected.

`least_by_bound` (native_search/peg/table.py) refutes "moves <= K" for every single-vacancy problem
at once with forward layers from all starts to depth A = K - E and backward layers from all single
pegs to depth E (E = `backward_depth`), pruned by the Merson bound. Before it starts a K, it asks
`estimate_least`: the search's own layers are built (in its store, so the search reuses them) until
a forward layer holds `probe` positions or the search is done; the later forward layers are then
projected by their growth ratio r_d = size_d / size_(d-1), whose logarithm shrinks geometrically,
ln r_(d+1) = q ln r_d — q measured on this board's last probed layers and on triangle9's complete
K = 15 layers (`T9_K15`, docs/peg.md); the smaller q gives the low projection, the larger the
high one. The disk a search needs is 8 bytes a position for every layer it keeps, plus the sorted
runs of its last layer while that layer is merged (2.5 times the layer, as measured on triangle9's
depth 14); its time is the successors it generates (the probed successors per expanded position,
growing by the probed factor) at the probed rate. The search is refused (`WontFit`, with the figures)
when even the low projection needs more disk than it may use: the disk limit, and the free space
of the work folder's file system plus the bytes the search's own folder already holds (a resumed
search reuses or deletes them) less `keep_free`.

An estimate is a projection, never a bound: nothing is claimed from it.

>>> from puzzlesat.puzzles.peg import board
>>> e = estimate_least(board("triangle6"), 8, probe=10**6)
>>> e.complete, e.fits, e.forward[:3]
(True, True, [5, 6, 12])
"""
from __future__ import annotations

import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...puzzles.peg import Board
from .disk import FREE_RESERVE

# triangle9, K = 15, backward depth 1: the complete forward layers (positions up to symmetry)
T9_K15 = (10, 19, 90, 760, 7691, 63411, 377705, 1771966, 7005232, 23240488, 64265645,
          152934461, 323240473, 603774064, 938227475)
SPILL = 2.5          # sorted runs of the last layer while it is merged, times the layer (triangle9)
ITEM = 8             # bytes per position in a layer file
KEEP_FREE = FREE_RESERVE  # bytes left free by default: the layer store's own reserve
PROBE = 10_000_000   # positions of the forward layer where measuring stops
Q_MAX = 0.97         # the largest decay factor a projection takes (ratios keep shrinking)


class WontFit(Exception):
    """The search would need more disk than it may use (the estimate, with its figures)."""

    def __init__(self, est: "Estimate"):
        super().__init__("\n".join(est.lines()))
        self.estimate = est


def decay(sizes) -> list[float]:
    """q_d = ln r_(d+1) / ln r_d for consecutive growth ratios above 1 (see the module docstring)."""
    r = [b / a for a, b in zip(sizes, sizes[1:]) if a > 0]
    return [math.log(y) / math.log(x) for x, y in zip(r, r[1:]) if x > 1 and y > 1]


def reference_decay() -> float:
    """Triangle9's q from depth 5 on (mean), the reference of the projections."""
    q = decay(T9_K15[4:])
    return sum(q) / len(q)


@dataclass
class Estimate:
    """Measured and projected layers of one K (see the module docstring); sizes in positions."""

    board: str
    K: int
    backward_depth: int
    forward: list[int]                     # measured forward layers (depth 0 ..)
    backward: list[int]                    # measured backward layers
    complete: bool                         # the probe ran the whole search (nothing projected)
    low: list[int] = field(default_factory=list)    # projected forward layers after the measured
    high: list[int] = field(default_factory=list)
    q: tuple[float, float] = (0.0, 0.0)    # (low, high) decay factors used
    disk_low: int = 0                      # bytes the search needs at its peak
    disk_high: int = 0
    cpu_low: float = 0.0                   # CPU seconds projected for the unmeasured layers
    cpu_high: float = 0.0
    disk_allowed: int | None = None        # bytes it may use (None: unknown)
    probe_seconds: float = 0.0
    note: str = ""

    @property
    def fits(self) -> bool:
        return self.disk_allowed is None or self.disk_low <= self.disk_allowed

    def lines(self) -> list[str]:
        gb = lambda x: f"{x / 1e9:,.1f} GB"  # noqa: E731
        out = [f"{self.board}, K = {self.K} (forward to depth {self.K - self.backward_depth}, "
               f"backward to depth {self.backward_depth}): measured forward layers "
               f"{self.forward}, backward {self.backward} ({self.probe_seconds:.1f} s)"]
        if self.complete:
            out.append("the measured layers are the whole search")
        else:
            out.append(f"projected forward layers (growth-ratio logarithm x {self.q[0]:.2f} .. "
                       f"{self.q[1]:.2f} a layer): low {self.low}, high {self.high}")
            out.append(f"disk at the peak: {gb(self.disk_low)} .. {gb(self.disk_high)}; CPU for "
                       f"the rest: {self.cpu_low / 3600:,.1f} .. {self.cpu_high / 3600:,.1f} h")
            out.append("split over Dask workers (--executor dask: each layer's expansion in "
                       "chunk jobs, the layers in one shared work folder): "
                       + ", ".join(f"{n} workers {self.cpu_low / 3600 / n:,.1f} .. "
                                   f"{self.cpu_high / 3600 / n:,.1f} h" for n in (16, 256)))
        if self.disk_allowed is not None:
            out.append(f"disk it may use: {gb(self.disk_allowed)} -> "
                       + ("fits" if self.fits else "does NOT fit (even the low projection)"))
        if self.note:
            out.append(self.note)
        return out

    def json(self) -> dict:
        return {k: getattr(self, k) for k in (
            "board", "K", "backward_depth", "forward", "backward", "complete", "low", "high", "q",
            "disk_low", "disk_high", "cpu_low", "cpu_high", "disk_allowed", "probe_seconds",
            "note")} | {"fits": self.fits}


def project(sizes: list[int], depth: int, q: float) -> list[int]:
    """Forward layers len(sizes) .. depth from the measured `sizes` (ln r shrinking by q)."""
    out: list[int] = []
    if len(sizes) < 2 or sizes[-2] <= 0:
        return out
    r = max(sizes[-1] / sizes[-2], 1.0)
    s = float(sizes[-1])
    for _ in range(len(sizes), depth + 1):
        r = math.exp(math.log(r) * q) if r > 1 else 1.0
        s *= r
        out.append(int(s))
    return out


def allowed_disk(work_dir: str | None, disk_limit: int | None, keep_free: int,
                 held: int = 0) -> int | None:
    """Bytes a search may hold at its peak: the disk limit, and the free space plus what the
    search's own folder already holds (`held`: bytes it reuses or deletes) less `keep_free`."""
    where = Path(work_dir) if work_dir is not None else Path(os.environ.get("TMPDIR", "/tmp"))
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free + held - keep_free
    return max(0, free if disk_limit is None else min(free, disk_limit))


def _finish(e: Estimate, nodes: list[int], cpu: list[float], held: int, work_dir, disk_limit,
            keep_free) -> Estimate:
    A = e.K - e.backward_depth
    kept = sum(e.forward) + sum(e.backward)
    if not e.complete and len(e.forward) >= 2:
        q_ref = reference_decay()
        qs = decay(e.forward[-4:])
        q_own = min(Q_MAX, sum(qs) / len(qs)) if qs else q_ref
        if not qs or max(qs) >= 1:
            e.note = (e.note + "; " if e.note else "") + (
                "the growth ratios were still rising at the last measured layer: the high "
                f"projection takes q = {Q_MAX} (probe deeper for a better one)")
            q_own = Q_MAX
        lo_q, hi_q = min(q_ref, q_own), max(q_ref, q_own)
        e.q = (round(lo_q, 3), round(hi_q, 3))
        e.low = project(e.forward, A, lo_q)
        e.high = project(e.forward, A, hi_q)
        # successors per expanded position, growing by the last measured factor (1 .. 1.5)
        b = [n / s for n, s in zip(nodes[1:], e.forward[:-1]) if s]
        g = min(1.5, max(1.0, b[-1] / b[-2])) if len(b) >= 2 and b[-2] else 1.2
        rate = cpu[-1] / nodes[-1] if nodes and nodes[-1] else 1e-7
        for proj, attr in ((e.low, "low"), (e.high, "high")):
            sizes = e.forward + proj
            peak = ITEM * (kept + sum(proj[:-1])) + ITEM * proj[-1] * (1 + SPILL) if proj else 0
            succ, bb = 0.0, (b[-1] if b else 50.0)
            for d in range(len(e.forward), len(sizes)):
                bb *= g
                succ += sizes[d - 1] * bb
            setattr(e, f"disk_{attr}", int(peak))
            setattr(e, f"cpu_{attr}", succ * rate)
    else:
        e.disk_low = e.disk_high = ITEM * kept
    e.disk_allowed = allowed_disk(work_dir, disk_limit, keep_free, held)
    return e


def estimate_least(b: Board, K: int, backward_depth: int | None = 1, work_dir: str | None = None,
                   memory: int | None = None, disk_limit: int | None = None,
                   keep_free: int = KEEP_FREE, probe: int = PROBE,
                   progress=None) -> Estimate:
    """The estimate of `least_by_bound(b, max_moves=K, backward_depth=...)` (module docstring); its
    probed layers are built in the search's own store (`work_dir`: the folder of the same
    `backward_depth`, None when the search chooses its sides), so the search reuses them, and the
    bytes that folder already holds count as disk the search may use. With `backward_depth` None
    the projection assumes backward depth 1 (the note says so)."""
    from ...core.limits import PEG_BITBOARD_HOLES
    if b.n > PEG_BITBOARD_HOLES:
        return estimate_wide(b, K, backward_depth or 1, work_dir, disk_limit, keep_free, probe,
                             progress)
    from . import bfs
    from .bound import backward_bound, forward_bound
    from .disk import Store
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    sp, starts, pegs = bfs.all_vacancies(b)
    fb, bb = forward_bound(b, None), backward_bound(b, None)
    key = bfs.search_key(sp.inst, sp, least=True, K=K, bound=[fb.description, bb.description],
                         backward_depth=backward_depth)
    key.pop("start"), key.pop("finish")
    store = Store(work_dir, key, memory, disk_limit, prefix="peg-least")
    try:
        E = 1 if backward_depth is None else backward_depth
        e = Estimate(b.name, K, E, [], [], False, note="" if backward_depth is not None else (
            "projected for backward depth 1, but without --backward-depth the search grows "
            "whichever side generates fewer successors (its disk may differ: --backward-depth 1 "
            "runs the search projected here)"))
        nodes: list[int] = [0]
        cpu: list[float] = [0.0]
        A = K - E
        for backward, root, bound, limit, sizes in (
                (True, pegs, bb, E, e.backward), (False, starts, fb, A, e.forward)):
            root = root[bound.of(root) <= K]
            counters = {"nodes": 0}
            prefix = "b" if backward else "f"
            gen = bfs.layers(sp, root, backward, counters, limit, store=store, prefix=prefix,
                             bound=bound, K=K)
            depth = -1
            while True:
                c0, n0 = time.process_time(), counters["nodes"]
                layer = next(gen, None)
                if layer is None:
                    break
                depth += 1
                sizes.append(len(layer))
                name = f"{prefix}{depth:03d}"
                took = round(time.process_time() - c0, 6)
                if depth and store.persistent:
                    note = store.note(name)
                    if counters["nodes"] == n0 and note:   # read back: its figures are noted
                        counters["nodes"] += note.get("nodes", 0)
                        took = note.get("seconds", took)   # the build's CPU, not the read's
                    elif not note:
                        store.set_note(name, {"nodes": counters["nodes"] - n0,
                                              "seconds": took})
                if not backward:
                    nodes.append(counters["nodes"] - n0)
                    cpu.append(took)
                say(f"estimate K={K}: {'backward' if backward else 'forward'} layer {depth}: "
                    f"{len(layer)} positions")
                if not len(layer):
                    sizes.pop()
                    break
                if not backward and len(layer) >= probe and depth < A:
                    break
            gen.close()
        nodes, cpu = nodes[1:], cpu[1:]  # per forward layer from depth 0 (depth 0: nothing)
        e.complete = len(e.forward) - 1 >= A or (len(e.forward) and e.forward[-1] < probe)
        e.probe_seconds = round(time.monotonic() - t0, 1)
        # measured with the free space (after the probe's layers): the search's folder, all of it
        return _finish(e, nodes, cpu, store.held(), work_dir, disk_limit, keep_free)
    finally:
        store.close()


def estimate_wide(b: Board, K: int, backward_depth: int, work_dir, disk_limit, keep_free,
                  probe: int, progress=None) -> Estimate:
    """The estimate for a board beyond 64 holes: its forward layers from all single vacancies
    (wide positions, native_search/peg/wide.py, canonical under the whole group; unpruned — the
    Merson pruning cuts only the late layers), projected as above. The layer search itself holds
    64-bit positions: the note says so."""
    from .wide import layer_sizes
    t0 = time.monotonic()
    sizes, nodes, cpu = layer_sizes(b, probe, K - backward_depth, progress)
    e = Estimate(b.name, K, backward_depth, sizes, [], False,
                 note=f"{b.name} has {b.n} holes: the layer search (`--least`) holds positions "
                      "in 64-bit words, so this is a projection only (backward layers not "
                      "measured)")
    e.complete = len(sizes) - 1 >= K - backward_depth
    e.probe_seconds = round(time.monotonic() - t0, 1)
    return _finish(e, nodes, cpu, 0, work_dir, disk_limit, keep_free)
