"""One value for a run, made by one planner.

    Run     family, instance, engine, task, resolved options, limits, label: everything that
            decides a run, validated; the runner executes it, the campaign stores it as a job,
            the lab repeats it
    plan    configurations (names, `sat:time[encoding=totalizer]`, Engine records, functions)
            -> [Run], every option resolved and validated, the engines' own checks and the
            machine's (an external program on PATH) run, before anything runs

Code only by opt-in. Each configuration comes with its origin (`Origin`): typed by the user (on
the command line, or in an API call) or read from a file (a campaign spec, a `--configs @FILE`
list: the file and line). A configuration that would run code not shipped with puzzlesat — an
external program (`ext:*`'s `cmd`, its default included), a user engine by file or module path
(`my.py:run`, `my_pkg.models:run`), an engine registered by a user or a plug-in's entry point, an
instance of a plug-in family — is refused when it comes from a file unless `allow_code` is given
(`--allow-code`): one InputError naming the file, line, configuration and the exact command or
module, raised before that code is loaded (a user engine's file is not even imported). Typed by
the user, it runs as asked. `Run.user_code` says what such code a run executes (the campaign
store records it).

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
from ..core.family import Engine, Family, declared_tasks, with_unique
from ..core.limits import MAX_MEMORY_MB, MAX_SECONDS
from ..core.procs import default_memory_mb
from ..core.result import InputError, PluginError, Task, one_line
from ..families.registry import is_user_spec, spec_code
from .route import choose, is_default


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
    user_code: str | None = None         # the code not shipped with puzzlesat it runs (None: none)

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
                   self.memory_limit_mb, self.precheck, self.label, self.spec, dict(self.extra),
                   code_of(self.family, self.engine, opts))


@dataclass(frozen=True)
class Origin:
    """Where a configuration (or a family's instance) was given: typed by the user (`file` None:
    the command line or an API call) or read from `file` at `line` (`field`: e.g. configs.tot)."""

    file: str | None = None
    line: int | None = None
    field: str | None = None

    @property
    def typed(self) -> bool:
        return self.file is None


TYPED = Origin()
ALLOW_HINT = "pass --allow-code to run it; API: allow_code=True"


def engine_code(eng: Engine, options: dict[str, Any] | None = None) -> str | None:
    """The code not shipped with puzzlesat that `eng` runs with resolved `options`, in words: a
    user engine's file, module or entry point; an external engine's command (its default
    included); None when all of it ships with puzzlesat."""
    parts = []
    if eng.user:
        parts.append(eng.code or f"the user engine {eng.name}")
    cmd = eng.option("cmd")
    if eng.name.startswith("ext:") or cmd is not None:
        value = (options or {}).get("cmd", cmd.default if cmd is not None else None)
        if value is not None:
            parts.append(f"the command '{value}'")
    return "; ".join(parts) or None


def code_of(fam: Family, eng: Engine, options: dict[str, Any] | None = None) -> str | None:
    """`engine_code`, plus the plug-in family's code for an instance of a plug-in family."""
    parts = [p for p in (engine_code(eng, options),
                         f"the plug-in family {fam.name} ({fam.code})" if fam.user else None) if p]
    return "; ".join(parts) or None


def _refuse(origin: Origin, config: str, what: str) -> InputError:
    return InputError(f"configuration '{config}' would run {what}, which is not shipped with "
                      f"puzzlesat: refused ({ALLOW_HINT})", file=origin.file, line=origin.line,
                      field=origin.field)


def admit_spec(engine_name: str, config: str, origin: Origin = TYPED, allow_code: bool = False) -> None:
    """InputError when `engine_name` is a user engine spec (file.py:function,
    package.module:function) named in a file without `allow_code` — checked before the file or
    module is loaded."""
    if not origin.typed and not allow_code and is_user_spec(engine_name):
        raise _refuse(origin, config, spec_code(engine_name))


def admit_family(fam: Family, origin: Origin = TYPED, allow_code: bool = False) -> None:
    """InputError when an instance of a plug-in family is named in a file without
    `allow_code` (call before the family's loader or catalogue runs)."""
    if fam.user and not origin.typed and not allow_code:
        raise InputError(f"an instance of the plug-in family {fam.name} would run its code "
                         f"({fam.code or 'not shipped with puzzlesat'}), which is not shipped with "
                         f"puzzlesat: refused ({ALLOW_HINT})", file=origin.file, line=origin.line,
                         field=origin.field)


