"""A campaign spec (campaign.toml) and the jobs it expands to.

    name = "peg-encodings"
    instances = ["peg/ipc-p01", "peg/ipc-p0*", "boards/*.toml"]  # names, files, globs
                               # a collection file: each instance (labelled FILE#LINE);
                               # {path = "x.txt", family = "maze"}: the family reads the file
    task = "optimize"          # optimize | count | feasible | unique (default: each family's first
                               # task, as in solve/compare/lab: optimize, count for tilings)
    time_limit = 60            # seconds per job (hard)
    memory_limit_mb = 4096     # per job process (hard, RLIMIT_AS)
    repeat = 1                 # or: seeds = [0, 1, 2] (engines with a `seed` option get seed=s)
    precheck = true            # the instant invariant checks, as in `solve`
    split = 1                  # count: each job of an engine with options parts/part becomes
                               # `split` jobs, one per part of its search (the report sums them)
    [configs]
    native = "native"
    tot = "sat:time[encoding=totalizer]"

Every error (unknown key, unknown engine or option, a glob matching nothing) is an InputError
naming the file, line and field, raised before any job runs. A spec is data: a configuration that
would run code not shipped with puzzlesat (an external command, a user engine, a plug-in's engine
or family) is refused unless the spec is loaded with `allow_code` (`--allow-code`; the policy is
compare/plan.py's). A job carries its instance as the family's TOML text (`to_toml`), re-loaded
by the family's own loader in the job process and checked against the content hash; never a
pickle.
"""
from __future__ import annotations

import dataclasses
import enum
import fnmatch
import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.result import InputError, Task
from ...core.inputs import bounded_glob, key_line, load_toml, read_text
from ...core.limits import MAX_CONFIGS, MAX_GLOB, MAX_JOBS, MAX_MEMORY_MB, MAX_SECONDS, too_big

from ...core.config import Config, parse
from ...families.instances import load_instance, load_instances, load_text
from ...core.family import Family
from ...families.registry import families
from ..plan import ALLOW_HINT, Origin, Run, admit_engine, admit_family, admit_spec, plan

KEYS = ("name", "instances", "task", "time_limit", "memory_limit_mb", "repeat", "seeds", "precheck",
        "split", "configs")
SPLIT_OPTIONS = ("parts", "part")  # an engine with both can count one part of its search
GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class Job:
    """One run: an instance under one configuration, one repeat; `key` is its identity in the store."""

    key: str
    campaign: str
    instance: str        # the label: catalogue name or the path as the spec gives it
    instance_hash: str   # sha256 of the instance's content (its name excluded)
    family: str
    config: str          # the configuration's name
    config_spec: str     # its canonical form, e.g. sat:time[encoding=totalizer]
    engine: str          # the engine's registry name (aliases resolved)
    options: str         # JSON: every option of the engine with its value (defaults included)
    task: str
    repeat: int
    seed: int | None
    time_limit: float
    memory_limit_mb: int
    precheck: bool
    instance_toml: str   # the instance as its family's TOML text ("" if the family gives none)
    source: str = ""     # where to re-load it from without instance_toml (catalogue name, file)
    user_code: str | None = None  # code not shipped with puzzlesat that it runs (allowed by the user)

    def payload(self) -> dict[str, Any]:
        """What a job process needs (JSON-able)."""
        return dataclasses.asdict(self)


def job_instance(fam: Family, job: dict[str, Any]) -> Any:
    """The instance of a job payload, re-loaded by the family's own loader from its TOML text
    (or, for a family without `to_toml`, from its source), and checked against the job's
    content hash; InputError otherwise. Nothing is unpickled, nothing is imported by name."""
    allowed = bool(job.get("user_code"))
    text = job.get("instance_toml")
    if not isinstance(text, str):
        raise InputError("job payload: instance_toml must be a string")
    where = Origin(file=f"job {job.get('key')}", field="instance")
    if text:
        got, inst = load_text(text, name=str(job.get("instance")),
                              admit=lambda f: admit_family(f, where, allowed), family=fam.name)
    else:
        got, inst = load_instance(str(job.get("source")), admit=lambda f: admit_family(f, where, allowed),
                                  family=fam.name)
    if got.name != fam.name:
        raise InputError(f"job payload: the instance is of family {got.name}, not {fam.name}")
    if content_hash(fam, inst) != job.get("instance_hash"):
        raise InputError(f"job payload: instance {job.get('instance')} re-loaded does not match the "
                         "campaign's (content hash differs)")
    return inst


