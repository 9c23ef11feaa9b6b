"""`certify(cnf, proof)`: check a refutation proof of a DIMACS CNF and say what was proved.

The verdict is VERIFIED (the proof derives the empty clause and every lemma it needs passed),
REJECTED (with the reason: the first needed lemma that fails, in backward order for DRAT — the
order in which they are checked — or "no empty clause"), or NOT-CERTIFIABLE (no proof can be had;
set by the producers, never by the checker); `Verdict` is puzzlesat.core.result.CertVerdict. Formats: `drat` (RUP, else RAT on the first literal),
`drup` (RUP only), `lrat` (hints; RAT hints too). From DRAT/DRUP the checker can write the LRAT of
what it checked (`lrat=FILE`: the core lemmas with their hints), which our LRAT checker then checks
again. Algorithms and trust: kernels.py.
"""
from __future__ import annotations

import functools
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core.result import CertVerdict, InputError
from . import kernels as K
from .parse import RAT_UNKNOWN, UNKNOWN_ID, Cnf, decode, parse_cnf, parse_drat, parse_lrat, sha256

FORMATS = ("drat", "drup", "lrat")


# What a certificate says: VERIFIED, REJECTED, UNKNOWN (the runner's check stopped at a limit),
# NOT-CERTIFIABLE. The one verdict enum of the project (puzzlesat.core.result.CertVerdict).
Verdict = CertVerdict


@dataclass(frozen=True)
class Certificate:
    """The outcome of checking one proof: format, files and their SHA-256, lemma count, checker
    CPU seconds (parsing included), verdict and reason; `stats` holds the checker's counts."""

    format: str | None
    verdict: Verdict
    reason: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    sha256: dict[str, str] = field(default_factory=dict)
    lemmas: int | None = None
    checker_seconds: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.verdict is Verdict.VERIFIED

    def to_json(self) -> dict[str, Any]:
        """JSON-able dict (the `certificate` field of a result)."""
        return {"format": self.format, "verdict": self.verdict.value, "reason": self.reason,
                "files": dict(self.files), "sha256": dict(self.sha256), "lemmas": self.lemmas,
                "checker_seconds": self.checker_seconds, "stats": dict(self.stats)}

    @classmethod
    def from_json(cls, d: Any) -> "Certificate":
        """The certificate `to_json` wrote (e.g. a peg cube's record); InputError if it is not one."""
        if not isinstance(d, dict):
            raise InputError(f"certificate: a JSON object expected, not {type(d).__name__}")
        try:
            verdict = Verdict(d.get("verdict"))
        except ValueError:
            raise InputError(f"certificate: unknown verdict {str(d.get('verdict'))[:40]!r}") from None
        return cls(d.get("format"), verdict, d.get("reason"), dict(d.get("files") or {}),
                   dict(d.get("sha256") or {}), d.get("lemmas"), d.get("checker_seconds"),
                   dict(d.get("stats") or {}))


def not_certifiable(reason: str, fmt: str | None = None, **files: str) -> Certificate:
    """A certificate saying no proof can be had, and why."""
    return Certificate(fmt, Verdict.NOT_CERTIFIABLE, reason, {k: str(v) for k, v in files.items()})


def _format_of(proof: Path, fmt: str) -> str:
    if fmt == "auto":
        return "lrat" if proof.suffix.lower() == ".lrat" else "drat"
    if fmt not in FORMATS:
        raise InputError(f"unknown proof format '{fmt}'; known: auto, " + ", ".join(FORMATS))
    return fmt


@functools.cache
def preload() -> None:
    """Load (or compile) every checking kernel into this process once, on a two-variable formula,
    so that checkers forked from it inherit the kernels instead of each loading them again."""
    with tempfile.TemporaryDirectory(prefix="puzzlesat-preload-") as d:
        cnf, proof = Path(d, "f.cnf"), Path(d, "f.drat")
        cnf.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
        proof.write_text("1 0\n0\n")
        certify(cnf, proof, lrat=Path(d, "f.lrat"))  # text DRAT, LRAT emitted and checked
        proof.write_bytes(bytes([0x61, 2, 0]))       # binary DRAT: add the unit clause 1
        certify(cnf, proof, format="drat")


