"""Peg layer expansions split over the campaign executors: chunks of the frontier as jobs.

The frontier (a sorted layer file in the search's store folder, native_search/peg/disk.py) is cut
into slices; each slice is one job (native_search/peg/chunks.py: expand by one move, write the
sorted distinct successors to the chunk's file, atomically). On a `LocalExecutor` the jobs are
`jobs` at once on this machine, each on a job process (job_worker.py: one process per running job
slot, in its own session, reused for the next job, killed when the run is cancelled); on a
`DaskExecutor` they are tasks on its client's cluster (the store folder must then be one every
worker sees: the same machine, or a shared file system). The client merges each chunk's output once, keyed by chunk id, through the
same `LayerBuilder` a single process uses (in memory or range files on disk), and subtracts the
earlier layers there: the layer is the same set as one process builds.

A time limit (`deadline`) is checked inside the layer: while the client waits for chunks (every
half second on the local executor, at each finished chunk on Dask), between merged chunks and in
the merge; past it the running chunk jobs are stopped (local: their process groups killed; Dask:
their futures cancelled), the unfinished layer's files removed, and native_search.peg.disk.OutOfTime
raised — the layers finished before stay, so a search with a work folder resumes from them.

A chunk whose process dies (killed, out of memory) leaves no output file and is run again: on the
local executor by the client, up to `retries` more times; on Dask the scheduler re-runs a task
whose worker died (its `allowed-failures`), and the client submits it again under a new key when
the scheduler gives up, up to `retries` times. A chunk that still fails stops the search with an
error; a chunk's output is never merged twice (the client keeps the ids it merged), and partial
outputs never exist (temporary name, then rename).
"""
from __future__ import annotations

import json
import os
import pickle
import queue
import subprocess
import sys
import threading
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Iterator

import numpy as np

CHUNK_POSITIONS = 1 << 20   # frontier positions per job (at least; at most 4 jobs per worker)


class ChunkFailed(RuntimeError):
    """A chunk failed every time it was run."""