@dataclass
class Spec:
    """A loaded campaign spec: every instance loaded and every configuration validated."""

    name: str
    path: Path
    text: str
    task: Task | None          # None: the spec gives none, each family's first task
    time_limit: float
    memory_limit_mb: int
    repeats: list[tuple[int, int | None]]  # (repeat index, seed or None)
    precheck: bool
    configs: list[Config]
    instances: list[tuple[str, Family, Any, str]]  # (label, family, instance, content hash)
    split: int = 1
    allow_code: bool = False           # --allow-code: code named in the spec may run
    origins: dict[str, Origin] = dataclasses.field(default_factory=dict)  # config name -> its line
    instance_origin: Origin = Origin()  # the `instances` line
    sources: dict[str, str] = dataclasses.field(default_factory=dict)  # label -> load_instance source
    max_jobs: int = MAX_JOBS           # more jobs than this are refused (--max-jobs)

    def task_of(self, fam: Family) -> Task:
        """The task of the jobs on `fam`'s instances: the spec's, else the family's first."""
        return self.task if self.task is not None else fam.tasks[0]

    def tasks(self) -> dict[str, str]:
        """family -> task of its jobs, for every family among the instances."""
        return {f.name: str(self.task_of(f)) for f in {f.name: f for _, f, _, _ in self.instances}.values()}

    def task_text(self) -> str:
        """The task in words, as the store and the report say it (one task, or one per family
        when the spec gives none and its families' first tasks differ)."""
        return task_text(self.tasks(), self.task is None)

    def parts(self, eng) -> list[dict[str, int]]:
        """The option sets that split one job of engine `eng`: one per part, or [{}] unsplit."""
        names = {o.name for o in eng.options}
        if self.split == 1 or not set(SPLIT_OPTIONS) <= names:
            return [{}]
        return [{"parts": self.split, "part": i} for i in range(self.split)]

    def check_available(self) -> None:
        """InputError when a configuration needs something this machine lacks (an external
        solver's program not on PATH), naming the configuration; for jobs that run here."""
        for cfg in self.configs:
            for fam in {f.name: f for _, f, _, _ in self.instances}.values():
                eng = fam.engine(cfg.engine)
                try:
                    eng.check_available(eng.resolve_options(cfg.opts))
                except InputError as e:
                    raise InputError(f"{cfg}: {e.message}", file=self.path,
                                     line=key_line(self.text, cfg.name), field=f"configs.{cfg.name}") from None

    def job_count(self) -> int:
        """How many jobs `jobs()` makes (counted before any is built)."""
        n = 0
        for _, fam, _, _ in self.instances:
            n += sum(len(self.parts(fam.engine(c.engine))) for c in self.configs)
        return n * len(self.repeats)

    def jobs(self) -> list[Job]:
        """Every job, instance-major, in a stable order: each configuration planned on each
        instance (`plan`: options resolved and validated), then one job per repeat (seed) and
        per part of a split count. InputError beyond `max_jobs` (before any is built)."""
        n = self.job_count()
        if n > self.max_jobs:
            raise InputError(too_big("jobs", n, self.max_jobs) + "; give --max-jobs to run more",
                             file=self.path)
        out = []
        for label, fam, inst, h in self.instances:
            text = fam.to_toml(inst) or ""
            runs = plan(fam, inst, self.configs, self.task_of(fam), time_limit=self.time_limit,
                        memory_limit_mb=self.memory_limit_mb, precheck=self.precheck, machine=False,
                        origins=[self.origins.get(c.name, Origin(str(self.path))) for c in self.configs],
                        instance_origin=self.instance_origin, allow_code=self.allow_code)
            for run in runs:
                has_seed = run.engine.option("seed") is not None
                for (rep, seed), part in itertools.product(self.repeats, self.parts(run.engine)):
                    changes = dict(part)
                    if seed is not None and has_seed:
                        changes["seed"] = seed
                    r = run.with_options(**changes) if changes else run
                    out.append(job_of(self.name, label, h, r, rep, seed if has_seed else None,
                                      self.memory_limit_mb, text, self.sources.get(label, label)))
        return out


