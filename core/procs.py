"""Processes that never outlive puzzlesat: death signal, own process group, limits, group kills.

Used alike by the runner's engine worker, by searches that fork (parallel IDA*), by engines
that start an external solver, and by campaign jobs:

    die_with_parent   Linux PR_SET_PDEATHSIG: the kernel signals this process when its parent dies
    become_worker     first thing in a forked worker: own group, death signal, memory cap
    preexec_for_child `preexec_fn` of an external program: own session, dies with its parent
    limit_memory      cap the address space (RLIMIT_AS)
    kill_group        SIGKILL a process group (the worker and whatever it started)
    forking           around a fork: no thread holds numba's compiler lock, and the child's
                      garbage collections leave the parent's objects (and their pages) alone
    fork_pipes / reap_pipes   forked children that each write their results into a pipe, and
                      their end (killed if still running, waited for, pipes closed)
    split_command / find_program   an external program's command line: its words (pure), and
                      whether its program exists here (looked at only when it is about to run)
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import resource
import shlex
import shutil
import signal
import threading
from typing import IO, Any, Callable, Iterable, Iterator

from .result import InputError

_PR_SET_PDEATHSIG = 1
# Signs, in an error's text, that an allocation failed under RLIMIT_AS. "error return without
# exception set": a C extension whose allocation failed returned NULL without an exception (seen
# from numba compiling a kernel under a 300 MB cap); read as memory only under a cap.
MEMORY_SIGNS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory", "OutOfMemory",
                "failed to map segment", "could not load", "error return without exception set")


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> bool:
    """Ask the kernel to send `sig` to this process when its parent dies (Linux; False
    elsewhere). With `parent`: if that process is no longer our parent (it died before the
    request took effect), send `sig` to ourselves at once."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = bool(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        ok = False
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)
    return ok


def limit_memory(megabytes: float | None) -> None:
    """Cap this process's address space at `megabytes` (None: no cap)."""
    if megabytes is None:
        return
    cap = int(megabytes * 1024 * 1024)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


@contextlib.contextmanager
def forking() -> Iterator[None]:
    """Fork inside this block (a child leaves it only by exiting, or with the block's end):
    - numba's compiler lock is held across the fork, so no other thread of ours holds it then: a
      child that inherited it locked would hang at its first kernel compile or cache load (the
      runner forks from several threads, and loads kernels before each fork); the child releases
      it at once (`_release_in_child`, an at-fork hook), so threads it starts can compile too;
    - every object that exists now moves to the collector's permanent generation (`gc.freeze`),
      so a child's collections never walk them and never copy the pages they live on (a full
      collection in a fork of a 200 MB process costs 0.13 s of CPU, and as much memory again);
      the parent takes its objects back (`gc.unfreeze`) on leaving."""
    global _HELD
    import sys
    lock: Any = None  # numba's compiler lock (numba has no type information)
    if "numba" in sys.modules:
        from numba.core.compiler_lock import global_compiler_lock
        lock = global_compiler_lock
        lock.acquire()
        _HELD = (os.getpid(), threading.get_ident(), lock)
    gc.freeze()
    try:
        yield
    finally:
        if _HELD is not None and _HELD[0] == os.getpid():  # the parent (a child released at fork)
            _HELD = None
            lock.release()
        gc.unfreeze()


def fork_pipes(count: int, work: Callable[[IO[bytes]], None]) -> tuple[list[IO[bytes]], list[int]]:
    """`count` forked children (inside `forking`), each dying with its parent, running
    work(out) on the write end of a pipe of its own and exiting (status 1 if work raised):
    the read ends and the children's pids, for `reap_pipes` once read."""
    pipes: list[IO[bytes]] = []
    pids: list[int] = []
    with forking():
        for _ in range(count):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    os.close(r)
                    die_with_parent()
                    with os.fdopen(w, "wb") as out:
                        work(out)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            os.close(w)
            pipes.append(os.fdopen(r, "rb"))
            pids.append(pid)
    return pipes, pids