def certify(cnf: str | Path, proof: str | Path, *, format: str = "auto",
            lrat: str | Path | None = None) -> Certificate:
    """Check `proof` (DRAT/DRUP text or binary, or LRAT text; `format` auto = LRAT for a .lrat
    file, else DRAT) against DIMACS `cnf`. `lrat`: also write the LRAT of the checked DRAT proof
    there and check it with the LRAT checker. Malformed files raise InputError."""
    cnf, proof = Path(cnf), Path(proof)
    fmt = _format_of(proof, format)
    if lrat is not None and fmt == "lrat":
        raise InputError("lrat= writes the LRAT of a DRAT/DRUP proof; this proof is LRAT already")
    t0 = time.process_time()
    f = parse_cnf(cnf)
    p = parse_lrat(proof) if fmt == "lrat" else parse_drat(proof)
    parse_seconds = round(time.process_time() - t0, 3)
    emitted = None
    if fmt == "lrat":
        verdict, reason, lemmas, stats = _check_lrat(f, p)
    else:
        verdict, reason, lemmas, stats, emitted = _check_drat(f, p, rat=fmt == "drat",
                                                              emit=lrat is not None)
    stats["parse_seconds"] = parse_seconds
    seconds = time.process_time() - t0
    files = {"cnf": str(cnf), "proof": str(proof)}
    if lrat is not None and verdict is Verdict.VERIFIED:
        assert emitted is not None, "a DRAT/DRUP check asked to emit LRAT returns it"
        lrat = _write(Path(lrat), emitted)
        files["lrat"] = str(lrat)
        t1 = time.process_time()
        lv, lreason, llemmas, _ = _check_lrat(f, parse_lrat(lrat))
        stats["lrat_lemmas"] = llemmas
        stats["lrat_check_seconds"] = round(time.process_time() - t1, 3)
        stats["lrat_verdict"] = lv.value
        if lv is not Verdict.VERIFIED:
            verdict, reason = Verdict.REJECTED, f"internal: the emitted LRAT fails the LRAT checker: {lreason}"
    digests = {k: sha256(v) for k, v in files.items()}
    return Certificate(fmt, verdict, reason, files, digests, lemmas, round(seconds, 3), stats)


