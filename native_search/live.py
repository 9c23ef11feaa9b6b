"""Live node counts from inside numba kernels: a kernel's periodic clock check calls `tick(nodes)`
in an `objmode` block; while a `reporting(hook)` block is active in this process, `hook(nodes)`
is called at most every REFRESH seconds (the CLI's status line refreshes during a long iteration
instead of only between iterations). Without a hook `tick` is `time.monotonic()`."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

REFRESH = 0.5                                     # seconds between two reports
_state: dict = {"hook": None, "last": 0.0}        # this process's hook and its last report


def tick(nodes: int) -> float:
    """time.monotonic(); also reports `nodes` (generated so far in this kernel call) to the hook."""
    now = time.monotonic()
    hook = _state["hook"]
    if hook is not None and now - _state["last"] >= REFRESH:
        _state["last"] = now
        hook(int(nodes))
    return now


@contextmanager
def reporting(hook: Callable[[int], None] | None) -> Iterator[None]:
    """`hook(nodes)` receives the live node count of the kernel calls made inside the block."""
    old = _state["hook"]
    _state["hook"], _state["last"] = hook, time.monotonic()
    try:
        yield
    finally:
        _state["hook"] = old
