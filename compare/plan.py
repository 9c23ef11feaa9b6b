"""One value for a run, made by one planner.

    Run     family, instance, engine, task, resolved options, limits, label: everything that
            decides a run, validated; the runner executes it, the campaign stores it as a job,
            the lab repeats it
    plan    configurations (names, `sat:time[encoding=totalizer]`, Engine records, functions)
            -> [Run], every option resolved and validated, the engines' own checks and the
            machine's (an external program on PATH) run, before anything runs

Options given once for several configurations (`-o key=value`, `compare(..., key=value)`) go to
every engine that declares them; `name.key` targets one configuration or engine. An option that
decides which solutions count as different (an identity option: `up_to_symmetry`) must be
declared by every engine it is given to, else the comparison would mix two questions: refused,
naming the engine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..core.config import Config, parse as parse_config
from ..core.family import Engine, Family
from ..core.procs import default_memory_mb
from ..core.result import InputError, Task


@dataclass(frozen=True)
class Run:
    """Everything that decides one run, resolved and validated (`plan` makes them)."""

    family: Family
    instance: Any
    engine: Engine
    task: Task
    options: dict[str, Any]              # every option of the engine with its value
    time_limit: float | None = None
    memory_limit_mb: float | None = None
    precheck: bool = True
    label: str = ""                      # the configuration's name (the engine's name if none)
    spec: str = ""                       # the configuration's canonical form, engine[k=v,...]
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # e.g. a repeat index

    @property
    def config(self) -> str | None:
        """The configuration's name where it is more than the engine's name."""
        return None if self.label in (self.engine.name, *self.engine.aliases) else self.label

    def params(self) -> dict[str, Any]:
        """What is recorded with the result: every option, the limits, the precheck."""
        return {**self.options, "time_limit": self.time_limit,
                "memory_limit_mb": self.memory_limit_mb, "precheck": self.precheck}

    def with_options(self, **changes: Any) -> "Run":
        """The same run with some options changed (resolved and validated again)."""
        given = {**self.options, **changes}
        opts = self.engine.resolve_options(given, self.task)
        return Run(self.family, self.instance, self.engine, self.task, opts, self.time_limit,
                   self.memory_limit_mb, self.precheck, self.label, self.spec, dict(self.extra))


def check_time_limit(time_limit: Any) -> float | None:
    """`time_limit` as a positive finite float (None: no limit), or InputError."""
    if time_limit is None:
        return None
    try:
        t = float(time_limit)
    except (TypeError, ValueError):
        raise InputError(f"time limit {time_limit!r}: expected a number of seconds") from None
    if not math.isfinite(t) or t <= 0:
        raise InputError(f"time limit {time_limit!r}: expected a positive finite number of seconds")
    return t


def check_memory_limit(memory_mb: Any) -> float | None:
    """`memory_mb` as a float of at least 64 MB (None: no cap; "default": 80 % of RAM), or InputError."""
    if memory_mb is None:
        return None
    if memory_mb == "default":
        return default_memory_mb()
    try:
        m = float(memory_mb)
    except (TypeError, ValueError):
        raise InputError(f"memory limit {memory_mb!r}: expected megabytes") from None
    if not math.isfinite(m) or m < 64:
        raise InputError(f"memory limit {memory_mb!r}: expected at least 64 (megabytes)")
    return m


def engine_of(fam: Family, what: str | Config | Engine | Callable) -> tuple[Engine, Config]:
    """The engine a configuration names, and the configuration (a function becomes an ad-hoc
    user engine `user:<name>` that takes any option)."""
    if isinstance(what, Engine):
        return what, Config(what.name, what.name)
    if callable(what) and not isinstance(what, str):
        name = "user:" + getattr(what, "__name__", "engine")
        eng = Engine(name, what, fam.tasks, (), (what.__doc__ or "").strip(), user=True,
                     free_options=True)
        return eng, Config(name, name)
    cfg = what if isinstance(what, Config) else parse_config(what)
    return fam.engine(cfg.engine), cfg


def split_options(engines: list[Engine], options: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """Per-engine options (one dict per engine) from `key=value` (every engine that declares
    `key`; an identity option must be declared by all) and `target.key=value` (target = an
    engine name, alias or configuration name)."""
    per: list[dict[str, Any]] = [{} for _ in engines]
    for raw_key, v in options.items():
        target, _, key = raw_key.rpartition(".") if "." in raw_key else ("", "", raw_key)
        hit = False
        for i, e in enumerate(engines):
            if target and target not in (e.name, *e.aliases, names[i]):
                continue
            if e.option(key) is not None:
                per[i][key] = v
                hit = True
            elif len(engines) == 1 or e.free_options and target:
                per[i][key] = v  # its own resolution names the option and the known ones
                hit = True
            elif target:
                raise InputError(f"engine {e.name} has no option '{key}'; its options: "
                                 + (", ".join(o.name for o in e.options) or "none"))
        if not hit:
            raise InputError(f"no engine among {', '.join(e.name for e in engines)} has option '{raw_key}'")
        if not target:
            identity = [e for e in engines if (o := e.option(key)) is not None and o.identity]
            lacking = [names[i] for i, e in enumerate(engines) if e.option(key) is None]
            if identity and lacking:
                raise InputError(f"option '{key}' decides which solutions count as different, and "
                                 f"{', '.join(lacking)} does not declare it: the engines would "
                                 "answer different questions (drop that engine, or declare the option)")
    return per


def plan(fam: Family, inst: Any, configs: Iterable[str | Config | Engine | Callable],
         task: Task | str | None = None, *, options: dict[str, Any] | None = None,
         time_limit: Any = None, memory_limit_mb: Any = "default", precheck: bool = True,
         machine: bool = True) -> list[Run]:
    """One Run per configuration, every option resolved and validated, the engines' own checks
    (`validate`) and, with `machine`, what the options need on this machine checked — before
    anything runs; InputError otherwise. `task` defaults to the family's first.

    >>> from puzzlesat.families.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers")
    >>> [(r.label, r.engine.name, r.options["encoding"]) for r in
    ...  plan(fam, inst, ["tot=sat[encoding=totalizer]"], "optimize")]
    [('tot', 'sat:time', 'totalizer')]
    """
    task = Task(task) if task is not None else fam.tasks[0]
    if task not in fam.tasks:
        raise InputError(f"task '{task}' is not one of {fam.name}'s tasks: "
                         + ", ".join(map(str, fam.tasks)), field="task")
    pairs = [engine_of(fam, c) for c in configs]
    if not pairs:
        raise InputError("no engine given")
    seen: set[str] = set()
    for _, c in pairs:
        if c.name in seen:
            raise InputError(f"configuration '{c.name}' given twice; name one of them (name=engine[...])")
        seen.add(c.name)
    for e, _ in pairs:
        if task not in e.tasks:
            raise InputError(f"engine {e.name} does not do task '{task}' (it does: "
                             + ", ".join(map(str, e.tasks)) + ")")
    t = check_time_limit(time_limit)
    m = check_memory_limit(memory_limit_mb)
    per = split_options([e for e, _ in pairs], options or {}, [c.name for _, c in pairs])
    identity = {o.name for e in fam.all_engines() for o in e.options if o.identity}
    for (e, c), shared in zip(pairs, per):
        for key in identity & (set(shared) | set(c.opts)):
            o = e.option(key)
            if o is None or not o.identity:
                raise InputError(f"engine {e.name} does not declare option '{key}', which decides "
                                 "which solutions count as different: it would answer another "
                                 "question (declare the option in the engine, or leave it out)")
    runs = []
    for (e, c), shared in zip(pairs, per):
        opts = e.resolve_options({**shared, **c.opts}, task)
        runs.append(Run(fam, inst, e, task, opts, t, m, precheck, c.name, c.spec))
    for r in runs:
        if machine:
            r.engine.check_available(r.options)
        if r.engine.validate is not None:
            r.engine.validator()(inst, r.options)
    return runs


def plan_one(fam: Family, inst: Any, engine: str | Config | Engine | Callable,
             task: Task | str | None = None, **kw: Any) -> Run:
    """The Run of one configuration (`plan` of a list of one)."""
    return plan(fam, inst, [engine], task, **kw)[0]