def _write(path: Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary file renamed into place (never half-written)."""
    import os
    import tempfile
    if not (path.parent if str(path.parent) else Path(".")).is_dir():
        raise InputError(f"cannot write the LRAT proof: folder {str(path.parent)!r} does not exist",
                         file=path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# ---- DRAT -------------------------------------------------------------------------------------
def _where(p, s: int) -> str:
    w = int(p.steps.where[s])
    return f"byte offset {w}" if p.binary else f"line {w}"


def _check_drat(f: Cnf, p, *, rat: bool, emit: bool):
    """(verdict, reason, lemmas, stats, LRAT bytes or None) of DRAT proof p against f."""
    cl, st = f.clauses, p.steps
    nf = len(cl)
    lemmas = int(np.count_nonzero(~p.delete))
    stats: dict[str, Any] = {"binary": p.binary, "steps": len(st), "lemmas": lemmas,
                             "deletions": len(st) - lemmas}
    nvars = max(f.nvars, p.maxvar, 1)
    lits = np.concatenate((cl.lits, st.lits))
    beg = np.concatenate((cl.beg[:-1], st.beg + len(cl.lits)))
    pivot = np.concatenate((cl.pivot, st.pivot))
    taut = np.concatenate((cl.taut, st.taut))
    t0 = time.process_time()
    (out, step, detail, kstep, target, ignored, core, hstart, hlen, hbuf, final_hints,
     counts) = K.drat_check(lits, beg, pivot, taut, nf, p.delete, nvars, rat, emit)
    stats["check_seconds"] = round(time.process_time() - t0, 3)
    stats.update(missing_deletions=int(counts[0]), ignored_unit_deletions=int(counts[1]),
                 core_lemmas=int(counts[2]), rat_lemmas=int(counts[3]),
                 repropagations=int(counts[4]), conflict_step=int(kstep))
    if out == K.NO_CONFLICT:
        return (Verdict.REJECTED, f"no empty clause: unit propagation over the formula and all "
                f"{lemmas} lemmas finds no conflict", lemmas, stats, None)
    if out == K.INTERNAL:
        return (Verdict.REJECTED, f"internal: inconsistent top level at step {step + 1} "
                f"({_where(p, step)}); please report", lemmas, stats, None)
    if out == K.FAIL:
        n = int(np.count_nonzero(~p.delete[:step + 1]))
        what = f"lemma {n} ({_where(p, step)})"
        if st.beg[step + 1] == st.beg[step]:
            reason = f"{what} is the empty clause, but unit propagation finds no conflict"
        elif detail < 0:
            reason = f"{what} {st.clause(step)} is not RUP" + ("" if rat else " (DRUP: no RAT)")
        else:
            d = int(detail)
            src = (f"formula clause {d + 1}" if d < nf else
                   f"lemma at {_where(p, d - nf)}")
            piv = decode([st.pivot[step]])[0]
            dl = decode(lits[beg[d]:beg[d + 1]])
            reason = (f"{what} {st.clause(step)} is not RUP, nor RAT on {piv}: the resolvent with "
                      f"{src} {sorted(dl, key=abs)} is not RUP")
        return Verdict.REJECTED, reason, lemmas, stats, None
    emitted = None
    if emit:
        emitted = K.emit_lrat(lits, beg, pivot, nf, p.delete, kstep, target, ignored, core, hstart,
                              hlen, hbuf, final_hints).tobytes()
    return Verdict.VERIFIED, None, lemmas, stats, emitted


# ---- LRAT -------------------------------------------------------------------------------------
def _check_lrat(f: Cnf, p):
    """(verdict, reason, lemmas, stats) of LRAT proof p against f."""
    cl, st = f.clauses, p.steps
    nf, ns = len(cl), len(st)
    adds = np.flatnonzero(~p.delete)
    lemmas = len(adds)
    stats: dict[str, Any] = {"steps": ns, "lemmas": lemmas, "deletions": ns - lemmas}
    if np.any(cl.beg[1:] == cl.beg[:-1]):
        stats["empty_clause_id"] = int(np.flatnonzero(cl.beg[1:] == cl.beg[:-1])[0]) + 1
        return Verdict.VERIFIED, None, lemmas, stats
    # ids -> dense clause indices (formula clause i: id i+1; step s: nf + s)
    keys = np.concatenate((np.arange(1, nf + 1, dtype=np.int64), p.ids[adds]))
    dense = np.concatenate((np.arange(nf, dtype=np.int64), nf + adds))
    order = np.argsort(keys, kind="stable")
    keys, dense = keys[order], dense[order]
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if len(dup):
        s = int(dense[dup[0] + 1]) - nf
        return (Verdict.REJECTED, f"clause id {int(keys[dup[0]])} (line {int(st.where[s])}) is "
                "defined twice", lemmas, stats)

    def lookup(ids):
        i = np.searchsorted(keys, ids)
        i = np.minimum(i, max(len(keys) - 1, 0))
        ok = (keys[i] == ids) if len(keys) else np.zeros(len(ids), bool)
        return np.where(ok, dense[i] if len(keys) else 0, -1)

    raw = p.hints
    mapped = lookup(np.abs(raw))
    hints = np.where(raw > 0, np.where(mapped >= 0, mapped, UNKNOWN_ID),
                     np.where(mapped >= 0, -2 - mapped, RAT_UNKNOWN)).astype(np.int64)
    lits = np.concatenate((cl.lits, st.lits))
    beg = np.concatenate((cl.beg[:-1], st.beg + len(cl.lits)))
    pivot = np.concatenate((cl.pivot, st.pivot))
    taut = np.concatenate((cl.taut, st.taut))
    nvars = max(f.nvars, p.maxvar, 1)
    t1 = time.process_time()
    out, s, kind, pos, cand = K.lrat_check(lits, beg, pivot, taut, nf, p.delete, hints, p.hbeg, nvars)
    stats["check_seconds"] = round(time.process_time() - t1, 3)
    if out == K.OK:
        stats["empty_clause_id"] = int(p.ids[s])
        return Verdict.VERIFIED, None, lemmas, stats
    if out == K.NO_CONFLICT:
        return Verdict.REJECTED, "no empty clause: the proof never derives it", lemmas, stats

    def cid(d):
        return int(d) + 1 if d < nf else int(p.ids[d - nf])

    what = f"lemma id {int(p.ids[s])} (line {int(st.where[s])}) {st.clause(s)}"
    h = int(raw[pos]) if 0 <= pos < len(raw) else None
    piv = decode([st.pivot[s]])[0] if st.pivot[s] >= 0 else None
    reason = {
        K.L_HINT_DEAD: f"{what}: hint {h} is not a clause of the database (unknown, later or deleted)",
        K.L_HINT_NOT_UNIT: f"{what}: hint {h} is not unit (two or more literals not false)",
        K.L_NO_CONFLICT: f"{what}: its hints reach no conflict (not RUP) and it has no RAT hints",
        K.L_RAT_MISSING: f"{what}: not RUP, and for RAT on {piv} candidate clause {cid(cand)} has no hints",
        K.L_RAT_NO_CONFLICT: f"{what}: not RUP, and for RAT on {piv} the hints of candidate clause "
                             f"{cid(cand)} reach no conflict",
        K.L_RAT_EMPTY: f"{what}: the empty clause is not RUP by its hints (and cannot be RAT)",
    }[int(kind)]
    return Verdict.REJECTED, reason, lemmas, stats
