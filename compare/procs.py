"""Worker processes that never outlive puzzlesat: own process group, death signal, limits.

Each engine runs in a forked worker that (1) leads its own process group, so the parent can kill
the worker together with anything it started (an external solver), and a terminal's Ctrl-C reaches
only the parent; (2) asks Linux to SIGKILL it when the parent dies (PR_SET_PDEATHSIG), so a
`kill -TERM` or `kill -9` of puzzlesat leaves no solver running; (3) caps its address space
(RLIMIT_AS) when a memory limit is given.
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` to this process when its parent dies (Linux; False elsewhere)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def limit_memory(megabytes: float | None) -> None:
    """Cap this process's address space at `megabytes` (None: no cap)."""
    if megabytes is None:
        return
    cap = int(megabytes * 1024 * 1024)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def become_worker(memory_mb: float | None = None, parent: int | None = None) -> None:
    """Called first thing in a worker: own process group, death signal, memory cap. If the parent
    already died before the death signal was armed, exit at once."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    die_with_parent()
    if parent is not None and os.getppid() != parent:
        os._exit(1)
    limit_memory(memory_mb)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and kills us


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid` (the worker and whatever it started)."""
    for fn, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            fn(target, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            continue


def vm_size_mb(pid: int) -> float | None:
    """The process's current virtual size in MB (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def preexec_for_child() -> None:
    """`preexec_fn` for a subprocess an engine starts (an external solver): it dies with its parent."""
    die_with_parent()


def default_memory_mb() -> float:
    """Default per-worker memory cap: 80 % of physical memory (a run that needs more is UNKNOWN
    with reason 'memory' instead of pushing the machine into swap or the OOM killer)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return round(0.8 * pages * size / 2**20)
    except (ValueError, OSError):
        return 16384.0
