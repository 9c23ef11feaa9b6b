"""Running, cross-validating, comparing: the layer that turns a request into checked results.

    plan       one value per run (family, instance, engine, task, options, limits, label)
    runner     executes a Run in a worker under hard limits; every solution through the checker
    crossval   several runs on one instance, judged AGREE / DISAGREE / INCOMPLETE / UNCHECKED
    lab        configurations x repeats side by side (size, time, effort); `bench` is its alias
    export     a formulation written for other solvers, and its size per constraint group
    campaign/  grids of jobs under hard limits, an SQLite store, Dask
    peg/       peg tools on the campaign executors: layer chunks, cubes, single-vacancy problems
    api        the public functions the front door (`puzzlesat`) re-exports

This package is also callable: `puzzlesat.compare(instance, engines, task, ...)` is
`puzzlesat.compare.api.compare`, so the function and the subpackage share the name without
shadowing each other (`import puzzlesat.compare.runner` works before or after `ps.compare(...)`).
"""
from __future__ import annotations

import sys
import types


class _CallableModule(types.ModuleType):
    """This package, callable as the `compare` function of the public API."""

    def __call__(self, *args, **kwargs):
        from .api import compare
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