def admit_engine(eng: Engine, options: dict[str, Any], config: str, origin: Origin = TYPED,
                 allow_code: bool = False) -> None:
    """InputError when `eng` with resolved `options` executes code not shipped with puzzlesat
    (`engine_code`) and its configuration `config` was read from a file without `allow_code`."""
    what = engine_code(eng, options)
    if what is not None and not origin.typed and not allow_code:
        raise _refuse(origin, config, what)
    folder = (options or {}).get("proof_dir")
    if folder and not origin.typed and not allow_code:  # a file must not choose where we write
        raise InputError(f"configuration '{config}' would write its proofs into the folder "
                         f"{str(folder)!r}, which a file chose: refused (give proof_dir on the command "
                         f"line, or {ALLOW_HINT})", file=origin.file, line=origin.line, field=origin.field)


def admit(run: Run, origin: Origin = TYPED, allow_code: bool = False) -> None:
    """`admit_engine` for a planned run."""
    admit_engine(run.engine, run.options,
                 f"{run.label}={run.spec}" if run.label != run.spec else run.spec, origin, allow_code)


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
    if t > MAX_SECONDS:
        raise InputError(f"time limit {time_limit!r}: more than the limit of {MAX_SECONDS:.0e} "
                         "seconds (README, Limits; 0 or none: no limit)")
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
    if m > MAX_MEMORY_MB:
        raise InputError(f"memory limit {memory_mb!r}: more than the limit of {MAX_MEMORY_MB:,} MB "
                         "(README, Limits; none: no cap)")
    return m


def engine_of(fam: Family, what: str | Config | Engine | Callable) -> tuple[Engine, Config]:
    """The engine a configuration names, and the configuration (a function becomes an ad-hoc
    user engine `user:<name>` that takes any option)."""
    if isinstance(what, Engine):
        return what, Config(what.name, what.name)
    if callable(what) and not isinstance(what, str):
        name = "user:" + getattr(what, "__name__", "engine")
        eng = with_unique(Engine(name, what, declared_tasks(fam.tasks), (),
                                 (what.__doc__ or "").strip(), user=True, free_options=True))
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
         machine: bool = True, origins: Iterable[Origin] | None = None,
         instance_origin: Origin = TYPED, allow_code: bool = False) -> list[Run]:
    """One Run per configuration, every option resolved and validated, the engines' own checks
    (`validate`) and, with `machine`, what the options need on this machine checked — before
    anything runs; InputError otherwise. `task` defaults to the family's first.

    `origins` (one per configuration; default: all typed) and `instance_origin` say where they
    were given: code not shipped with puzzlesat named in a file is refused unless `allow_code`
    (the module docstring), before any of it is loaded or any validation of it runs.

    >>> from puzzlesat.families.instances import load_instance
    >>> fam, inst = load_instance("peg/hoppers")
    >>> [(r.label, r.engine.name, r.options["encoding"]) for r in
    ...  plan(fam, inst, ["tot=sat[encoding=totalizer]"], "optimize")]
    [('tot', 'sat:time', 'totalizer')]
    """
    configs = list(configs)
    origins = list(origins) if origins is not None else [TYPED] * len(configs)
    if len(origins) != len(configs):
        raise ValueError("plan: one origin per configuration")
    admit_family(fam, instance_origin, allow_code)
    for c, o in zip(configs, origins):  # a user engine's file is refused before it is imported
        if isinstance(c, (str, Config)) and not o.typed:
            cfg = c if isinstance(c, Config) else parse_config(c)
            admit_spec(cfg.engine, str(cfg), o, allow_code)
    task = Task(task) if task is not None else fam.tasks[0]
    if task not in fam.tasks:
        raise InputError(f"task '{task}' is not one of {fam.name}'s tasks: "
                         + ", ".join(map(str, fam.tasks)), field="task")
    routes: dict[int, tuple[dict[str, Any], str | None]] = {}
    for i, c in enumerate(configs):  # the default route: an engine chosen for this instance
        if is_default(c):
            given = {**(options or {}), **(c.opts if isinstance(c, Config) else {})}
            name, info, fallback = (choose(fam, inst, given) if task is Task.COUNT
                                    else ("native", {}, None))
            configs[i] = Config(name, name, c.options if isinstance(c, Config) else ())
            routes[i] = (info, fallback)
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
    options = dict(options or {})
    cert = options.pop("certify", None)  # engines without proof logging: NOT-CERTIFIABLE, not an error
    per = split_options([e for e, _ in pairs], options, [c.name for _, c in pairs])
    refused: dict[int, str] = {}
    for i, (e, c) in enumerate(pairs):
        given = c.opts.get("certify", per[i].get("certify", cert))
        if e.option("certify") is not None or e.free_options:  # a function engine takes any option
            if cert is not None:
                per[i].setdefault("certify", cert)
        elif given is not None:
            per[i].pop("certify", None)
            if _truthy(given):
                refused[i] = certify_refusal(fam, e)
    identity = {o.name for e in fam.all_engines() for o in e.options if o.identity}
    for (e, c), shared in zip(pairs, per):
        for key in identity & (set(shared) | set(c.opts)):
            opt = e.option(key)
            if opt is None or not opt.identity:
                raise InputError(f"engine {e.name} does not declare option '{key}', which decides "
                                 "which solutions count as different: it would answer another "
                                 "question (declare the option in the engine, or leave it out)")
    runs = []
    for i, ((e, c), shared, o) in enumerate(zip(pairs, per, origins)):
        opts = guarded(fam, e, "its option checks", e.resolve_options,
                       {**shared, **{k: v for k, v in c.opts.items()
                                     if k != "certify" or i not in refused}}, task)
        extra: dict[str, Any] = {"certify_refused": refused[i]} if i in refused else {}
        if routes.get(i, ({}, None))[0]:
            extra["route"] = routes[i][0]
        run = Run(fam, inst, e, task, opts, t, m, precheck, c.name, c.spec, extra,
                  user_code=code_of(fam, e, opts))
        admit(run, o, allow_code)
        runs.append(run)
    for r in runs:
        if r.options.get("certify") and "solver" in r.options:
            from ..families.options import PROOF_SOLVERS
            if r.options["solver"] not in PROOF_SOLVERS:
                raise InputError(f"certify: SAT solver '{r.options['solver']}' of engine "
                                 f"{r.engine.name} cannot log proofs; proof-logging solvers: "
                                 + ", ".join(PROOF_SOLVERS))
    for i, (_info, fallback) in routes.items():  # the native a stopped model counter gives way to
        if fallback is not None:
            c = configs[i]
            given = {k: v for k, v in {**(options or {}), **(c.opts if isinstance(c, Config) else {})}.items()
                     if fam.engine(fallback).option(k) is not None}
            [runs[i].extra["fallback"]] = plan(fam, inst, [fallback], task,
                                               options=given, time_limit=time_limit,
                                               memory_limit_mb=memory_limit_mb, precheck=precheck,
                                               machine=machine)
    for r in runs:
        if machine:
            guarded(fam, r.engine, "its option checks", r.engine.check_available, r.options)
        if r.engine.validate is not None:
            guarded(fam, r.engine, f"validate ({r.engine.validate})",
                    lambda r=r: r.engine.validator()(inst, r.options))
    return runs


