"""Layers of the peg searches in memory or on disk, by a memory budget; checkpoints that resume.

A layer is a sorted array of distinct `uint64` bitboards (native_search/peg/bfs.py). A `Store`
keeps each finished layer in memory while the layers held in memory stay under half its memory
budget, else in a file of raw little-endian `uint64` read back through `np.memmap` (copy-on-write
mode "c": the file is never written through it, and the kernels see the same writable array type
as an in-memory layer, so numba compiles each of them once, not again for read-only arrays); with
a work folder every finished layer is also written there (the checkpoint) and listed in `manifest.json`
only once the file is complete (written under a temporary name, then renamed), so a search
interrupted at any point resumes from its last complete layer. A work folder holds claims, not
facts: the manifest lists each layer's size and SHA-256 and carries the seal of this user's
puzzlesat (core/seal.py, bound to the folder's key); a manifest without a valid seal (forged,
edited, another user's, written before checksums) is set aside and every layer is built again,
and a layer whose file is not a regular file of its size and SHA-256 is built again when the
search reaches it (`redone` names what was set aside).

`LayerBuilder` assembles the next layer from sorted chunks of successors: merged in memory while
the working set fits in the rest of the budget; past that it spills — range splitters are taken
from the sorted positions gathered so far, every later chunk is cut at the splitters and appended
to one file per range (each file a sequence of sorted runs), and at the end each range is sorted,
de-duplicated and stripped of the earlier layers' positions in that range (a linear merge against
each earlier layer's slice), then appended to the layer's file in range order — an external
bucket sort by value range, so a layer larger than memory only needs one range in memory at a
time (a range still too large is split again from a sample of its own values).

With a work folder the spilled state is also a checkpoint inside the layer: the range files live in
`part-<layer>` (kept when the search stops for time or is interrupted), and `checkpoint` records
in `progress.json` (atomically) how far the expansion got and each range file's size at that
moment; a run that builds the same layer again (`resume`: the same input layer, side and bound)
truncates the range files to those sizes and goes on from that position. The progress file is
sealed too and lists, per range file, the SHA-256 of each piece appended between checkpoints
(hashing only what is new at each checkpoint); a range file that does not match is not resumed
from: the layer is built from its start. The merge at the end consumes the range files, so the
checkpoint is dropped when it starts.

Disk use is counted (bytes of the files this store holds; `peak_disk`), bounded by `disk_limit`
and by a reserve of free space left on the file system; past either, or on a real ENOSPC, the
store raises `DiskFull` and removes the unfinished layer's files: the search stops with what its
complete layers prove.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from ...core.files import file_sha256, make_folder

ITEM = 8                      # bytes per position
FREE_RESERVE = 1 << 30        # bytes of free space left on the file system for everyone else
MAX_BUCKETS = 1024            # ranges of one spilled layer
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024   # a manifest or progress file read back
MAX_POSITIONS = 1 << 46                 # positions of one layer a manifest may claim (512 TiB)


class DiskFull(Exception):
    """The work folder may not grow (disk limit, free-space reserve, or the disk is full)."""


class OutOfTime(Exception):
    """The time limit passed while a layer was being built (its files are removed; the layers
    finished before it stay, so a search with a work folder resumes from them)."""


def past(deadline: float | None) -> bool:
    """Has `deadline` (time.monotonic() seconds; None: no limit) passed? The one clock of the
    checks inside a layer (a test replaces it to stop at a chosen check)."""
    return deadline is not None and time.monotonic() > deadline


def check_time(deadline: float | None, where: str) -> None:
    """Raise OutOfTime naming `where` once `deadline` has passed."""
    if past(deadline):
        raise OutOfTime(f"time limit inside {where}")


def default_memory() -> int:
    """Most of the memory: 75 % of what is available now (MemAvailable), 8 GiB if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemAvailable:"):
                    return int(0.75 * int(ln.split()[1]) * 1024)
    except OSError:
        pass
    return 8 << 30