def job_of(campaign: str, label: str, h: str, run: Run, rep: int, seed: int | None,
           memory_limit_mb: int, instance_toml: str, source: str = "") -> Job:
    """The Job of a planned run (one repeat) in a campaign; keyed by `make_job`. An option added
    after 0.2 (`Option.since`) at its default is left out, so a store written before it resumes."""
    assert run.time_limit is not None, "a campaign plans every run with its time limit"
    later = {o.name: o.default for o in run.engine.options if o.since}
    opts = {k: v for k, v in run.options.items() if not (k in later and v == later[k])}
    keyed = dict(opts)
    if isinstance(keyed.get("formulation"), str):  # a hook keyed by its 0.3 name: old stores resume
        keyed["formulation"] = HOOKS_0_3.get(keyed["formulation"], keyed["formulation"])
    return make_job(campaign, label, h, run.family.name, run.label, run.spec, run.engine.name,
                    opts, str(run.task), rep, seed, float(run.time_limit), memory_limit_mb,
                    run.precheck, instance_toml, source or label, run.user_code, key_opts=keyed)


# The formulation hooks' module paths before the family wings (0.3): a job's key names a hook
# by its 0.3 path, so the jobs of stores written by 0.3 (ext:dimacs's `formulation` option) are
# not run again after the modules moved. A hook added later is keyed by its own path. (Written
# under puzzlesat.models. without it: the 0.3 modules exist no more, tests/test_layers.py.)
HOOKS_0_3 = {f"puzzlesat.models.{new}": f"puzzlesat.models.{old}" for new, old in (
    ("peg.sat:decision", "peg_sat:decision"),
    ("peg.resource:decision", "peg_resource:decision"),
    ("pentomino.cover:decision", "_tiling:decision"),
    ("sliding.time_indexed:decision", "sliding_time:decision"),
    ("maze.segments:hook", "maze_segments:hook"),
    ("maze.time_indexed:hook", "maze_time:hook"))}


def make_job(campaign: str, label: str, h: str, family: str, config: str, config_spec: str,
             engine: str, opts: dict[str, Any], task: str, rep: int, seed: int | None,
             time_limit: float, memory_limit_mb: int, precheck: bool, instance_toml: str,
             source: str = "", user_code: str | None = None,
             key_opts: dict[str, Any] | None = None) -> Job:
    """A Job, keyed by the sha256 of everything that decides its result (its identity in the
    store: the same job is never run twice into one store); `key_opts` (default `opts`) are the
    options as keyed."""
    ident = [label, h, config, engine, opts if key_opts is None else key_opts, task, rep, seed,
             time_limit, memory_limit_mb, precheck]
    key = hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()
    return Job(key[:32], campaign, label, h, family, config, config_spec, engine,
               json.dumps(opts, sort_keys=True, default=str), task, rep, seed, time_limit,
               memory_limit_mb, precheck, instance_toml, source or label, user_code)


def content_hash(fam: Family, inst: Any) -> str:
    """sha256 over the family and the instance's fields (name excluded), in a canonical JSON form."""
    fields = _canon(inst)
    if isinstance(fields, dict):
        fields.pop("name", None)
    return hashlib.sha256(json.dumps([fam.name, fields], sort_keys=True).encode()).hexdigest()


