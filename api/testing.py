"""The conformance kit a family's author runs in their own tests: `assert_family_conforms`.

Plain asserts (no pytest needed to import or run it): it raises one AssertionError listing
everything the family gets wrong, and returns a `Conformance` report of what it checked.

>>> from puzzlesat.testing import assert_family_conforms
>>> report = assert_family_conforms("sliding", ["sliding/8-easy"], engines=["native", "cpsat"],
...                                 tasks=["optimize"], time_limit=60)
>>> report.instances, report.agreed, report.mutations_rejected > 0
(1, 1, True)

What it checks, on the instances given (default: the family's first three catalogue entries):

- **the contract**: `check_family` finds nothing missing;
- **the record of each instance**: `family_of` gives the family; `describe` is JSON (no
  `default=str` needed) with the instance's `name`; `render` gives text; `svg` (if the family
  draws) gives an `<svg`;
- **round trips**: `to_toml` (if the family has it) read back by the family's loader gives an equal
  instance with the same content hash; every checked solution's `solution_json` is JSON, and
  `solution_from_json` of it gives the solution back with the same objective;
- **every engine agrees**: `puzzlesat.compare` of the engines (default: the family's
  `default_engines`) on each task (default: all the family's tasks) is AGREE;
- **the checker rejects mutated solutions**: each checked solution's JSON form is mutated
  generically (a key dropped, an element of a list dropped, duplicated or moved, two swapped, a
  number moved by one, a string cut), deterministically (`seed`). `solution_from_json` and `check` must answer
  a mutation with CheckError or a verdict — never another exception. A mutation the checker
  accepts may honestly be another solution, so it is not a failure by itself; it is verified
  where the engines' answers allow: the checker must give it the same objective twice, no better
  than the optimum the engines agreed on, and — when a count enumerated every optimal solution —
  an accepted mutation with the optimal objective must be one of them (by `solution_key`). At
  least one mutation per instance must be rejected (a checker that accepts everything fails);
- **bad input is InputError**: every key of each instance's TOML form (`to_toml`) deleted, given
  a value of the wrong type, and (for integers) a huge or negative value: the loader must answer
  with an instance or an InputError naming the problem — never another exception (a plug-in's
  exception becomes a PluginError, which fails the kit); `bad_toml` adds cases of your own
  ({TOML text: regular expression the error must match}), each of which must be refused;
- **collections** (`files`): each file loads (a collection: one instance a line), and each line
  cut short or given a stray character loads, is skipped, or is refused with InputError naming
  the file and line.
"""
from __future__ import annotations

import copy
import json
import math
import random
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from .compare.api import compare, load
from .compare.campaign.spec import content_hash
from .core.family import Family, check_family
from .core.result import CheckError, InputError, PluginError, Result, Status, Task
from .families.instances import load_instances, load_text
from .families.registry import families, family_of, register_family, unregister_family

__all__ = ["assert_family_conforms", "Conformance", "mutations"]


@dataclass
class Conformance:
    """What `assert_family_conforms` checked (all of it passed)."""

    family: str
    instances: int = 0
    agreed: int = 0                  # comparisons (instance x task) that were AGREE
    solutions: int = 0               # solutions round-tripped through JSON
    mutations: int = 0               # mutated solutions given to the checker
    mutations_rejected: int = 0      # refused by solution_from_json or check (CheckError)
    mutations_accepted: int = 0      # accepted, and verified as far as the answers allow
    bad_inputs: int = 0              # malformed TOML tables and collection lines tried
    bad_inputs_refused: int = 0      # of which refused with InputError
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.family}: {self.instances} instances, {self.agreed} comparisons AGREE, "
                f"{self.solutions} solutions round-tripped, {self.mutations} mutations "
                f"({self.mutations_rejected} rejected, {self.mutations_accepted} accepted and "
                f"verified), {self.bad_inputs} bad inputs ({self.bad_inputs_refused} refused)")