def _write(f, a: np.ndarray) -> None:
    """Write array a to the open binary file f (one place, so tests can fill the disk)."""
    a.tofile(f)


def unique_sorted(a) -> np.ndarray:
    """Sorted distinct elements as uint64 (np.sort and a neighbour mask: np.unique is several
    times slower)."""
    a = np.sort(np.asarray(a, dtype=np.uint64))
    if len(a) < 2:
        return a
    keep = np.empty(len(a), np.bool_)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


class Store:
    """Where one search keeps its layers (see the module docstring).

    `work_dir` None: layers that leave memory go to a temporary folder, removed by close();
    otherwise to `work_dir/<prefix>-<hash of key>`, which persists (the checkpoint). `memory`:
    bytes for layers in memory and the working set of the layer being built (default:
    default_memory()); `disk_limit`: bytes the folder may hold (None: no limit but the free-space
    reserve)."""

    def __init__(self, work_dir: str | os.PathLike | None = None, key: dict | None = None,
                 memory: int | None = None, disk_limit: int | None = None, prefix: str = "peg"):
        self.memory = default_memory() if memory is None else int(memory)
        self.disk_limit = disk_limit
        self.persistent = work_dir is not None
        self.key = key or {}
        if self.persistent:
            digest = hashlib.sha1(json.dumps(self.key, sort_keys=True).encode()).hexdigest()[:16]
            self.dir: Path | None = Path(work_dir) / f"{prefix}-{digest}"
            make_folder(self.dir, "layer work folder")
        else:
            self.dir = None
        self.in_memory: dict[str, int] = {}   # name -> bytes of layers held in memory
        self.disk = 0                         # bytes of files held now
        self.peak_disk = 0
        self.redone: list[str] = []           # what a resume set aside (module docstring)
        self.earlier: str | None = None       # the date of an earlier run's sealed manifest
        self.manifest = {"key": self.key, "layers": {}, "notes": {}}
        if self.persistent:
            for tmp in self.dir.glob("tmp-*"):  # an interrupted layer: start it again
                shutil.rmtree(tmp, ignore_errors=True)
            path = self.dir / MANIFEST
            if path.exists() or path.is_symlink():
                m = self._read_manifest(path)
                if m is not None:
                    from ...core.seal import STAMP, stamp_of
                    self.earlier = stamp_of(m, path)
                    m.pop(STAMP, None)
                    self.manifest = m
            for part in self.dir.glob("part-*"):  # range files of a layer finished since
                if part.name[len("part-"):] in self.manifest["layers"]:
                    shutil.rmtree(part, ignore_errors=True)
            for meta in self.manifest["layers"].values():
                self.disk += ITEM * meta["size"]
            self.peak_disk = self.disk
            self._write_manifest()

    # ---- folder and disk accounting -----------------------------------------------------------
    def folder(self) -> Path:
        """The folder of this store's files (a temporary one is made on first use)."""
        if self.dir is None:
            self.dir = Path(tempfile.mkdtemp(prefix="puzzlesat-peg-"))
        return self.dir

    def reserve(self, nbytes: int) -> None:
        """Account for `nbytes` more on disk, or raise DiskFull."""
        if self.disk_limit is not None and self.disk + nbytes > self.disk_limit:
            raise DiskFull(f"disk limit: {self.disk + nbytes} bytes would pass {self.disk_limit}")
        free = shutil.disk_usage(self.folder()).free
        if free - nbytes < FREE_RESERVE:
            raise DiskFull(f"disk nearly full: {free} bytes free, {nbytes} more needed, "
                           f"{FREE_RESERVE} kept free")
        self.disk += nbytes
        self.peak_disk = max(self.peak_disk, self.disk)

    def release(self, nbytes: int) -> None:
        self.disk -= nbytes

    def append(self, path: Path, a: np.ndarray) -> None:
        """Append the uint64 array a to the file at path (accounted)."""
        nbytes = ITEM * len(a)
        if nbytes == 0:
            path.touch()
            return
        self.reserve(nbytes)
        try:
            with open(path, "ab") as f:
                _write(f, np.ascontiguousarray(a, dtype=np.uint64))
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise DiskFull(f"disk full writing {path}: {e}") from e
            raise

    def remove(self, path: Path) -> None:
        """Delete a file written through this store (accounted)."""
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return
        path.unlink()
        self.release(size)

    def scratch(self, name: str) -> Path:
        """A fresh scratch folder for building layer `name` (removed by drop_scratch)."""
        d = self.folder() / f"tmp-{name}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        return d

    def held(self) -> int:
        """Bytes of the regular files in this store's folder now (0 without one): its layers and
        the range files of an unfinished layer, each of which a search with this store reuses or
        deletes (symbolic links and other special files are not counted)."""
        if not self.persistent or self.dir is None:
            return 0
        total, todo = 0, [self.dir]
        while todo:
            try:
                entries = list(os.scandir(todo.pop()))
            except OSError:
                continue
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    todo.append(Path(e.path))
                elif stat.S_ISREG(st.st_mode):
                    total += st.st_size
        return total

    def part(self, name: str) -> Path:
        """The folder of layer `name`'s checkpointed range files (persistent stores; kept by
        Store's start-up, unlike tmp-* folders)."""
        return self.folder() / f"part-{name}"

    def drop_scratch(self, d: Path) -> None:
        """Delete a scratch folder and every file under it (accounted)."""
        for p in sorted(d.rglob("*"), reverse=True):
            if p.is_file():
                self.remove(p)
        shutil.rmtree(d, ignore_errors=True)

    # ---- layers -------------------------------------------------------------------------------
    def memory_in_layers(self) -> int:
        return sum(self.in_memory.values())

    def working_budget(self) -> int:
        """Bytes the layer being built may use in memory."""
        return max(0, self.memory - self.memory_in_layers())

    def _path(self, name: str) -> Path:
        return self.folder() / f"{name}.u64"

    def _context(self) -> str:
        return "peg layers " + json.dumps([self.dir.name, self.key], sort_keys=True, default=str)

    def _read_manifest(self, path: Path) -> dict | None:
        """The folder's manifest if it is one this user's puzzlesat sealed for this key, with
        layers of sane sizes; None (noted in `redone`) otherwise."""
        from ...core.seal import verified
        try:
            m = json.loads(_read_claim(path))
        except (OSError, ValueError, RecursionError) as e:
            self.redone.append(f"{MANIFEST} ({e if isinstance(e, OSError) else 'not JSON'})")
            return None
        ok = (isinstance(m, dict) and m.get("key") == self.key and verified(m, self._context())
              and isinstance(m.get("layers"), dict) and isinstance(m.get("notes"), dict)
              and all(isinstance(v, dict) and isinstance(v.get("size"), int)
                      and not isinstance(v.get("size"), bool) and 0 <= v["size"] <= MAX_POSITIONS
                      and isinstance(v.get("sha256"), str) for v in m["layers"].values()))
        if not ok:
            from ...core.seal import unsealed_why
            self.redone.append(f"{MANIFEST} ({unsealed_why('this search')})")
            return None
        m.pop("seal", None)
        return m

    def _write_manifest(self) -> None:
        if not self.persistent:
            return
        from ...core.seal import STAMP, now, sign
        tmp = self.dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(sign({**self.manifest, STAMP: now()}, self._context()), sort_keys=True))
        os.replace(tmp, self.dir / MANIFEST)

    def saved(self, name: str) -> np.ndarray | None:
        """Layer `name` if a complete copy is on disk (resuming) whose file has the size and
        SHA-256 its manifest lists, else None (a changed file is removed, noted in `redone`)."""
        meta = self.manifest["layers"].get(name)
        if meta is None:
            return None
        why = self._check_file(name, meta)
        if why:
            self.redone.append(f"{name} ({why})")
            self.manifest["layers"].pop(name, None)
            self.manifest["notes"].pop(name, None)
            self.disk -= ITEM * meta["size"]
            path = self._path(name)
            if path.is_symlink() or path.is_file():
                path.unlink()
            self._write_manifest()
            return None
        return self._open(name, meta["size"])

    def _check_file(self, name: str, meta: dict) -> str | None:
        """Why layer `name`'s file is not the one the manifest lists (None: it is)."""
        path = self._path(name)
        if meta["size"] == 0:
            return None
        try:
            st = os.lstat(path)
        except OSError:
            return "its file is missing"
        if not stat.S_ISREG(st.st_mode):
            return "its file is not a regular file"
        if st.st_size != ITEM * meta["size"]:
            return f"its file holds {st.st_size} bytes, not {ITEM * meta['size']}"
        if file_sha256(path) != meta["sha256"]:
            return "its file's SHA-256 differs"
        return None

    def note(self, name: str) -> dict:
        """The figures stored with layer `name` (empty if none)."""
        return self.manifest["notes"].get(name, {})

    def _open(self, name: str, size: int) -> np.ndarray:
        if size == 0:
            return np.empty(0, np.uint64)
        if ITEM * size + self.memory_in_layers() <= self.memory // 2:
            a = np.fromfile(self._path(name), dtype=np.uint64)
            self.in_memory[name] = a.nbytes
            return a
        return np.memmap(self._path(name), dtype=np.uint64, mode="c", shape=(size,))

    def commit(self, name: str, layer: np.ndarray | Path, size: int | None = None,
               note: dict | None = None) -> np.ndarray:
        """Layer `name` is finished: `layer` is the array, or the path of its complete file of
        `size` positions. Written to the folder when the store persists or the layer does not fit
        in memory; returned in memory or as a memmap per the budget."""
        final = None
        digest = None
        if isinstance(layer, Path):
            final = self._path(name)
            os.replace(layer, final)
            n = size
            if self.persistent:
                digest = file_sha256(final)
        else:
            n = len(layer)
            fits = layer.nbytes + self.memory_in_layers() <= self.memory // 2
            if self.persistent or not fits:
                final = self._path(name)
                tmp = self.folder() / f"{name}.u64.tmp"
                if tmp.exists():
                    self.remove(tmp)
                self.append(tmp, layer)
                if self.persistent:
                    with open(tmp, "rb") as f:
                        os.fsync(f.fileno())
                os.replace(tmp, final)
            if self.persistent:
                digest = _array_sha256(layer)
            if fits or n == 0:
                arr = np.asarray(layer, dtype=np.uint64)
                self.in_memory[name] = arr.nbytes
                self._record(name, n, note, digest)
                return arr
        self._record(name, n, note, digest)
        if n == 0:
            return np.empty(0, np.uint64)
        if final is not None and ITEM * n + self.memory_in_layers() <= self.memory // 2:
            arr = np.fromfile(final, dtype=np.uint64)
            self.in_memory[name] = arr.nbytes
            return arr
        return np.memmap(final, dtype=np.uint64, mode="c", shape=(n,))

    def _record(self, name: str, size: int, note: dict | None, digest: str | None = None) -> None:
        if self.persistent:
            self.manifest["layers"][name] = {"size": size, "sha256": digest or _array_sha256(
                np.empty(0, np.uint64))}
            if note:
                self.manifest["notes"][name] = note
            self._write_manifest()

    def set_note(self, name: str, note: dict) -> None:
        """Store figures under `name` in the manifest (e.g. a finished bound)."""
        self.manifest["notes"][name] = note
        self._write_manifest()

    def forget(self, name: str) -> None:
        """A layer no longer needed in memory (its bytes leave the budget)."""
        self.in_memory.pop(name, None)

    def close(self) -> None:
        """Remove the temporary folder (a persistent work folder stays)."""
        if not self.persistent and self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
            self.disk = 0


