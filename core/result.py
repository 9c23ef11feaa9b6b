"""The vocabulary of a run, at the bottom of the house: what is asked, what an engine hands back,
what the runner reports, and the two errors every layer raises.

    Task        what is asked of an engine: optimize, count, feasible, unique
    Status      how a run ended: OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN, ERROR
    Context     what an engine gets besides the instance: options, time limit, reporting hooks
    Outcome     what an engine returns: solutions *unchecked*, claims, stats, solver params
    Result      what the runner reports: the Outcome after the family's checker saw every
                solution and every claim (`checked` solutions passed, `failed` did not)
    CertificateClaim  what an engine says backs its answer (proof files it wrote): unchecked
    Certificate       what the runner's checker found of those proofs (CertVerdict VERIFIED,
                      REJECTED, UNKNOWN, NOT-CERTIFIABLE): only the runner makes one
    InputError  bad input from a user: a message naming the file, line and field
    CheckError  a solution broke the puzzle's rules (raised by the independent checkers)
    PluginError a plug-in's code raised where its contract allows no exception (an InputError:
                one line naming the plug-in, the member called and what it raised)

A Result travels as one record (`to_record` / `from_record`): the CLI's JSON, the campaign
store, the lab and the benchmarks all write and read that one form. Nothing here imports a
solver, a search, or anything else of puzzlesat.

Times (the one place they are defined; every table, report and benchmark reads these):

    seconds          engine seconds: the engine's own work, wall clock, from the call of its run
                     function to its return (or to the kill at the hard limit), in its worker.
                     Everything the engine needs is loaded before the clock starts — its module,
                     the modules it declares (`Engine.preload`: its solver library, the searches
                     it calls) and their numba kernels from numba's cache — and a kernel compiled
                     or loaded inside the call is `stats["jit_seconds"]`, taken out of `seconds`.
                     The time limit is the engine's: its deadline starts with this clock.
    startup_seconds  the worker's fork, imports and kernel loading, before the engine's clock
                     (None where no worker ran: the precheck answered, or a record from before 0.4)
    check_seconds    the runner's checks after the engine returned: every solution through the
                     family's checker, every claim against them, proofs of a certificate; bounded
                     by the run's time limit of its own (past it: UNKNOWN, saying what was checked)
    stats            `cpu_seconds`: CPU seconds of the engine's call (its worker process, JIT
                     included); `jit_seconds`: numba compiling or loading kernels inside the call

Records written before 0.4 hold in `seconds` the runner's wall: fork, imports and checking
included (and `stats["engine_seconds"]`, the call alone, JIT included).
"""
from __future__ import annotations

import enum
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class Status(str, enum.Enum):
    """How an engine's run ended. A limit never yields INFEASIBLE or OPTIMAL."""

    OPTIMAL = "OPTIMAL"        # proved best (or, for count: all solutions counted)
    FEASIBLE = "FEASIBLE"      # a checked solution, optimality not proved
    INFEASIBLE = "INFEASIBLE"  # proved: no solution
    UNKNOWN = "UNKNOWN"        # a limit was reached before anything was proved
    ERROR = "ERROR"            # the engine failed, or a solution failed the checker

    def __str__(self) -> str:
        return self.value


class Task(str, enum.Enum):
    """What is asked of an engine."""

    OPTIMIZE = "optimize"  # best objective, with one solution
    COUNT = "count"        # the number of optimal solutions (all solutions where nothing is optimised)
    FEASIBLE = "feasible"  # any one solution
    UNIQUE = "unique"      # is there exactly one (optimal) solution? (Result.answer: UNIQUE, MULTIPLE, ...)

    def __str__(self) -> str:
        return self.value


class InputError(Exception):
    """Bad input from a user: a message naming the file, line and field that is wrong."""

    def __init__(self, message: str, *, file: str | os.PathLike[str] | None = None,
                 line: int | None = None, field: str | None = None):
        self.message, self.file, self.line, self.field = message, file, line, field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        if self.field is not None:
            where += f"{self.field}: "
        return where + self.message


class CheckError(Exception):
    """A solution broke the puzzle's rules (raised by the independent checkers)."""