def guarded(fam: Family, eng: Engine, what: str, fn: Callable, *args: Any) -> Any:
    """fn(*args) for code of a plug-in family's engine or a user engine (option checks, validate):
    an exception other than InputError becomes one PluginError naming the engine; the built-in
    engines' exceptions propagate as they are."""
    if not (fam.user or eng.user):
        return fn(*args)
    try:
        return fn(*args)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - someone else's code: contained, named
        who = f"plug-in family {fam.name}" if fam.user else f"user engine {eng.name}"
        raise PluginError(f"{who}: engine {eng.name}: {what} raised {one_line(e)}",
                          plugin=fam.name) from None


def _truthy(v: Any) -> bool:
    """An option value meaning yes (True, 1, 'true', 'yes', 'on')."""
    return v is True or (isinstance(v, (int, float)) and bool(v)) or (
        isinstance(v, str) and v.lower() in ("1", "true", "yes", "on"))


def certify_refusal(fam: Family, e: Engine) -> str:
    """Why engine `e` cannot certify its answers (it has no `certify` option)."""
    if e.name.startswith("native"):
        why = "a native search writes no proof (its answers are cross-validated, not certified)"
    elif e.name.startswith("cpsat"):
        why = ("CP-SAT with linear constraints: its LRAT proof logging covers pure clause models "
               "only, and this engine's formulation (integer variables, linear constraints) has no "
               "CNF form to give it")
    else:
        why = "it has no proof logging (no certify option)"
    able = [x.name for x in fam.all_engines() if x.option("certify") is not None]
    return (f"engine {e.name} cannot certify: {why}; "
            + (f"engines of {fam.name} that can: {', '.join(able)}" if able
               else f"family {fam.name} has no engine that logs proofs"))


def plan_one(fam: Family, inst: Any, engine: str | Config | Engine | Callable,
             task: Task | str | None = None, **kw: Any) -> Run:
    """The Run of one configuration (`plan` of a list of one)."""
    return plan(fam, inst, [engine], task, **kw)[0]
