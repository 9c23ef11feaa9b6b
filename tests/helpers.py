"""Shared test helpers that are neither oracles nor strategies: instance files, stores, the CLI."""
from __future__ import annotations

import gc
import os
import pickle
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
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


def tree(folder: Path) -> dict:
    """Every file under `folder` with its bytes and mtime (what a read-only command leaves as it was)."""
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


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


def cli(*args: str, cwd=None, timeout: float = 600, env: dict | None = None,
        input: str | None = None) -> subprocess.CompletedProcess:
    """`python -m puzzlesat *args` as a fork of this process: its own process (exit status,
    stdout and stderr as a subprocess gives them, `cwd`, nothing it changes reaches the test), but
    without a new interpreter's start and imports (about a second of CPU each with the solvers).
    With `env` it is a real subprocess (the environment is read at start-up)."""
    argv = [sys.executable, "-m", "puzzlesat", *args]
    if env is not None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env,
                              input=input)
    from puzzlesat.cli.main import main
    from puzzlesat.compare import runner
    from puzzlesat.core import procs
    runner._load_kernels()  # what earlier commands' workers loaded: this fork inherits it
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as kern:
        inp.write((input or "").encode())
        inp.flush()
        inp.seek(0)
        sys.stdout.flush()
        sys.stderr.flush()
        # numba's compiler lock free in the child, the test's objects frozen (core/procs.py)
        with procs.forking():
            pid = os.fork()
        if pid == 0:  # the child: never returns into the test
            gc.freeze()  # (leaving the block unfroze them)
            code = 1
            try:
                os.setpgid(0, 0)  # its own group, like a command started from a shell
                for fd, f in ((0, inp), (1, out), (2, err)):
                    os.dup2(f.fileno(), fd)
                sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)
                sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)
                sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", closefd=False)
                for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
                    signal.signal(s, signal.SIG_DFL)
                if cwd is not None:
                    os.chdir(cwd)
                try:
                    main(list(args))
                    code = 0
                except SystemExit as e:
                    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                    if not isinstance(e.code, (int, type(None))):
                        print(e.code, file=sys.stderr)
                except BaseException:
                    traceback.print_exc()
                    code = 1
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    with runner._KERNELS_LOCK:  # the kernels its engine workers held, for the test
                        pickle.dump(runner._KERNELS[:], kern)
                    kern.flush()
                finally:
                    os._exit(code)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired(argv, timeout)
            time.sleep(0.005)
        out.seek(0)
        err.seek(0)
        kern.seek(0)
        try:
            with runner._KERNELS_LOCK:
                runner._KERNELS.extend(pickle.load(kern))
        except Exception:  # noqa: BLE001 - an optimisation only (e.g. the command was killed)
            pass
        return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status),
                                           out.read().decode("utf-8", "replace"),
                                           err.read().decode("utf-8", "replace"))
