"""The default route: what `solve INSTANCE` runs when no engine is named (`-e default`).

For every task but `count` it is the family's `native` engine, as before. For `count` it is the
faster of two exact counters the family has, chosen per instance by a rule decided before
counting (measured: docs/benchmarks.md, "The default count route"):

- the family's **native counter**: its `native` engine, or — when that one refuses the instance
  (`native:dfs` needs exact piece copies) — the first other `native:*` engine that counts it
  (`native:count` for tilings with pieces used any number of times);
- the **model counter** `count:frontier` (models/count.py), when the family has one.

The rule, in order (the first that applies decides; `stats["route"]` names the engine that ran and
`stats["route_reason"]` the rule):

1. no model counter, or it does not take the options given -> native; no native engine counts
   the instance with those options -> the model counter;
2. orbits (`up_to_symmetry`): the model counter lists no solutions to put in classes -> native;
3. the native engine lists every solution (`native:dfs`: n-queens, tilings with exact piece
   copies) -> native: measured 1.4-50x faster than the model counter on every such row (8- to
   14-queens, Soma, the tetracube boxes, the 8x8 pentomino boards with holes);
4. the native engine counts without listing (`native:count`, a memoised region count) and the
   model counter's pre-check fails (`models.count.precheck`, linear in the formulation: keys
   outside the projection, or a frontier wider than ROUTE_BITS) -> native;
5. its frontier is narrower than MODEL_BITS -> native (as fast or faster on every such row:
   dominoes to 16x16, monomino/domino/tromino squares to 8x8);
6. otherwise -> the model counter (dominoes 18x18: 2x faster, 20x20: the native stopped at 120 s
   where the model counter counts in 11 s), with the native as its fallback: a model counter that
   stops at its memory budget (`memory_mb`) gives way to the native in the time left, and the
   result says so (`stats["route"]`, `fallback_after`).

A route that stops is UNKNOWN with its reason, never a partial number; an engine named explicitly
(`-e native`, `-e count:frontier`, `-e count:auto`) runs exactly that engine.
"""
from __future__ import annotations

from typing import Any

from ..core.config import Config
from ..core.family import Engine, Family
from ..core.result import InputError, PluginError, Task

DEFAULT = "default"   # the configuration name of the default route
COUNTER = "count:frontier"
ROUTE_BITS = 44       # the widest frontier (bits of a state) the route gives the model counter
MODEL_BITS = 20       # from this frontier width on, the model counter beats native:count (measured)


def is_default(config: Any) -> bool:
    """True for the default route's configuration (`default`, no options)."""
    return ((isinstance(config, str) and config.strip() == DEFAULT)
            or (isinstance(config, Config) and config.engine == DEFAULT))


def _accepts(fam: Family, eng: Engine, inst: Any, task: Task, given: dict[str, Any]) -> bool:
    """True when `eng` takes the options `given` and its own check (`validate`) the instance."""
    try:
        opts = eng.resolve_options({k: v for k, v in given.items() if k != "certify"}, task)
        if eng.validate is not None:
            eng.validator()(inst, opts)
    except Exception:  # InputError, or a plug-in's check that raises: not this route's to run
        return False
    return True


def native_counter(fam: Family, inst: Any, given: dict[str, Any]) -> Engine | None:
    """The family's native engine that counts `inst`: its `native` engine, else the first other
    `native:*` engine with task count that accepts the instance and the options; None if none."""
    natives = [e for e in fam.engines if e.name.split(":")[0] == "native" and Task.COUNT in e.tasks]
    natives.sort(key=lambda e: "native" not in e.aliases)  # the family's own choice first
    return next((e for e in natives if _accepts(fam, e, inst, Task.COUNT, given)), None)


def choose(fam: Family, inst: Any, given: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
    """(engine name, route stats, fallback engine name) of the default count route for `inst`
    with the options `given` (module docstring: the rule)."""
    native = native_counter(fam, inst, given)
    counter = fam.engine(COUNTER) if COUNTER in fam.engine_names() else None
    name = native.name if native is not None else "native"

    def to_native(why: str, **more: Any) -> tuple[str, dict[str, Any], None]:
        return name, {"route": name, "route_reason": why, **more}, None

    if counter is None:
        return to_native(f"family {fam.name} has no model counter")
    if given.get("up_to_symmetry"):
        return to_native("orbits (up_to_symmetry) need the solutions, and the model counter lists none")
    if not _accepts(fam, counter, inst, Task.COUNT, given):
        return to_native(f"{COUNTER} does not take these options or this instance")
    if native is None:
        return COUNTER, {"route": COUNTER, "route_reason": "no native engine of the family counts "
                         "this instance with these options"}, None
    if not native.counter:
        return to_native(f"{native.name} lists the solutions: measured faster than {COUNTER} on "
                         "every catalogue row where the native lists them (docs/benchmarks.md)")
    from ..models._ext import call_hook
    from ..models.count import precheck
    try:
        opts = counter.resolve_options({k: v for k, v in given.items() if k != "certify"}, Task.COUNT)
        f = call_hook(opts["formulation"], inst, Task.COUNT, opts, None).formulation
        why, measured = precheck(f, ROUTE_BITS)
    except (InputError, PluginError) as e:
        return to_native(f"the model counter's formulation failed: {e}")
    if why is not None:
        return to_native(f"the model counter's pre-check: {why}", **measured)
    bits = measured["frontier_bits"]
    if bits < MODEL_BITS:
        return to_native(f"the frontier is {bits} bits wide (under {MODEL_BITS}): {native.name} "
                         "is as fast or faster there", **measured)
    return COUNTER, {"route": COUNTER, "route_reason": f"the frontier is {bits} bits wide ({MODEL_BITS} "
                     f"to {ROUTE_BITS}): the model counter is faster than {native.name} there",
                     **measured}, name


__all__ = ["DEFAULT", "MODEL_BITS", "ROUTE_BITS", "choose", "is_default", "native_counter"]