class ChunkPool:
    """Layer expansions as chunk jobs on a campaign executor (see the module docstring);
    `expand` has the signature of native_search.peg.bfs.Space.expand with the space first."""

    def __init__(self, executor, chunk: int = CHUNK_POSITIONS, retries: int = 3,
                 job: str = "puzzlesat.native_search.peg.chunks:expand_chunk"):
        self.executor = executor
        self.chunk = chunk
        self.retries = retries
        # the job: `module:function(spec) -> dict`; `python -m module SPEC RESULT` runs one
        self.module, self.function = job.split(":")
        self.stats = {"chunks": 0, "reruns": 0}

    @property
    def workers(self) -> int:
        if getattr(self.executor, "name", "") == "dask":
            return max(1, len(self.executor.client.scheduler_info().get("workers", {})))
        return max(1, int(getattr(self.executor, "jobs", 1)))

    # ---- running chunk specs -----------------------------------------------------------------
    def run(self, specs: list[dict], folder: Path, deadline: float | None = None
            ) -> Iterator[dict]:
        """Each chunk's result once, as they finish (re-running chunks that die); past `deadline`
        the chunks still running are stopped and OutOfTime raised."""
        if getattr(self.executor, "name", "") == "dask":
            yield from self._run_dask(specs, deadline)
        else:
            yield from self._run_local(specs, folder, deadline)

    def _run_local(self, specs: list[dict], folder: Path, deadline: float | None
                   ) -> Iterator[dict]:
        from ...native_search.peg.disk import check_time
        outer = getattr(self.executor, "cancel", None)  # the executor's (a cancelled run)
        cancel = threading.Event()                      # this layer's: set on leaving early
        idle: queue.LifoQueue = queue.LifoQueue()       # job processes waiting for a job
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="puzzlesat-chunk")
        pending = {pool.submit(self._local_one, s, folder, cancel, outer, idle) for s in specs}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
                if pending:
                    check_time(deadline, "a layer's chunk jobs")
        finally:
            if pending:
                cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)
            while not idle.empty():
                idle.get_nowait().close()

    def _local_one(self, spec: dict, folder: Path, cancel: threading.Event,
                   outer: threading.Event | None, idle: queue.LifoQueue) -> dict:
        """Run one job on a job process from `idle` (or a new one; job_worker.py), returned there
        after an answer; a process that dies or is stopped is dropped, the job run again."""
        spec_path = folder / f"spec-{spec['id']}.pkl"
        res_path = folder / f"result-{spec['id']}.json"
        with open(spec_path, "wb") as f:
            pickle.dump(spec, f)
        fails = []
        def cancelled() -> bool:
            return cancel.is_set() or (outer is not None and outer.is_set())

        for attempt in range(self.retries + 1):
            if cancelled():
                raise ChunkFailed("cancelled")
            res_path.unlink(missing_ok=True)
            try:
                w = idle.get_nowait()
            except queue.Empty:
                w = _Worker(self.module, folder)
            answer = w.run(spec_path, res_path, cancelled)
            if answer == "ok" and res_path.exists():
                idle.put(w)
                out = json.loads(res_path.read_text())
                res_path.unlink()
                spec_path.unlink(missing_ok=True)
                return out
            if answer is not None and answer.startswith("error"):
                idle.put(w)            # the job failed, its process is fine
                fails.append(answer)
            else:
                fails.append(w.close())
            if attempt < self.retries:
                self.stats["reruns"] += 1
        raise ChunkFailed(f"chunk {spec['id']} failed {len(fails)} times: {fails[-1]}")

    def _run_dask(self, specs: list[dict], deadline: float | None) -> Iterator[dict]:
        from distributed import as_completed
        import importlib
        from ...native_search.peg.disk import OutOfTime, past
        from ..campaign.executors import NoWorkers, finished as completed
        expand_chunk = getattr(importlib.import_module(self.module), self.function)
        client = self.executor.client
        tries = {s["id"]: 0 for s in specs}
        by_key = {}
        futures = []
        for s in specs:
            f = client.submit(expand_chunk, s, key=f"peg-chunk-{s['tag']}-{s['id']}-0", pure=False)
            by_key[f.key] = s
            futures.append(f)
        seen: set[int] = set()
        ac = as_completed(futures, loop=client.loop)
        finished = False
        live = {f.key for f in futures}
        try:
            for f in completed(client, ac, deadline, "a layer's chunk jobs",  # never waits forever
                               starting=self.executor.starting_workers):
                if past(deadline):
                    raise OutOfTime("time limit inside a layer's chunk jobs")
                s = by_key[f.key]
                live.discard(f.key)
                try:
                    res = f.result()
                except Exception as e:  # KilledWorker past allowed-failures, or an error in the job
                    tries[s["id"]] += 1
                    if tries[s["id"]] > self.retries:
                        raise ChunkFailed(f"chunk {s['id']} failed {tries[s['id']]} times: {e}") from e
                    self.stats["reruns"] += 1
                    g = client.submit(expand_chunk, s,
                                      key=f"peg-chunk-{s['tag']}-{s['id']}-{tries[s['id']]}",
                                      pure=False)
                    by_key[g.key] = s
                    futures.append(g)
                    live.add(g.key)
                    ac.add(g)
                    continue
                finally:
                    f.release()
                if res["id"] in seen:
                    continue
                seen.add(res["id"])
                yield res
            finished = True
        except NoWorkers as e:
            raise ChunkFailed(f"{e}: {len(live)} chunks never finished") from None
        finally:
            if not finished and live:  # leaving early (time limit, a failed chunk): stop the rest
                client.cancel([g for g in futures if g.key in live])

    # ---- one layer ---------------------------------------------------------------------------
    def expand(self, space, layer: np.ndarray, backward: bool, previous, counters: dict, *,
               store=None, name: str = "layer", bound=None, hmax: int = -1,
               deadline: float | None = None) -> np.ndarray:
        """The next layer (as Space.expand), its successors generated by chunk jobs; past
        `deadline` OutOfTime (module docstring)."""
        from ...native_search.peg.bfs import _minus, default_store, merge_unique
        from ...native_search.peg.disk import ITEM, LayerBuilder, check_time
        if isinstance(previous, np.ndarray):
            previous = [previous]
        store = store or default_store()
        if bound is None:
            hmax = -1
        if len(layer) <= self.chunk:  # one chunk: no job is worth its start-up
            return space.expand(layer, backward, previous, counters, store=store, name=name,
                                bound=bound, hmax=hmax, deadline=deadline)
        folder = store.scratch(f"{name}-chunks")
        path, own = _layer_file(layer, store, folder)
        n = len(layer)
        size = max(self.chunk, -(-n // (4 * self.workers)))
        tag = uuid.uuid4().hex[:12]
        memory = max(64 << 20, store.memory // (2 * self.workers))
        specs = [{"id": i, "tag": tag, "space": space, "backward": backward, "bound": bound,
                  "hmax": hmax, "layer": str(path), "n": n, "lo": lo, "hi": min(n, lo + size),
                  "out": str(folder / f"chunk-{i}.u64"), "memory": memory}
                 for i, lo in enumerate(range(0, n, size))]
        builder = LayerBuilder(store, name, merge_unique, _minus)
        merged: set[int] = set()
        reruns = self.stats["reruns"]
        try:
            for res in self.run(specs, folder, deadline):
                if res["id"] in merged:  # a chunk is merged once
                    continue
                check_time(deadline, f"the merge of layer {name}'s chunks")
                merged.add(res["id"])
                out = Path(res["path"])
                size_out = out.stat().st_size // ITEM
                store.reserve(ITEM * size_out)   # the chunk's file, written by its job
                if size_out:
                    mm = np.memmap(out, dtype=np.uint64, mode="r", shape=(size_out,))
                    for i in range(0, size_out, 1 << 22):
                        builder.add(np.array(mm[i:i + (1 << 22)]))
                    del mm
                store.remove(out)
                counters["nodes"] += int(res["nodes"])
                counters["kept"] = counters.get("kept", 0) + int(res["count"])
            if len(merged) != len(specs):
                raise ChunkFailed(f"{len(specs) - len(merged)} chunks never finished")
            result = builder.finish(previous, deadline=deadline)
        except BaseException:
            builder.abandon()
            raise
        finally:
            if own:
                store.remove(path)
            store.drop_scratch(folder)
        self.stats["chunks"] += len(specs)
        counters["chunks"] = counters.get("chunks", 0) + len(specs)
        counters["chunk_reruns"] = counters.get("chunk_reruns", 0) + self.stats["reruns"] - reruns
        if builder.spilled:
            counters["spilled"] = counters.get("spilled", 0) + 1
        return result


def _layer_file(layer: np.ndarray, store, folder: Path) -> tuple[Path, bool]:
    """A file holding exactly `layer` (its own file if it is a whole-file memmap; else written to
    the scratch folder: own=True)."""
    fn = getattr(layer, "filename", None)
    if fn is not None and getattr(layer, "offset", 0) == 0 and \
            os.path.getsize(fn) == layer.nbytes:
        return Path(fn), False
    path = folder / "frontier.u64"
    for i in range(0, len(layer), 1 << 22):
        store.append(path, np.asarray(layer[i:i + (1 << 22)]))
    if not len(layer):
        path.touch()
    return path, True


class _Worker:
    """One job process (`python -m puzzlesat.compare.campaign.job_worker MODULE`, in its own
    session) that runs jobs one at a time; its stderr goes to a file in `folder`."""

    def __init__(self, module: str, folder: Path):
        import tempfile
        self.err = tempfile.TemporaryFile(dir=folder)
        self.proc = subprocess.Popen([sys.executable, "-m", "puzzlesat.compare.campaign.job_worker",
                                      module], start_new_session=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, bufsize=0)
        self.buf = b""

    def run(self, spec: Path, result: Path, cancelled) -> str | None:
        """The job's answer line ("ok" or "error ..."), or None when the process ended or the job
        was cancelled (then the process is killed)."""
        import select
        try:
            self.proc.stdin.write((json.dumps([str(spec), str(result)]) + "\n").encode())
        except (BrokenPipeError, OSError):
            return None
        fd = self.proc.stdout.fileno()
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return line.decode(errors="replace")
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                data = os.read(fd, 4096)
                if not data:               # the process ended
                    return None
                self.buf += data
            elif cancelled():
                _kill_group(self.proc.pid)
                return None

    def close(self) -> str:
        """Stop the process (its group); returns how it ended with its last error output."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            _kill_group(self.proc.pid)
        code = self.proc.wait()
        self.proc.stdout.close()
        self.err.seek(0)
        tail = self.err.read().decode(errors="replace").strip()[-300:]
        self.err.close()
        return f"exit {code}: {tail}"


def _kill_group(pid: int) -> None:
    import signal
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def pool_for(executor_name: str, jobs: int, scheduler: str | None = None, tls=None,
             insecure: bool = False, **kw: Any) -> ChunkPool:
    """A ChunkPool on a new campaign executor ('local' or 'dask': `scheduler`, `tls` and
    `insecure` as the campaign executor's); close it with close_pool."""
    from ..campaign.run import executor
    ex = executor(executor_name, jobs, scheduler, tls, insecure)  # InputError: a bad combination
    return ChunkPool(ex, **kw)


def close_pool(pool: ChunkPool) -> None:
    pool.executor.close()