def _canon(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _canon(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, dict):
        return {str(k): _canon(x) for k, x in sorted(v.items(), key=lambda kv: repr(kv[0]))}
    if isinstance(v, (set, frozenset)):
        return sorted((_canon(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(v, (list, tuple)):
        return [_canon(x) for x in v]
    if hasattr(v, "tolist"):  # numpy arrays and scalars
        return v.tolist()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def load_spec(path: str | Path, allow_code: bool = False, max_jobs: int | None = None) -> Spec:
    """The Spec in `path`, fully validated; InputError naming file, line and field otherwise.
    Code not shipped with puzzlesat that it names is refused unless `allow_code` (before any of
    it is loaded); a spec that expands to more than `max_jobs` jobs (default MAX_JOBS), or a
    glob to more than MAX_GLOB instances, is refused before its instances are loaded."""
    max_jobs = MAX_JOBS if max_jobs is None else max_jobs
    path = Path(path)
    text = read_text(path)  # the bounded reader, once: what is parsed is what errors point into
    data = load_toml(path, text)

    def err(msg: str, key: str, line_key: str | None = None) -> InputError:
        return InputError(msg, file=path, line=key_line(text, line_key or key.split(".")[-1]), field=key)

    for k in data:
        if k not in KEYS:
            raise err(f"unknown key (known: {', '.join(KEYS)})", k)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError("missing or empty 'name' (a string naming the campaign)", file=path, field="name")
    try:
        task = Task(data["task"]) if "task" in data else None
    except (ValueError, TypeError):
        raise err("expected one of " + ", ".join(t.value for t in Task), "task") from None
    time_limit = data.get("time_limit", 60)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not math.isfinite(time_limit) or not 0 < time_limit <= MAX_SECONDS:
        raise err(f"expected a positive finite number of seconds, at most {MAX_SECONDS:.0e}",
                  "time_limit")
    mem = data.get("memory_limit_mb", 4096)
    if isinstance(mem, bool) or not isinstance(mem, int) or not 64 <= mem <= MAX_MEMORY_MB:
        raise err(f"expected an integer number of MB, from 64 to {MAX_MEMORY_MB:,}", "memory_limit_mb")
    precheck = data.get("precheck", True)
    if not isinstance(precheck, bool):
        raise err("expected true or false", "precheck")
    split = data.get("split", 1)
    if isinstance(split, bool) or not isinstance(split, int) or split < 1:
        raise err("expected a positive integer (jobs per count)", "split")
    if split > max_jobs:
        raise err(too_big("split", split, max_jobs), "split")
    if "repeat" in data and "seeds" in data:
        raise err("give either repeat or seeds, not both", "seeds")
    if "seeds" in data:
        seeds = data["seeds"]
        if (not isinstance(seeds, list) or not seeds
                or not all(isinstance(s, int) and not isinstance(s, bool) and -2 ** 31 <= s < 2 ** 31
                           for s in seeds)
                or len(set(seeds)) != len(seeds)):
            raise err("expected a non-empty list of distinct integers (32-bit)", "seeds")
        repeats: list[tuple[int, int | None]] = list(enumerate(seeds))
    else:
        n = data.get("repeat", 1)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise err("expected a positive integer", "repeat")
        if n > max_jobs:
            raise err(too_big("repeats", n, max_jobs) + "; give --max-jobs to run more", "repeat")
        repeats = [(i, None) for i in range(n)]

    raw_configs = data.get("configs")
    if not isinstance(raw_configs, dict) or not raw_configs:
        raise InputError("missing [configs] table (name = \"engine[key=value,...]\")", file=path,
                         field="configs")
    if len(raw_configs) > MAX_CONFIGS:
        raise err(too_big("configurations", len(raw_configs), MAX_CONFIGS), "configs")
    configs = []
    origins: dict[str, Origin] = {}
    for cname, ctext in raw_configs.items():
        try:
            cfg = parse(ctext, name=cname)
        except InputError as e:
            raise err(e.message, f"configs.{cname}", cname) from None
        configs.append(cfg)
        origins[cfg.name] = Origin(str(path), key_line(text, cname), f"configs.{cname}")
        admit_spec(cfg.engine, str(cfg), origins[cfg.name], allow_code)  # before it is imported
    inst_origin = Origin(str(path), key_line(text, "instances"), "instances")

    raw_inst = data.get("instances")
    if not isinstance(raw_inst, list) or not raw_inst or not all(
            isinstance(s, str) or (isinstance(s, dict) and isinstance(s.get("path"), str)
                                   and set(s) <= {"path", "family"}
                                   and isinstance(s.get("family", ""), str)) for s in raw_inst):
        raise err("expected a non-empty list of instance names, files or globs (or tables "
                  "{path = \"FILE\", family = \"NAME\"})", "instances")
    expanded: list[tuple[str, str, str, str | None]] = []  # (entry, label, source, family)
    for item in raw_inst:
        entry, fam_name = (item, None) if isinstance(item, str) else (item["path"], item.get("family"))
        if fam_name is not None and fam_name not in families():
            raise err(f"'{entry}': unknown family '{fam_name}'; known: " + ", ".join(families()),
                      "instances")
        try:
            expanded += [(entry, label, src, fam_name) for label, src in _expand(entry, path.parent)]
        except InputError as e:
            raise err(f"'{entry}': {e}", "instances") from None
    floor = len({label for _, label, _, _ in expanded}) * len(configs) * len(repeats)
    if floor > max_jobs:
        raise err(too_big("jobs", floor, max_jobs) + " (instances x configurations x repeats); "
                  "give --max-jobs to run more", "instances")
    instances = []
    sources: dict[str, str] = {}
    seen: set[str] = set()
    for entry, label, src, fam_name in expanded:
        if label in seen:
            continue
        seen.add(label)
        try:
            got = load_instances(src, admit=lambda f: admit_family(f, inst_origin, allow_code),
                                 family=fam_name)
        except InputError as e:
            if ALLOW_HINT in e.message:
                raise
            raise err(f"'{entry}': {e}", "instances") from None
        for g in got:  # a collection file: each instance, labelled FILE#LINE
            lab = label if g.ref == src else f"{label}#{g.ref.rpartition('#')[2]}"
            if lab in sources:
                continue
            instances.append((lab, g.family, g.instance, content_hash(g.family, g.instance)))
            sources[lab] = g.ref
        if len(instances) * len(configs) * len(repeats) > max_jobs:
            raise err(too_big("jobs", len(instances) * len(configs) * len(repeats), max_jobs)
                      + " (instances x configurations x repeats); give --max-jobs to run more",
                      "instances")

    fams = {f.name: f for _, f, _, _ in instances}
    for fam in fams.values():
        if task is not None and task not in fam.tasks:
            raise err(f"'{task}' is not one of {fam.name}'s tasks ({', '.join(map(str, fam.tasks))}); "
                      f"without `task` each family gets its first", "task")
    tasks = {n: task or f.tasks[0] for n, f in fams.items()}
    if split > 1 and any(t is not Task.COUNT for t in tasks.values()):
        raise err("split divides a count into jobs: needs task = \"count\""
                  + ("" if task else f" (no `task` given: {task_text({n: str(t) for n, t in tasks.items()}, True)})"),
                  "split")
    for cfg in configs:
        for fam in fams.values():
            try:
                eng = fam.engine(cfg.engine)
                ftask = tasks[fam.name]
                if ftask not in eng.tasks:
                    given = "the spec's `task`" if task else f"no `task` given: {fam.name}'s first task"
                    raise InputError(f"engine {eng.name} does not do task '{ftask}' ({given}; it does: "
                                     + ", ".join(map(str, eng.tasks)) + ")")
                opts = dict(cfg.opts)
                if "seed" in opts and any(s is not None for _, s in repeats):
                    raise InputError("sets seed, and the campaign gives seeds")
                if split > 1 and set(SPLIT_OPTIONS) & set(opts):
                    raise InputError("sets parts/part, and the campaign gives split")
                resolved = eng.resolve_options(opts)
            except InputError as e:
                raise err(f"{cfg}: {e.message}", f"configs.{cfg.name}", cfg.name) from None
            admit_engine(eng, resolved, str(cfg), origins[cfg.name], allow_code)
    if split > 1 and not any(set(SPLIT_OPTIONS) <= {o.name for o in f.engine(c.engine).options}
                             for c in configs for f in {f.name: f for _, f, _, _ in instances}.values()):
        raise err("no configuration's engine can split its count (options parts and part)", "split")
    spec = Spec(name.strip(), path, text, task, float(time_limit), mem, repeats, precheck, configs,
                instances, split, allow_code, origins, inst_origin, sources, max_jobs)
    n = spec.job_count()
    if n > max_jobs:
        raise err(too_big("jobs", n, max_jobs) + "; give --max-jobs to run more", "instances")
    return spec


def task_text(tasks: dict[str, str], defaulted: bool) -> str:
    """`optimize`, or `peg=optimize, pentomino=count (no task in the spec: each family's first)`."""
    if len(set(tasks.values())) == 1 and not defaulted:
        return next(iter(tasks.values()))
    text = ", ".join(f"{f}={t}" for f, t in sorted(tasks.items()))
    if len(set(tasks.values())) == 1:
        text = next(iter(tasks.values()))
    return text + (" (no task in the spec: each family's first)" if defaulted else "")


def _expand(entry: str, base: Path) -> list[tuple[str, str]]:
    """(label, source for load_instance) for a catalogue name, a file, or a glob of either."""
    if not GLOB_CHARS & set(entry):
        p = Path(entry)
        file, hash_, line = entry.rpartition("#")  # FILE#LINE: one line of a collection file
        if hash_ and line.isdigit() and not (base / p).exists() and not p.is_absolute() \
                and (base / file).is_file():
            return [(entry, f"{base / file}#{line}")]
        if not p.is_absolute() and (base / p).exists():
            return [(entry, str(base / p))]
        return [(entry, entry)]
    fam_name, slash, pattern = entry.partition("/")
    out: list[tuple[str, str]] = []
    if slash and fam_name in families():
        names = families()[fam_name].catalogue()
        out = [(f"{fam_name}/{n}", f"{fam_name}/{n}") for n in names if fnmatch.fnmatchcase(n, pattern)]
        if len(out) > MAX_GLOB:
            raise InputError(f"the glob matches more than {MAX_GLOB:,} catalogue names (README, Limits)")
    if not out:
        pat = entry if Path(entry).is_absolute() else str(base / entry)
        found = bounded_glob(pat, MAX_GLOB)  # bounded: matches and directory entries looked at
        for f in found:
            label = f if Path(entry).is_absolute() else str(Path(f).relative_to(base))
            out.append((label, f))
    if not out:
        raise InputError("the glob matches no instance (no catalogue name, no file)")
    return out