class PluginError(InputError):
    """A plug-in's code (a family or engine not shipped with puzzlesat) raised where its contract
    allows no exception: one line naming the plug-in, the member called, what it raised and
    where. An InputError, so the command line prints it as one line and exits with status 2; in
    a run, the runner makes it the ERROR result's reason."""

    def __init__(self, message: str, *, plugin: str = "", file: str | os.PathLike[str] | None = None,
                 line: int | None = None, field: str | None = None):
        self.plugin = plugin
        super().__init__(message, file=file, line=line, field=field)


def one_line(e: BaseException) -> str:
    """An exception as one line: its type, its message (whitespace folded, at most 300
    characters) and the innermost frame it was raised in (file name and line)."""
    import traceback
    text = " ".join(str(e).split())
    text = f"{type(e).__name__}: {text[:300]}" if text else type(e).__name__
    frames = traceback.extract_tb(e.__traceback__) if e.__traceback__ is not None else []
    if frames:
        text += f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})"
    return text


# users meet these in tracebacks and `except` clauses: show them under the front door's name
InputError.__module__ = CheckError.__module__ = PluginError.__module__ = "puzzlesat"


class CertVerdict(str, enum.Enum):
    """What a certificate says (`puzzlesat.certify.Verdict` is this enum)."""

    VERIFIED = "VERIFIED"                # our checker verified every proof the answer needs
    REJECTED = "REJECTED"                # a proof does not prove its claim (reason says where)
    UNKNOWN = "UNKNOWN"                  # checking stopped at a limit: the answer is not certified
    NOT_CERTIFIABLE = "NOT-CERTIFIABLE"  # no proof can back this answer (reason says why)

    def __str__(self) -> str:
        return self.value


class _JsonView:
    """Read-only mapping access to `to_json()` (`c["verdict"]`, `c.get("proofs")`, `{**c}`): how
    certificates were read before they were typed; new code reads the attributes."""

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)

    def keys(self) -> Any:
        return self.to_json().keys()

    def __contains__(self, key: object) -> bool:
        return key in self.to_json()


def _text(x: Any) -> str | None:
    return None if x is None else str(x)


def _verdict(x: Any) -> CertVerdict:
    try:
        return CertVerdict(x)
    except ValueError:
        raise InputError(f"certificate: unknown verdict {str(x)[:40]!r}; known: "
                         + ", ".join(v.value for v in CertVerdict)) from None


def _mapping(x: Any, what: str) -> dict[str, Any]:
    if isinstance(x, _JsonView):
        return x.to_json()
    if not isinstance(x, dict):
        raise InputError(f"{what}: a JSON object expected, not {type(x).__name__}")
    return x


@dataclass(frozen=True)
class ProofArtifact(_JsonView):
    """One proof an engine says it wrote (unchecked): the CNF of one solver call and the solver's
    refutation of it, what the call claims, the proof's format and the solver; `extra` the
    producer's figures (solve_seconds, producer_check), carried into the checked entry."""

    claim: str | None
    cnf: str | None
    proof: str | None
    format: str | None = None
    solver: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = ("claim", "cnf", "proof", "format", "solver")

    def to_json(self) -> dict[str, Any]:
        """The engine's JSON form: claim, cnf, proof, format, solver, then the producer's figures."""
        return {"claim": self.claim, "cnf": self.cnf, "proof": self.proof, "format": self.format,
                "solver": self.solver, **self.extra}

    @classmethod
    def from_json(cls, d: Any) -> "ProofArtifact":
        d = _mapping(d, "certificate proof")
        return cls(_text(d.get("claim")), _text(d.get("cnf")), _text(d.get("proof")), _text(d.get("format")),
                   _text(d.get("solver")), {k: v for k, v in d.items() if k not in cls._KEYS})