def reap_pipes(pipes: list[IO[bytes]], pids: list[int]) -> None:
    """The children of `fork_pipes` killed if still running and waited for; their pipes closed."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    for f in pipes:
        f.close()


# (pid, thread, lock) while a thread of process pid holds numba's compiler lock in `forking`.
_HELD: tuple[int, int, Any] | None = None


def _release_in_child() -> None:
    """After a fork: if the forking thread held the compiler lock for `forking`, let go of it."""
    global _HELD
    held = _HELD
    if held is not None and held[1] == threading.get_ident():
        _HELD = None
        held[2].release()


os.register_at_fork(after_in_child=_release_in_child)


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


def preexec_for_child() -> None:
    """`preexec_fn` for a program an engine starts (an external solver): its own session (so the
    worker's group kill reaches it by its group) and SIGKILL when its parent dies."""
    die_with_parent()
    os.setsid()


def kill_group(pid: int | None) -> None:
    """SIGKILL the process group led by `pid` (the worker and whatever it started); None (a
    process object never started) has nothing to kill."""
    if pid is None:
        return
    for fn, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            fn(target, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            continue


def vm_size_mb(pid: int | None) -> float | None:
    """The process's current virtual size in MB (Linux /proc), or None (also for None: a process
    object never started)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def group_cpu_seconds(pgid: int) -> float | None:
    """CPU seconds (user + system, with the reaped children's) of every live process in the
    process group `pgid` (Linux /proc), or None where /proc cannot tell."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, found = 0, False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid:  # fields from the state on: state ppid pgrp ... utime stime cutime cstime
            found = True
            total += sum(int(x) for x in fields[11:15])
    return total / tick if found else None


def default_memory_mb() -> float:
    """Default per-worker memory cap: 80 % of physical memory (a run that needs more is UNKNOWN
    with reason 'memory' instead of pushing the machine into swap or the OOM killer)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return round(0.8 * pages * size / 2**20)
    except (ValueError, OSError):
        return 16384.0


def default_workers() -> int:
    """CPU cores available to this process."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def split_command(cmd: str, what: str) -> list[str]:
    """`cmd` split into argv (pure: looks at nothing on the machine); InputError naming `what`
    when it is empty or not valid shell quoting."""
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise InputError(f"{what}: {cmd!r}: {e}") from None
    if not argv:
        raise InputError(f"{what}: empty command")
    return argv


def find_program(cmd: str, what: str) -> str:
    """The path of `cmd`'s program (on PATH, or as a path), or InputError naming `what`."""
    prog = split_command(cmd, what)[0]
    if os.sep in prog:
        if not os.path.isfile(prog):
            raise InputError(f"{what}: '{prog}' does not exist")
        if not os.access(prog, os.X_OK):
            raise InputError(f"{what}: '{prog}' is not executable")
        return prog
    found = shutil.which(prog)
    if found is None:
        raise InputError(f"{what}: '{prog}' not found on PATH")
    return found


# ---- numba kernels shared with forked workers -------------------------------------------------
# A forked worker that calls a numba kernel its parent never called loads it from numba's cache
# (or compiles it) anew: about 0.3-1 s per run, every run, as the parent never learns of it. The
# worker reports the kernels it holds; the parent loads them (from the cache the worker wrote)
# before its next fork, so every later worker inherits them.
_SKIP = ("numba", "llvmlite", "numpy", "ortools", "google", "pysat", "scipy", "encodings", "_")


_KERNEL_INDEX: set[str] = set()  # modules looked at (in the process that forked this one)
_KERNEL_MODULES: dict[str, tuple[str, ...]] = {}  # those of them that define kernels -> names


def _dispatchers_of(name: str, mod: Any) -> tuple[str, ...]:
    from numba.core.registry import CPUDispatcher
    space = getattr(mod, "__dict__", None)
    if not space or name.startswith(_SKIP):
        return ()
    return tuple(attr for attr, obj in list(space.items())
                 if isinstance(obj, CPUDispatcher) and getattr(obj.py_func, "__module__", None) == name)


def index_kernels() -> None:
    """Note which of the loaded modules define numba kernels. Call it before forking: a worker
    then looks only at those and at the modules it imported itself in `loaded_kernels`, instead
    of walking every module's objects, which copied 25 MB of the parent's memory pages (40 ms of
    CPU) in every worker of a 200 MB test process."""
    import sys
    if "numba" not in sys.modules:
        return
    for name in [k for k in sys.modules if k not in _KERNEL_INDEX]:
        mod = sys.modules.get(name)
        try:
            attrs = _dispatchers_of(name, mod) if mod is not None else ()
        except Exception:  # noqa: BLE001 - an odd module (a lazy proxy, say): an optimisation only
            attrs = ()
        if attrs:
            _KERNEL_MODULES[name] = attrs
        _KERNEL_INDEX.add(name)


def loaded_kernels() -> list[tuple[str, str, list[Any]]]:
    """(module, name, signatures) of every numba kernel this process holds compiled (nothing
    without numba loaded)."""
    import sys
    if "numba" not in sys.modules:
        return []
    mods = dict(_KERNEL_MODULES)
    for name in reversed(sys.modules):  # the newest first: the modules imported since the index
        if name in _KERNEL_INDEX:
            break
        mod = sys.modules.get(name)
        if mod is not None:
            mods[name] = _dispatchers_of(name, mod)
    out = []
    for name, attrs in mods.items():
        mod = sys.modules.get(name)
        for attr in attrs:
            sigs = getattr(getattr(mod, attr, None), "signatures", None)
            if sigs:
                out.append((name, attr, list(sigs)))
    return out


def prepare(module: str | None, preload: Iterable[str] = ()) -> int:
    """What an engine needs, loaded before its clock starts: its `module` and the `preload`
    modules imported, and from numba's on-disk cache every compiled signature of the kernels
    defined by them and by the loaded modules of `module`'s own package (the rest of its search:
    a wing such as native_search/sliding; `load_cached_kernels`). Returns how many signatures
    were loaded; an import error raises."""
    import importlib
    import sys
    names = [m for m in dict.fromkeys((module, *preload)) if m]
    for name in names:
        importlib.import_module(name)
    package = module.rpartition(".")[0] if module else ""
    if package:
        names += [m for m in list(sys.modules) if m.startswith(package + ".") and m not in names]
    return load_cached_kernels(names)


def load_cached_kernels(modules: Iterable[str]) -> int:
    """Load into this process, from numba's cache, the compiled signatures of the kernels that
    `modules` (already imported) define — every signature the cache holds for this machine and
    the kernel's current source — and return how many. Nothing is compiled: a signature the cache
    does not hold is compiled by the kernel's first call (JIT). Reads numba's cache (the internals
    of numba.core.caching and Dispatcher.compile's cache-hit path, as in numba 0.68); any failure
    only leaves the loading to the kernel's first call.

    Loaded machine code needs only what it links against — numba's runtime (NRT) and the hash
    secrets' symbols — not the compiler: numba's own cache load first refreshes the whole target
    context, importing every lowering registry it has (0.16-0.26 s of CPU, as much as a native
    peg run's search and checking together). puzzlesat's own kernels are loaded without that
    refresh (tests/test_honest_numbers.py runs every built-in native engine on kernels loaded so);
    another package's kernels (a plug-in's, which may use a numba extension) after it."""
    import sys
    if "numba" not in sys.modules:
        return 0
    try:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.registry import CPUDispatcher, cpu_target
    except Exception:  # noqa: BLE001 - an optimisation only
        return 0
    kernels = []
    for name in modules:
        mod = sys.modules.get(name)
        for obj in list(getattr(mod, "__dict__", {}).values()):
            if isinstance(obj, CPUDispatcher) and getattr(obj.py_func, "__module__", None) == name:
                kernels.append(obj)
    if not kernels:
        return 0
    own = __name__.partition(".")[0] + "."
    kernels.sort(key=lambda d: not d.py_func.__module__.startswith(own))  # ours first
    n = 0
    refreshed = False
    try:
        context = cpu_target.target_context
        codegen = context.codegen()
        magic = codegen.magic_tuple()
        with global_compiler_lock:  # no compile elsewhere sees the context half set up
            _link_only(context)
            for disp in kernels:
                if not refreshed and not disp.py_func.__module__.startswith(own):
                    context.refresh()  # numba's lowering registries and its extensions
                    refreshed = True
                n += _load_signatures(disp, context, codegen, magic)
    except Exception:  # noqa: BLE001 - an optimisation only
        return n
    return n


def _link_only(context: Any) -> None:
    """What machine code loaded from numba's cache links against, set up in `context`'s process:
    numba's runtime (NRT) and the symbols of the hash secrets (numba.cpython.hashing's import)."""
    import numba.cpython.hashing  # noqa: F401  (its import adds the hash secrets' symbols)
    from numba.core.runtime import rtsys
    rtsys.initialize(context)


def _load_signatures(disp: Any, context: Any, codegen: Any, magic: Any) -> int:
    """Every signature of `disp` that numba's cache holds for this machine and the kernel's
    current source, loaded (Dispatcher.compile's cache-hit path, without its refresh and never
    compiling); how many."""
    n = 0
    cache = disp._cache  # numba's cache object, read on purpose (load_cached_kernels)
    try:
        index = list(cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - left to the kernel's first call
        return 0
    for key in index:
        sig = key[0]
        if key[1] != magic or tuple(sig) in disp.overloads or cache._index_key(sig, codegen) != key:
            continue  # another machine's, loaded already, or of another source
        try:
            with cache._guard_against_spurious_io_errors():
                cres = cache._load_overload(sig, context)
        except Exception:  # noqa: BLE001 - left to the kernel's first call
            continue
        if cres is None:
            continue
        disp._cache_hits[sig] += 1
        if not cres.objectmode:
            context.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        disp.add_overload(cres)
        n += 1
    return n


def load_kernels(kernels: list[tuple[str, str, list[Any]]]) -> None:
    """Load into this process the kernels a worker reported (cached by it; any failure only means
    the next worker loads them itself)."""
    import importlib
    for module, attr, sigs in kernels:
        try:
            disp = getattr(importlib.import_module(module), attr)
            for sig in sigs:
                if sig not in disp.signatures:
                    disp.compile(sig)
        except Exception:  # noqa: BLE001 - an optimisation only
            continue