def _array_sha256(a: np.ndarray) -> str:
    """SHA-256 of a layer's bytes as its file holds them (raw uint64, this machine's order)."""
    return hashlib.sha256(memoryview(np.ascontiguousarray(a, dtype=np.uint64)).cast("B")).hexdigest()


def _read_claim(path: Path) -> bytes:
    """A work folder's JSON file, read as a claim: a regular file (never a symlink, FIFO or
    device), at most MAX_MANIFEST_BYTES (OSError otherwise)."""
    from ...core.inputs import read_bytes
    from ...core.result import InputError
    if path.is_symlink():
        raise OSError("a symlink")
    try:
        return read_bytes(path, MAX_MANIFEST_BYTES, "work-folder file")
    except InputError as e:
        raise OSError(e.message) from None


def _piece_sha256(path: Path, start: int, end: int) -> str:
    """SHA-256 of bytes [start, end) of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            b = f.read(min(left, 1 << 24))
            if not b:
                break
            h.update(b)
            left -= len(b)
    return h.hexdigest()


def memory_bytes(parts) -> int:
    return sum(p.nbytes for p in parts)


class LayerBuilder:
    """The next layer from sorted distinct chunks: `add` each chunk, then `finish(previous)`
    (see the module docstring). `minus` and `merge` are the sorted-set kernels (bfs)."""

    def __init__(self, store: Store, name: str, merge, minus, expected: float = 2.0):
        self.store, self.name, self.merge, self.minus = store, name, merge, minus
        self.acc = np.empty(0, np.uint64)
        self.parts: list[np.ndarray] = []
        self.cuts: np.ndarray | None = None   # range splitters once spilled
        self.dir: Path | None = None
        self.expected = expected              # guess: final size / size when spilled
        self.spilled = False
        self.resumable = store.persistent     # range files in part-<name>, checkpointed
        self.pieces: dict[str, list] = {}     # range file -> [[size, SHA-256 of the piece], ...]

    def _cap(self) -> int:
        """Positions one range may hold to be finished in memory (sort and set work: ~4 copies)."""
        return max(1024, self.store.working_budget() // (4 * ITEM))

    def add(self, part: np.ndarray) -> None:
        """One sorted distinct chunk of the layer."""
        if not len(part):
            return
        if self.cuts is not None:
            self._spill(part)
            return
        self.parts.append(part)
        held = self.acc.nbytes + memory_bytes(self.parts)
        if 3 * held > self.store.working_budget():
            self._start_spilling()
        elif len(self.parts) > 8:
            self._fold()

    def _fold(self) -> None:
        if self.parts:
            self.acc = self.merge(self.acc, unique_sorted(np.concatenate(self.parts)))
            self.parts = []

    def _start_spilling(self) -> None:
        self._fold()
        acc, self.acc = self.acc, np.empty(0, np.uint64)
        nb = int(min(MAX_BUCKETS, max(2, -(-len(acc) * self.expected // self._cap()))))
        self.cuts = _splitters(acc, nb)
        self.pieces = {}
        if self.resumable:
            self.dir = self.store.part(self.name)
            self.store.drop_scratch(self.dir)
            self.dir.mkdir(parents=True)
        else:
            self.dir = self.store.scratch(self.name)
        self.spilled = True
        self._spill(acc)

    def _spill(self, part: np.ndarray) -> None:
        at = np.searchsorted(part, self.cuts)
        lo = 0
        for b, hi in enumerate(list(at) + [len(part)]):
            if hi > lo:
                self.store.append(self.dir / f"{b:05d}", part[lo:hi])
            lo = hi

    # ---- the checkpoint inside a layer (persistent stores) -----------------------------------
    def checkpoint(self, ident: dict, state: dict) -> bool:
        """Record that every chunk added so far is in the range files (spilled state only), with
        `state` (e.g. the input position reached); `ident` names the layer being built. Returns
        whether a checkpoint was written."""
        if not self.resumable or self.cuts is None or self.dir is None:
            return False
        from ...core.seal import sign
        sizes = {}
        for f in self.dir.iterdir():
            if f.name.isdigit():
                sizes[f.name] = size = f.stat().st_size
                with open(f, "rb+") as h:
                    os.fsync(h.fileno())
                got = self.pieces.setdefault(f.name, [])
                at = got[-1][0] if got else 0
                if size > at:  # only what was appended since the last checkpoint is hashed
                    got.append([size, _piece_sha256(f, at, size)])
        tmp = self.dir / "progress.json.tmp"
        tmp.write_text(json.dumps(sign({"ident": ident, "state": state, "sizes": sizes,
                                        "pieces": self.pieces, "cuts": [int(c) for c in self.cuts]},
                                       self._context(ident))))
        os.replace(tmp, self.dir / "progress.json")
        return True

    def _context(self, ident: dict) -> str:
        return "peg layer progress " + json.dumps([self.store._context(), self.name, ident],
                                                  sort_keys=True, default=str)

    def resume(self, ident: dict) -> dict | None:
        """The state of the last checkpoint of this layer (same `ident`), its range files cut
        back to their sizes then; None (and any stale part folder removed) if there is none."""
        if not self.resumable:
            return None
        d = self.store.part(self.name)
        prog = d / "progress.json"
        try:
            m = json.loads(_read_claim(prog))
        except (OSError, ValueError, RecursionError):
            m = None
        if not self._progress_holds(m, ident, d):
            if m is not None:
                self.store.redone.append(f"part-{self.name} (its checkpoint does not hold)")
            if d.exists():
                shutil.rmtree(d, ignore_errors=True)
            return None
        self.pieces = m["pieces"]
        for f in d.iterdir():
            if f.name.isdigit() and f.name not in m["sizes"]:
                f.unlink()
            elif f.is_dir():
                shutil.rmtree(f, ignore_errors=True)
        for name, size in m["sizes"].items():
            with open(d / name, "rb+") as h:
                h.truncate(size)
            self.store.disk += size
        self.store.peak_disk = max(self.store.peak_disk, self.store.disk)
        self.cuts = np.array(m["cuts"], dtype=np.uint64)
        self.dir = d
        self.spilled = True
        return m["state"]

    def _progress_holds(self, m: Any, ident: dict, d: Path) -> bool:
        """Whether a progress file is this layer's sealed checkpoint whose range files still
        hold, piece by piece, the bytes it hashed."""
        from ...core.seal import verified
        if not (isinstance(m, dict) and m.get("ident") == ident and verified(m, self._context(ident))):
            return False
        try:
            for name, size in m["sizes"].items():
                pieces = m["pieces"].get(name) or []
                if not name.isdigit() or (pieces[-1][0] if pieces else 0) != size:
                    return False
                f = d / name
                st = os.lstat(f)
                if not stat.S_ISREG(st.st_mode) or st.st_size < size:
                    return False
                at = 0
                for end, digest in pieces:
                    if _piece_sha256(f, at, end) != digest:
                        return False
                    at = end
        except (OSError, AttributeError, TypeError, ValueError, IndexError, KeyError):
            return False
        return True

    def finish(self, previous: list[np.ndarray], note: dict | None = None,
               deadline: float | None = None) -> np.ndarray:
        """The layer: the chunks' union minus every layer in `previous`, committed to the store.
        Past `deadline` (checked between the earlier layers and between ranges) OutOfTime, the
        layer's files removed (the merge consumes the checkpoint)."""
        if self.dir is not None:
            (self.dir / "progress.json").unlink(missing_ok=True)
        try:
            if self.cuts is None:
                self._fold()
                layer = self.acc
                self.acc = np.empty(0, np.uint64)
                for p in previous:
                    check_time(deadline, f"the merge of layer {self.name}")
                    layer = _minus_range(layer, p, self.minus)
                return self.store.commit(self.name, layer, note=note)
            out = self.dir / "layer"
            n = 0
            for b in range(len(self.cuts) + 1):
                check_time(deadline, f"the merge of layer {self.name}")
                n += self._finish_range(self.dir / f"{b:05d}", out, previous)
            return self.store.commit(self.name, out, n, note=note)
        finally:
            if self.dir is not None:
                self.store.drop_scratch(self.dir)
                self.dir = None

    def abandon(self, keep: bool = False) -> None:
        """Drop the unfinished layer's files (`keep`: a checkpointed part folder stays for
        `resume`)."""
        if keep and self.resumable and self.dir is not None \
                and (self.dir / "progress.json").exists():
            self.dir = None
            return
        if self.dir is not None:
            self.store.drop_scratch(self.dir)
            self.dir = None

    def _finish_range(self, path: Path, out: Path, previous: list[np.ndarray]) -> int:
        """Sort, de-duplicate and strip one range file, appending it to `out`; a range too large
        for memory is cut again from a sample of its values. Returns the positions appended."""
        if not path.exists():
            return 0
        size = path.stat().st_size // ITEM
        cap = self._cap()
        if size <= 2 * cap:
            data = unique_sorted(np.fromfile(path, dtype=np.uint64))
            self.store.remove(path)
            for p in previous:
                data = _minus_range(data, p, self.minus)
            self.store.append(out, data)
            return len(data)
        mm = np.memmap(path, dtype=np.uint64, mode="c", shape=(size,))
        sample = unique_sorted(np.asarray(mm[:: max(1, size // cap)]))
        nb = int(min(MAX_BUCKETS, max(2, -(-size // cap))))
        cuts = _splitters(sample, nb)
        if len(cuts) == 0:  # one value over and over: the runs hold few distinct positions
            acc = np.empty(0, np.uint64)
            for i in range(0, size, cap):
                acc = self.merge(acc, unique_sorted(np.asarray(mm[i:i + cap])))
            del mm
            self.store.remove(path)
            for p in previous:
                acc = _minus_range(acc, p, self.minus)
            self.store.append(out, acc)
            return len(acc)
        sub = path.parent / (path.name + "-")
        sub.mkdir()
        for i in range(0, size, cap):  # each piece: sorted runs; sort it, then cut it
            piece = unique_sorted(np.asarray(mm[i:i + cap]))
            at = np.searchsorted(piece, cuts)
            lo = 0
            for b, hi in enumerate(list(at) + [len(piece)]):
                if hi > lo:
                    self.store.append(sub / f"{b:05d}", piece[lo:hi])
                lo = hi
        del mm
        self.store.remove(path)
        n = 0
        for b in range(len(cuts) + 1):
            n += self._finish_range(sub / f"{b:05d}", out, previous)
        shutil.rmtree(sub, ignore_errors=True)
        return n


def _splitters(sorted_distinct: np.ndarray, buckets: int) -> np.ndarray:
    """Up to buckets - 1 distinct cut values at even quantiles of a sorted distinct array."""
    if len(sorted_distinct) < 2 or buckets < 2:
        return np.empty(0, np.uint64)
    idx = np.linspace(0, len(sorted_distinct), buckets + 1)[1:-1].astype(np.int64)
    idx = idx[(idx > 0) & (idx < len(sorted_distinct))]
    return np.unique(sorted_distinct[idx])


def _minus_range(a: np.ndarray, prev: np.ndarray, minus) -> np.ndarray:
    """Sorted a without the elements of sorted prev (only prev's slice over a's range is read)."""
    if not len(a) or not len(prev):
        return a
    lo = int(np.searchsorted(prev, a[0]))
    hi = int(np.searchsorted(prev, a[-1], side="right"))
    if hi <= lo:
        return a
    return minus(a, np.asarray(prev[lo:hi]))


def search_key(**parts) -> dict:
    """A JSON-able key naming one search (the store's folder is a hash of it)."""
    def norm(v):
        if isinstance(v, (set, frozenset)):
            return sorted(norm(x) for x in v)
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        if isinstance(v, np.ndarray):
            return hashlib.sha1(np.ascontiguousarray(v).tobytes()).hexdigest()
        if isinstance(v, dict):
            return {str(k): norm(x) for k, x in v.items()}
        return v
    return {k: norm(v) for k, v in parts.items()}