@dataclass(frozen=True)
class CertificateClaim(_JsonView):
    """What an engine says backs its answer (`Outcome.certificate`): a *claim*, never checked by
    the engine. The runner turns it into a `Certificate` only after our checker ran on every
    proof (`compare.runner.check_certificate`); a claim has no verdict, so no engine can call
    its own answer VERIFIED.

    `proofs` the proof files written; `trusted` what the proofs rest on (the formulation);
    `folder` where they are; `blocking` (count) the number of solutions the refuted CNF blocks;
    `orbits` (orbit counts) the full enumeration the runner re-counts; `invariant` an INFEASIBLE
    answer by an invariant (e.g. "parity"), re-checked by the family; `refused` the engine says
    no proof can back this answer, and why (it becomes NOT-CERTIFIABLE); `extra` any other key.
    """

    claim: str | None = None
    proofs: tuple[ProofArtifact, ...] = ()
    trusted: str | None = None
    folder: str | None = None
    blocking: Any = None
    orbits: dict[str, Any] | None = None
    invariant: str | None = None
    refused: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = ("claim", "proofs", "trusted", "folder", "blocking", "orbits", "invariant", "verdict", "reason")

    @classmethod
    def refusal(cls, reason: str | None) -> "CertificateClaim":
        """The claim of an engine that knows no proof can back its answer."""
        return cls(refused=reason)

    def to_json(self) -> dict[str, Any]:
        """The JSON form engines wrote before claims were typed (the keys that are set)."""
        if self.refused is not None and not self.proofs:
            return {"verdict": CertVerdict.NOT_CERTIFIABLE.value, "reason": self.refused, **self.extra}
        out: dict[str, Any] = {}
        if self.invariant is not None:
            out["invariant"] = self.invariant
        out["claim"] = self.claim
        if self.proofs or self.invariant is None:
            out["proofs"] = [p.to_json() for p in self.proofs]
        for k in ("trusted", "folder", "blocking", "orbits"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, d: Any) -> "CertificateClaim":
        """A claim from its JSON form (an engine written before claims were typed returns a dict).
        A "verdict" in it is ignored but NOT-CERTIFIABLE (with its reason): a claim has none."""
        if isinstance(d, CertificateClaim):
            return d
        d = _mapping(d, "certificate")
        proofs = d.get("proofs")
        refused = None
        if d.get("verdict") == CertVerdict.NOT_CERTIFIABLE.value:
            refused = _text(d.get("reason")) or "the engine says no proof backs this answer"
        orbits = d.get("orbits")
        return cls(_text(d.get("claim")),
                   tuple(ProofArtifact.from_json(p) for p in proofs) if isinstance(proofs, (list, tuple)) else (),
                   _text(d.get("trusted")), _text(d.get("folder")), d.get("blocking"),
                   orbits if isinstance(orbits, dict) else None, _text(d.get("invariant")), refused,
                   {k: v for k, v in d.items() if k not in cls._KEYS})


@dataclass(frozen=True)
class ProofCheck(_JsonView):
    """One proof as our checker found it (an entry of `Certificate.proofs`): what it claims, the
    solver and format, the verdict and why, the files with their SHA-256, lemmas checked,
    checker CPU seconds, the proof's size; `extra` the producer's figures. `files` is None when
    the proof could not be read at all (REJECTED with the reason)."""

    claim: str | None
    solver: str | None
    format: str | None
    verdict: CertVerdict
    reason: str | None = None
    files: dict[str, str] | None = None
    sha256: dict[str, str] | None = None
    lemmas: int | None = None
    checker_seconds: float | None = None
    proof_bytes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = ("claim", "solver", "format", "verdict", "reason", "files", "sha256", "lemmas",
             "checker_seconds", "proof_bytes")

    @property
    def verified(self) -> bool:
        return self.verdict is CertVerdict.VERIFIED

    def to_json(self) -> dict[str, Any]:
        """The entry's JSON form (the keys in the order records have always had)."""
        out: dict[str, Any] = {"claim": self.claim, "solver": self.solver, "format": self.format,
                               "verdict": self.verdict.value, "reason": self.reason}
        if self.files is not None:
            out.update(files=self.files, sha256=self.sha256, lemmas=self.lemmas,
                       checker_seconds=self.checker_seconds, proof_bytes=self.proof_bytes)
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, d: Any) -> "ProofCheck":
        d = _mapping(d, "certificate proof")
        files = d.get("files")
        return cls(_text(d.get("claim")), _text(d.get("solver")), _text(d.get("format")),
                   _verdict(d.get("verdict")), _text(d.get("reason")),
                   dict(files) if isinstance(files, dict) else None,
                   dict(d["sha256"]) if isinstance(d.get("sha256"), dict) else None,
                   d.get("lemmas"), d.get("checker_seconds"), d.get("proof_bytes"),
                   {k: v for k, v in d.items() if k not in cls._KEYS})