def assert_family_conforms(family: Family | str, instances: Iterable[Any] | None = None, *,
                           engines: Iterable[str] | None = None, tasks: Iterable[Task | str] | None = None,
                           time_limit: float | None = 60, mutations_per_solution: int = 40,
                           solutions_per_instance: int = 3, bad_toml: dict[str, str] | None = None,
                           files: Iterable[str | Path] = (), seed: int = 0) -> Conformance:
    """Check that `family` (a Family record, registered for the check when it is not, or a
    registered family's name) keeps puzzlesat's contract on `instances` (instances, or names
    `puzzlesat.load` reads); AssertionError listing every problem, else the report.

    `engines` (default: the family's default engines) must agree on every task of `tasks`
    (default: all the family's tasks) within `time_limit` seconds per run; the checker is given
    `mutations_per_solution` mutations of each of the first `solutions_per_instance` solutions
    (`seed` picks them); `bad_toml` maps TOML texts to the pattern of the InputError each must
    raise; `files` are instance or collection files of the family that must load."""
    fam, registered = _family(family)
    try:
        return _Kit(fam, seed).run(instances, engines, tasks, time_limit, mutations_per_solution,
                                   solutions_per_instance, bad_toml or {}, list(files))
    finally:
        if registered:
            unregister_family(fam.name)


def _family(family: Family | str) -> tuple[Family, bool]:
    if isinstance(family, str):
        fams = families()
        assert family in fams, f"no family '{family}' (known: {', '.join(fams)})"
        return fams[family], False
    assert isinstance(family, Family), f"expected a puzzlesat.Family or a family name, got {family!r}"
    problems = check_family(family)
    assert not problems, f"family {family.name} breaks the contract:\n  - " + "\n  - ".join(problems)
    if family.name in families():
        return families()[family.name], False
    return register_family(family), True