# a Certificate's kinds and the keys of each one's JSON form, in order (records, stores, --json)
CERTIFICATE_KINDS = {
    "none": ("verdict", "reason"),
    "invariant": ("verdict", "reason", "format", "claim", "proofs", "trusted"),
    "proofs": ("verdict", "reason", "claim", "trusted", "folder", "orbits", "format", "proofs", "lemmas",
               "proof_bytes", "checker_seconds", "files", "sha256"),
    "cubes": ("verdict", "proofs", "format", "lemmas", "proof_bytes", "checker_seconds", "trusted"),
}


@dataclass(frozen=True)
class Certificate(_JsonView):
    """A checked certificate: what our side found of an answer's proof, made by the runner (or
    the peg cube runner) after its checker ran — never by an engine (an engine hands over a
    `CertificateClaim`). `verified` only if every proof was checked VERIFIED.

    kind  none       no proof was checked: NOT-CERTIFIABLE (or REJECTED) with the reason
          invariant  an INFEASIBLE answer by an invariant the family re-checked (`format`
                     "invariant:NAME", no proof file)
          proofs     refutation proofs (DRAT/DRUP/LRAT, `format` e.g. "drat"), each checked
                     (`proofs`), their lemmas, bytes and checker CPU seconds summed; `orbits` the
                     runner's re-count of an orbit count
          cubes      a peg cube run's proofs, one per refuted cube, summed (`proof_count` of them)

    `to_json()` / `from_json()` are the record's form: the keys of the kind in CERTIFICATE_KINDS
    order, then `extra` (keys of a record this version does not know, kept as they were).
    `c["verdict"]` and `c.get(...)` read that form, as before certificates were typed.
    """

    verdict: CertVerdict
    reason: str | None = None
    kind: str = "none"
    claim: str | None = None
    trusted: str | None = None
    folder: str | None = None
    orbits: dict[str, Any] | None = None
    format: str | None = None
    proofs: tuple[ProofCheck, ...] = ()
    proof_count: int | None = None
    lemmas: int | None = None
    proof_bytes: int | None = None
    checker_seconds: float | None = None
    files: dict[str, str] | None = None
    sha256: dict[str, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in CERTIFICATE_KINDS:
            raise ValueError(f"certificate kind {self.kind!r}; known: " + ", ".join(CERTIFICATE_KINDS))

    @classmethod
    def not_certifiable(cls, reason: str | None) -> "Certificate":
        """No proof can back the answer, and why."""
        return cls(CertVerdict.NOT_CERTIFIABLE, reason)

    @classmethod
    def rejected(cls, reason: str) -> "Certificate":
        """The answer's certificate does not stand, and why (no proof checked)."""
        return cls(CertVerdict.REJECTED, reason)

    @property
    def verified(self) -> bool:
        """True when every proof was checked VERIFIED."""
        return self.verdict is CertVerdict.VERIFIED

    def to_json(self) -> dict[str, Any]:
        """The record's form (`Result.to_record`, `solve --json`, the campaign store)."""
        out: dict[str, Any] = {}
        for k in CERTIFICATE_KINDS[self.kind]:
            if k == "verdict":
                out[k] = self.verdict.value
            elif k == "proofs":
                out[k] = self.proof_count if self.kind == "cubes" else [p.to_json() for p in self.proofs]
            elif k == "orbits" and self.orbits is None:
                continue
            else:
                out[k] = getattr(self, k)
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, d: Any) -> "Certificate":
        """A certificate from its record form (any version's); InputError if it is not one."""
        if isinstance(d, Certificate):
            return d
        d = _mapping(d, "certificate")
        proofs = d.get("proofs")
        if isinstance(proofs, int) and not isinstance(proofs, bool):
            kind = "cubes"
        elif isinstance(proofs, (list, tuple)):
            kind = "proofs" if "lemmas" in d or "folder" in d else "invariant"
        else:
            kind = "none"
        known = CERTIFICATE_KINDS[kind]
        orbits = d.get("orbits")
        return cls(_verdict(d.get("verdict")), _text(d.get("reason")), kind, _text(d.get("claim")),
                   _text(d.get("trusted")), _text(d.get("folder")), orbits if isinstance(orbits, dict) else None,
                   _text(d.get("format")),
                   tuple(ProofCheck.from_json(p) for p in proofs) if kind != "cubes" and proofs else (),
                   proofs if kind == "cubes" else None, d.get("lemmas"), d.get("proof_bytes"),
                   d.get("checker_seconds"), d.get("files"), d.get("sha256"),
                   {k: v for k, v in d.items() if k not in known})


@dataclass(frozen=True)
class Outcome:
    """What an engine returns: solutions in the family's own type (or its JSON form), unchecked.

    For COUNT, `solutions` holds every counted solution (the runner checks each one and that they
    are distinct), and `count` equals their number. For UNIQUE: OPTIMAL with one solution (the
    search that found no other was complete) or with two that differ (the runner checks both and
    that their solution keys differ), INFEASIBLE, or UNKNOWN / FEASIBLE with what was found. `stats` carries engine figures (nodes, model
    size as numbers `vars`, `clauses`, `constraints`, layer sizes); `params` the solver
    parameters the engine pinned (recorded with the result); `reason` says why (e.g. "parity" for
    an unsolvable sliding position). `certificate` (engines run with `certify=True`): a
    `CertificateClaim` (or its JSON form, a dict), *unchecked* — the proofs of its UNSAT calls, or
    why none can be had; the runner checks every proof and puts the checked `Certificate` in the
    Result.
    """

    status: Status
    objective: int | None = None
    count: int | None = None
    solutions: tuple[Any, ...] = ()
    stats: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    certificate: CertificateClaim | dict[str, Any] | None = None


class Context:
    """What an engine gets besides the instance: validated options, limits and reporting hooks.

    `progress(**fields)` feeds the live display (depth, nodes, …); `found(solution)` streams a
    solution as soon as it exists, so that it survives if the run is killed at its hard limit.
    """

    def __init__(self, options: dict[str, Any] | None = None, time_limit: float | None = None,
                 progress: Callable[[dict[str, Any]], None] | None = None,
                 found: Callable[[Any], None] | None = None) -> None:
        self.options = dict(options or {})
        self.time_limit = time_limit
        self.start = time.monotonic()
        self.deadline = None if time_limit is None else self.start + time_limit
        self._progress = progress
        self._found = found

    def remaining(self) -> float | None:
        """Seconds left before the time limit (None: no limit; never negative)."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        """True once the time limit has passed."""
        r = self.remaining()
        return r is not None and r <= 0.0

    def progress(self, **fields: Any) -> None:
        """Report search progress (shown live by the CLI; ignored elsewhere)."""
        if self._progress is not None:
            self._progress(fields)

    def found(self, solution: Any) -> None:
        """Report a solution as soon as it is found."""
        if self._found is not None:
            self._found(solution)

    def sub(self, options: dict[str, Any]) -> "Context":
        """The same limits and hooks with other options (an engine running another engine)."""
        c = Context(options, None, self._progress, self._found)
        c.time_limit, c.start, c.deadline = self.time_limit, self.start, self.deadline
        return c


# how the runner words a refutation (records from before the "refuted" termination mark)
_REFUTATION = re.compile(r"(solution \d+ (fails the checker|repeats an earlier one)|claims |\d+ solutions "
                         r"repeat earlier ones|certificate REJECTED)")

# the fields of a record, in order (the CLI's `solve --json`, the campaign store, lab, bench)
RECORD_FIELDS = ("instance", "family", "engine", "config", "task", "status", "objective", "count",
                 "solutions", "solutions_checked", "solutions_failed", "seconds", "startup_seconds",
                 "check_seconds", "over_limit", "params", "stats", "reason", "certificate", "answer")

# Task unique on the Status enum (no status of its own, so that every consumer of statuses —
# tables, stores, exit codes, PAR-2 — stays as it is):
#   UNIQUE      OPTIMAL, count 1, the one solution (checked); the engine's search was complete
#               (with certify: the proof that the CNF with that solution blocked is UNSAT)
#   MULTIPLE    OPTIMAL, two checked solutions that differ on the projection (the family's
#               solution_key); count None (the search stopped at the second; stats
#               count_lower_bound = 2), or the exact count when a full count found them
#   INFEASIBLE  INFEASIBLE, count 0
#   UNKNOWN     UNKNOWN, or FEASIBLE with one checked solution and no proof that it is alone
# For an optimisation family the question is about the optimal solutions: MULTIPLE needs the
# optimum proved, so two solutions of one value found before a limit are FEASIBLE.
ANSWERS = ("UNIQUE", "MULTIPLE", "INFEASIBLE", "UNKNOWN", "ERROR")


@dataclass
class Result:
    """A checked engine result: the runner's verdict on an Outcome.

    `solutions` passed the family's checker (`checked` of them were checked, `failed` did not
    pass and made the result ERROR). `family` is the family's name; `fam` and `inst` (not part of
    the record) let `to_record` write solutions in the family's JSON form and `_repr_svg_` draw.
    `seconds` is the engine's own work; `startup_seconds` and `check_seconds` are apart (the
    module docstring defines the three).
    """

    instance: str
    family: str
    engine: str
    task: Task
    status: Status
    objective: int | None
    count: int | None
    solutions: list[Any]
    seconds: float
    params: dict[str, Any]
    stats: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    checked: int = 0           # solutions that went through the checker
    config: str | None = None  # the configuration's name when it is more than the engine name
    failed: int = 0            # solutions the checker refused (the result is then ERROR)
    certificate: Certificate | None = None  # the checked certificate (runs with certify=True)
    fam: Any = field(default=None, repr=False, compare=False)
    inst: Any = field(default=None, repr=False, compare=False)
    startup_seconds: float | None = None  # the worker's fork, imports, kernel loading
    check_seconds: float | None = None    # the runner's checks after the engine returned

    @property
    def certified(self) -> bool:
        """True when the answer's every proof was checked VERIFIED (`certificate`)."""
        return self.certificate is not None and self.certificate.verified

    @property
    def refuted(self) -> bool:
        """True when this is ERROR because the runner's checks refuted the engine's answer (a
        solution failed the checker, a claim contradicts the checked solutions, a certificate was
        REJECTED: `stats["termination"] == "refuted"`), as opposed to an engine that failed to
        answer (raised, died, gave up). Records written before 0.4 carry no such mark: there the
        runner's own wording of a refutation is recognised."""
        if self.status is not Status.ERROR:
            return False
        term = self.stats.get("termination")
        if term is not None:
            return bool(term == "refuted")
        return bool(_REFUTATION.match(self.reason or ""))

    @property
    def label(self) -> str:
        """The configuration name where one was given, else the engine name."""
        return self.config or self.engine

    @property
    def unique(self) -> bool | None:
        """Task unique: True (UNIQUE), False (MULTIPLE), None (anything else, or another task)."""
        if self.task is not Task.UNIQUE or self.status is not Status.OPTIMAL:
            return None
        return self.count == 1

    @property
    def answer(self) -> str | None:
        """Task unique: UNIQUE, MULTIPLE, INFEASIBLE, UNKNOWN (FEASIBLE: one solution, not proved
        alone) or ERROR; None for the other tasks."""
        if self.task is not Task.UNIQUE:
            return None
        if self.status is Status.OPTIMAL:
            return "UNIQUE" if self.count == 1 else "MULTIPLE"
        if self.status in (Status.INFEASIBLE, Status.ERROR):
            return str(self.status)
        return "UNKNOWN"

    def finished(self) -> bool:
        """True when the engine proved its answer (nothing left to a limit)."""
        if self.task is Task.FEASIBLE:
            return self.status in (Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE)
        return self.status in (Status.OPTIMAL, Status.INFEASIBLE)

    def over_limit(self) -> bool:
        """True when the engine's call took longer than its time limit (it ran into the grace
        period: a solver that ignores interrupts), JIT inside the call included. Benchmark
        tables count such a run as unsolved."""
        t = self.params.get("time_limit")
        jit = self.stats.get("jit_seconds") if isinstance(self.stats, dict) else None
        jit = float(jit) if isinstance(jit, (int, float)) and not isinstance(jit, bool) else 0.0
        return t is not None and self.seconds + jit > float(t)

    def to_outcome(self) -> Outcome:
        """This result as an engine's Outcome (e.g. for an engine that wraps another)."""
        return Outcome(self.status, self.objective, self.count, tuple(self.solutions),
                       dict(self.stats), self.reason)

    def to_record(self, max_solutions: int | None = None) -> dict[str, Any]:
        """The result as one JSON-able record (RECORD_FIELDS; solutions in the family's JSON form,
        the first `max_solutions` of them)."""
        sols = self.solutions if max_solutions is None else self.solutions[:max_solutions]
        if self.fam is not None:
            sols = [self.fam.solution_json(self.inst, s) for s in sols]
        return {"instance": self.instance, "family": self.family, "engine": self.engine,
                "config": self.label, "task": str(self.task), "status": str(self.status),
                "objective": self.objective, "count": self.count, "solutions": list(sols),
                "solutions_checked": self.checked, "solutions_failed": self.failed,
                "seconds": round(self.seconds, 4), "startup_seconds": _round(self.startup_seconds),
                "check_seconds": _round(self.check_seconds), "over_limit": self.over_limit(),
                "params": self.params, "stats": self.stats, "reason": self.reason,
                "certificate": None if self.certificate is None else self.certificate.to_json(),
                "answer": self.answer}

    def to_json(self, fam: Any = None, inst: Any = None, max_solutions: int | None = None) -> dict[str, Any]:
        """The record as `solve --json` prints it (`to_record`)."""
        if fam is not None or inst is not None:
            self.fam = fam or self.fam
            self.inst = inst if inst is not None else self.inst
        return self.to_record(max_solutions)

    @classmethod
    def from_record(cls, rec: dict[str, Any], fam: Any = None, inst: Any = None) -> "Result":
        """The Result a record describes; with the family (and instance), solutions are decoded
        from their JSON form, else kept as JSON. The inverse of `to_record`."""
        sols = list(rec.get("solutions") or [])
        cert = rec.get("certificate")
        if fam is not None:
            sols = [fam.solution_from_json(inst, s) for s in sols]
        return cls(rec["instance"], rec["family"], rec["engine"], Task(rec["task"]),
                   Status(rec["status"]), rec.get("objective"), rec.get("count"), sols,
                   float(rec.get("seconds") or 0.0), dict(rec.get("params") or {}),
                   dict(rec.get("stats") or {}), rec.get("reason"),
                   int(rec.get("solutions_checked") or 0),
                   rec["config"] if rec.get("config") != rec["engine"] else None,
                   int(rec.get("solutions_failed") or 0),
                   Certificate.from_json(cert) if cert else None, fam, inst,
                   _float(rec.get("startup_seconds")), _float(rec.get("check_seconds")))

    def _repr_html_(self) -> str:
        """Jupyter: the result as a small HTML table (every text escaped, no script), with the
        first solution drawn below it when the family draws and the picture is small."""
        import html
        e = html.escape
        status = str(self.status) + (" (over limit)" if self.over_limit() else "")
        cells = (("instance", f"{self.family}/{self.instance}"), ("engine", self.label), ("task", str(self.task)),
                 ("status", status), ("objective", self.objective), ("count", self.count),
                 ("checked", self.checked), ("seconds", f"{self.seconds:.3f}"),
                 ("start-up s", "" if self.startup_seconds is None else f"{self.startup_seconds:.3f}"),
                 ("reason", self.reason))
        row = "".join(f'<td style="border:1px solid #ccc;padding:2px 6px">{e("" if v is None else str(v))}</td>'
                      for _, v in cells)
        head = "".join(f'<th style="border:1px solid #ccc;padding:2px 6px">{k}</th>' for k, _ in cells)
        out = (f'<table style="border-collapse:collapse;font-family:sans-serif;font-size:13px">'
               f"<thead><tr>{head}</tr></thead><tbody><tr>{row}</tr></tbody></table>")
        try:
            pic = self._repr_svg_()
        except Exception:  # a family that cannot draw this solution: the table alone
            pic = None
        if pic and len(pic) < 200_000:
            out += f"<div>{pic}</div>"
        return out

    def _repr_svg_(self) -> str | None:
        """Jupyter: the instance with the first solution drawn."""
        if self.inst is None or self.fam is None:
            return None
        svg: str | None = self.fam.svg(self.inst, self.solutions[0] if self.solutions else None)
        return svg


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _float(x: Any) -> float | None:
    return None if x is None else float(x)


__all__ = ["Status", "Task", "CertVerdict", "Certificate", "CertificateClaim", "ProofArtifact",
           "ProofCheck", "CERTIFICATE_KINDS", "Outcome", "Context", "Result", "InputError", "CheckError",
           "PluginError", "one_line", "RECORD_FIELDS", "ANSWERS"]