class _Kit:
    def __init__(self, fam: Family, seed: int):
        self.fam, self.rng = fam, random.Random(seed)
        self.problems: list[str] = []
        self.report = Conformance(fam.name)

    def fail(self, text: str) -> None:
        self.problems.append(text)

    def run(self, instances: Iterable[Any] | None, engines: Iterable[str] | None,
            tasks: Iterable[Task | str] | None, time_limit: float | None, per_solution: int,
            per_instance: int, bad_toml: dict[str, str], files: list[str | Path]) -> Conformance:
        fam = self.fam
        for p in check_family(fam):
            self.fail(p)
        insts = self._instances(instances)
        names = list(engines) if engines is not None else [
            n for n in fam.default_engines if n in fam.engine_names()]
        todo = [Task(t) for t in tasks] if tasks is not None else list(fam.tasks)
        for t in todo:
            if t not in fam.tasks:
                self.fail(f"task {t} is not one of the family's ({', '.join(map(str, fam.tasks))})")
        for inst in insts:
            label = getattr(inst, "name", repr(inst))
            self._record(inst, label)
            self._toml_round_trip(inst, label)
            results: list[Result] = []
            for t in [t for t in todo if t in fam.tasks]:
                able = [n for n in names if t in fam.engine(n).tasks]
                if not able:
                    continue
                c = compare(inst, able, t, time_limit=time_limit)
                if c.verdict.value != "AGREE":
                    self.fail(f"{label}: {t}: the engines {', '.join(able)} do not agree "
                              f"({c.verdict.value}: {'; '.join(c.reasons)})")
                else:
                    self.report.agreed += 1
                results += c.results
            self._solutions(inst, label, results, per_solution, per_instance)
            self._bad_toml(inst, label)
        self.report.instances = len(insts)
        for text, pattern in bad_toml.items():
            self._refused(text, pattern)
        for f in files:
            self._collection(Path(f))
        if self.problems:
            raise AssertionError(f"family {fam.name} does not conform ({len(self.problems)} "
                                 "problems):\n  - " + "\n  - ".join(self.problems))
        return self.report

    # ---- instances -------------------------------------------------------------------------
    def _instances(self, instances: Iterable[Any] | None) -> list[Any]:
        fam = self.fam
        if instances is None:
            cat = fam.catalogue()
            assert cat, f"family {fam.name} has no catalogue: give instances=[...]"
            return [make() for make in list(cat.values())[:3]]
        out = []
        for i in instances:
            if isinstance(i, (str, Path)):  # a catalogue name, a file, FILE#LINE or TOML text
                spec = str(i)
                out.append(load(spec) if _is_name(spec) else load(spec, family=fam.name))
            else:
                out.append(i)
        assert out, "instances=[] checks nothing: give at least one instance"
        return out

    def _record(self, inst: Any, label: str) -> None:
        fam = self.fam
        try:
            owner = family_of(inst)
        except InputError as e:
            self.fail(f"{label}: family_of: {e}")
            return
        if owner.name != fam.name:
            self.fail(f"{label}: family_of gives {owner.name}, not {fam.name}")
        d = self._plain(label, "describe", fam.describe, inst)
        if d is not None:
            try:
                json.dumps(d)
            except (TypeError, ValueError) as e:
                self.fail(f"{label}: describe is not JSON ({e})")
            if not isinstance(d, dict) or d.get("name") != getattr(inst, "name", None):
                self.fail(f"{label}: describe must be a dict whose 'name' is the instance's name")
        text = self._plain(label, "render", fam.render, inst)
        if text is not None and not isinstance(text, str):
            self.fail(f"{label}: render gives {type(text).__name__}, not text")
        if fam.has_svg():
            pic = self._plain(label, "svg", fam.svg, inst)
            if pic is not None and not (isinstance(pic, str) and pic.lstrip().startswith("<svg")):
                self.fail(f"{label}: svg does not give SVG text")

    def _plain(self, label: str, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the kit reports, the author fixes
            self.fail(f"{label}: {what} raised {type(e).__name__}: {e}")
            return None

    def _toml_round_trip(self, inst: Any, label: str) -> None:
        fam = self.fam
        text = self._plain(label, "to_toml", fam.to_toml, inst)
        if text is None:
            return
        try:
            got, back = load_text(text, label, family=fam.name)
        except InputError as e:
            self.fail(f"{label}: to_toml's text does not load back: {e}")
            return
        if back != inst:
            self.fail(f"{label}: to_toml then from_toml gives another instance ({back!r:.200})")
        elif content_hash(fam, back) != content_hash(fam, inst):
            self.fail(f"{label}: to_toml round trip changes the content hash")

    # ---- solutions -------------------------------------------------------------------------
    def _solutions(self, inst: Any, label: str, results: list[Result], per_solution: int,
                   per_instance: int) -> None:
        fam = self.fam
        sols: list[Any] = []
        best, enumerated = None, None
        for r in results:
            if r.status not in (Status.OPTIMAL, Status.FEASIBLE):
                continue
            sols += [s for s in r.solutions if not any(_same(s, x) for x in sols)]
            if r.task is Task.OPTIMIZE and r.status is Status.OPTIMAL:
                best = r.objective
            identity = fam.engine(r.engine).identity(r.params) if r.engine in fam.engine_names() else {}
            if r.task is Task.COUNT and r.status is Status.OPTIMAL and r.count == len(r.solutions) \
                    and not any(identity.values()):  # orbits: a mutation may be another member
                enumerated = {fam.solution_key(inst, s) for s in r.solutions}
                if fam.sense is not None and r.solutions:
                    best = fam.check(inst, r.solutions[0])
        mod = fam.module
        rejected = 0
        for s in sols[:per_instance]:
            value = fam.check(inst, s)
            data = self._plain(label, "solution_json", fam.solution_json, inst, s)
            if data is None:
                continue
            try:
                text = json.dumps(data)
            except (TypeError, ValueError) as e:
                self.fail(f"{label}: solution_json is not JSON ({e})")
                continue
            try:
                back = mod.solution_from_json(inst, json.loads(text))
            except Exception as e:  # noqa: BLE001
                self.fail(f"{label}: solution_from_json of solution_json raised {type(e).__name__}: {e}")
                continue
            if not _same(back, s):
                self.fail(f"{label}: solution_from_json(solution_json(s)) is not s: {back!r:.120} "
                          f"!= {s!r:.120}")
            elif fam.check(inst, back) != value:
                self.fail(f"{label}: the checker values a solution and its JSON round trip differently")
            self.report.solutions += 1
            for m in mutations(json.loads(text), per_solution, self.rng):
                rejected += self._mutant(inst, label, m, best, enumerated)
        if sols and not rejected:
            self.fail(f"{label}: the checker rejected none of the mutated solutions "
                      f"({self.report.mutations} tried): does it check anything?")

    def _mutant(self, inst: Any, label: str, data: Any, best: Any, enumerated: Any) -> int:
        """1 if the mutation was rejected, 0 if accepted (and verified: else a problem)."""
        fam, mod = self.fam, self.fam.module
        self.report.mutations += 1
        shown = json.dumps(data)[:160]
        try:
            sol = mod.solution_from_json(inst, data)
            value = mod.check(inst, sol)
        except CheckError:
            self.report.mutations_rejected += 1
            return 1
        except Exception as e:  # noqa: BLE001 - the contract: CheckError on anything malformed
            self.fail(f"{label}: a mutated solution {shown} made the decoder or the checker raise "
                      f"{type(e).__name__}: {e} (the contract: CheckError)")
            return 1
        self.report.mutations_accepted += 1
        try:
            again = mod.check(inst, sol)
        except Exception as e:  # noqa: BLE001
            self.fail(f"{label}: the checker accepts {shown} once, then raises {type(e).__name__}: {e}")
            return 0
        if again != value:
            self.fail(f"{label}: the checker values {shown} as {value}, then as {again}")
        sense = fam.sense
        if sense is not None and best is not None and value is not None and (
                value < best if sense == "min" else value > best):
            self.fail(f"{label}: the checker accepts {shown} with objective {value}, better than "
                      f"the optimum {best} the engines agreed on")
        if enumerated is not None and (sense is None or value == best):
            key = fam.solution_key(inst, sol)
            if key not in enumerated:
                self.fail(f"{label}: the checker accepts {shown}"
                          + (f" (objective {value})" if value is not None else "")
                          + ", which is not among the solutions every engine counted")
        return 0

    # ---- bad input -------------------------------------------------------------------------
    def _bad_toml(self, inst: Any, label: str) -> None:
        import tomllib
        text = self.fam.to_toml(inst)
        if text is None:
            return
        table = tomllib.loads(text)
        for key, value in table.items():
            if key == "kind":
                continue
            for bad in _bad_values(value):
                data = {k: v for k, v in table.items() if k != key}
                if bad is not _DELETE:
                    data[key] = bad
                self._load_table(data, f"{label}: {key} deleted" if bad is _DELETE
                                 else f"{label}: {key} = {_toml_value(bad)}")

    def _load_table(self, data: dict[str, Any], what: str) -> None:
        text = "".join(f"{k} = {_toml_value(v)}\n" for k, v in data.items())
        self.report.bad_inputs += 1
        try:
            load_text(text, "<kit>", family=self.fam.name)
        except PluginError as e:
            self.fail(f"{what}: the loader raised instead of refusing: {e}")
        except InputError:
            self.report.bad_inputs_refused += 1
        except Exception as e:  # noqa: BLE001 - a built-in family's own bug
            self.fail(f"{what}: the loader raised {type(e).__name__}: {e}")

    def _refused(self, text: str, pattern: str) -> None:
        self.report.bad_inputs += 1
        try:
            load_text(text, "<bad_toml>", family=self.fam.name)
        except PluginError as e:
            self.fail(f"bad_toml {text!r:.80}: the loader raised instead of refusing: {e}")
            return
        except InputError as e:
            self.report.bad_inputs_refused += 1
            if not re.search(pattern, str(e)):
                self.fail(f"bad_toml {text!r:.80}: refused with {str(e)!r}, which does not match {pattern!r}")
            return
        except Exception as e:  # noqa: BLE001
            self.fail(f"bad_toml {text!r:.80}: the loader raised {type(e).__name__}: {e}")
            return
        self.fail(f"bad_toml {text!r:.80}: loaded, but should be refused ({pattern!r})")

    def _collection(self, path: Path) -> None:
        try:
            got = load_instances(str(path), family=self.fam.name)
        except InputError as e:
            self.fail(f"{path}: does not load: {e}")
            return
        lines = path.read_text(encoding="utf-8").splitlines()
        if path.suffix.lower() not in {s.lower() for s in self.fam.collections}:
            return
        with tempfile.TemporaryDirectory() as tmp:
            for g in got[:5]:
                n = int(g.ref.rpartition("#")[2])
                line = lines[n - 1]
                for bad in (line[: len(line) // 2], line + "?", "?" + line[1:]):
                    if not bad.strip():  # a blank line holds no instance by the contract
                        continue
                    p = Path(tmp) / f"bad{path.suffix}"
                    p.write_text(bad + "\n", encoding="utf-8")
                    self.report.bad_inputs += 1
                    try:
                        load_instances(str(p), family=self.fam.name)
                    except PluginError as e:
                        self.fail(f"{path}#{n} changed to {bad!r:.60}: the reader raised: {e}")
                    except InputError as e:
                        self.report.bad_inputs_refused += 1
                        if e.line != 1 or e.file is None:
                            self.fail(f"{path}#{n} changed to {bad!r:.60}: the error does not name "
                                      f"the file and line ({e})")
                    except Exception as e:  # noqa: BLE001
                        self.fail(f"{path}#{n} changed to {bad!r:.60}: the reader raised "
                                  f"{type(e).__name__}: {e}")


def _is_name(spec: str) -> bool:
    """A catalogue name (family/short) rather than a file or TOML text."""
    return "\n" not in spec and spec.partition("/")[0] in families() and not Path(spec).exists()


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. numpy arrays
        return repr(a) == repr(b)


# ---- generic mutations of a JSON value ----------------------------------------------------------
def mutations(data: Any, limit: int, rng: random.Random) -> list[Any]:
    """Up to `limit` distinct one-step mutations of the JSON value `data` (a solution's JSON form),
    drawn by `rng` from all of them: a key of a table dropped, an element of a list dropped,
    duplicated, moved to the end, two neighbours swapped, a number moved by +1 or -1, a string cut
    short, a boolean flipped.

    >>> sorted(map(json.dumps, mutations({"a": [1, 2]}, 100, random.Random(0))))
    ['{"a": [0, 2]}', '{"a": [1, 1, 2]}', '{"a": [1, 1]}', '{"a": [1, 2, 2]}', '{"a": [1, 3]}', '{"a": [1]}', '{"a": [2, 1]}', '{"a": [2, 2]}', '{"a": [2]}', '{}']
    """
    out: dict[str, Any] = {}
    seen = json.dumps(data, sort_keys=True)
    for path, node in _nodes(data, ()):
        for new in _edits(node):
            m = _replace(data, path, new)
            key = json.dumps(m, sort_keys=True)
            if key != seen:
                out.setdefault(key, m)
    keys = sorted(out)
    rng.shuffle(keys)
    return [out[k] for k in keys[:limit]]


def _nodes(v: Any, path: tuple[Any, ...]) -> Iterable[tuple[tuple[Any, ...], Any]]:
    yield path, v
    if isinstance(v, dict):
        for k in v:
            yield from _nodes(v[k], path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _nodes(x, path + (i,))


def _edits(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1]
    if isinstance(v, float):
        return [v + 1.0, v - 1.0] if math.isfinite(v) else []
    if isinstance(v, str):
        return [v[:-1]] if v else []
    if isinstance(v, dict):
        return [{k: x for k, x in v.items() if k != key} for key in v]  # a key dropped
    if isinstance(v, list):
        out = []
        for i in range(len(v)):
            out.append(v[:i] + v[i + 1:])                      # drop
            out.append(v[:i + 1] + [copy.deepcopy(v[i])] + v[i + 1:])  # duplicate
            if i + 1 < len(v):
                out.append(v[:i] + [v[i + 1], v[i]] + v[i + 2:])  # swap neighbours
                out.append(v[:i] + v[i + 1:] + [v[i]])           # move to the end
        return out
    return []


def _replace(data: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return copy.deepcopy(new)
    data = copy.copy(data)
    data[path[0]] = _replace(data[path[0]], path[1:], new)
    return data


_DELETE = object()


def _bad_values(v: Any) -> list[Any]:
    """A key deleted, a value of the wrong type, and for integers a huge and a negative one."""
    wrong = "x" if not isinstance(v, str) else 7
    out = [_DELETE, wrong, [] if not isinstance(v, list) else {"x": 1}]
    if isinstance(v, int) and not isinstance(v, bool):
        out += [10 ** 12, -1]
    if isinstance(v, list) and v and all(isinstance(x, int) for x in v):
        out += [v + [10 ** 9], v[:-1]]
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        out += [v[:1] + [v[0] + "?"] + v[1:], [x[:-1] for x in v]]
    return out


def _toml_value(v: Any) -> str:
    """A JSON-able value as TOML (tables inline)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)
