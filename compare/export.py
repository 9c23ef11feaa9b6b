"""Model export and statistics for every engine with a formulation hook (`puzzlesat export`, `stats`).

Vocabulary:

    SAT_FORMATS     dimacs (the decision CNF), wcnf (its clauses hard, the bounded objective as
                    soft unit clauses), opb (clauses as >= 1 constraints, `min:` the objective)
    CPSAT_FORMATS   cpsat-txt (CpModelProto as text), cpsat-pb (binary), lp and mps (an ILP through
                    OR-tools' model builder; only for a linear formulation: Formulation.is_linear)
    sidecar         FILE.map.json: variable number -> domain key (`{"1": ["j", 0, 3]}`), with the
                    instance, configuration, bound and version; CP-SAT numbers are proto indices
    engine kind     by the engine name's first part: sat, ext, maxsat -> CNF backend; cpsat, mip,
                    cpmpy -> CP-SAT (their formats: cpsat-txt, cpsat-pb, lp, mps)

Files are written to a temporary name in the target directory and renamed, so an error never
leaves a partial file; a missing directory is bad input.
"""
from __future__ import annotations

import json
import time
from typing import Any

from ..core.result import InputError, Task
from ..core.files import writable, write_atomic

from ..core.config import Config
from ..core.family import Engine, Family

SAT_FORMATS = ("dimacs", "wcnf", "opb")
CPSAT_FORMATS = ("cpsat-txt", "cpsat-pb", "lp", "mps")
FORMATS = SAT_FORMATS + CPSAT_FORMATS


def version() -> str:
    from ..core import __version__
    return __version__


def engine_kind(eng: Engine) -> str:
    """'sat' or 'cpsat' (the backend the engine compiles its formulation with)."""
    head = eng.name.split(":")[0]
    return "cpsat" if head in ("cpsat", "mip", "cpmpy") else "sat"  # maxsat, ext: the CNF


def decision_for(fam: Family, inst: Any, cfg: Config, task: Task | str = Task.OPTIMIZE,
                 bound: int | None = None):
    """(engine, resolved options, Decision) of configuration `cfg` on `inst`, or InputError when the
    engine has no formulation (a native search, or a model not yet converted to models/formulation)."""
    from ..models._ext import call_hook
    task = Task(task)
    eng = fam.engine(cfg.engine)
    if not eng.formulation:
        if eng.name.split(":")[0] in ("sat", "cpsat"):
            raise InputError(f"engine {eng.name} of {fam.name} has no formulation hook yet "
                             "(Engine.formulation in its family's engine table): export, stats and "
                             "ext:dimacs need one")
        raise InputError(f"engine {eng.name} of {fam.name} is not a CP-SAT or SAT model: nothing to "
                         "export (engines with a formulation: " + (", ".join(
                             e.name for e in fam.engines if e.formulation) or "none yet") + ")")
    if task not in eng.tasks:
        raise InputError(f"engine {eng.name} does not do task '{task}'")
    opts = eng.resolve_options(cfg.opts)
    if engine_kind(eng) == "sat":
        from ..models import _sat
        _sat.encoding(opts.get("encoding", "seqcounter"))
    d = call_hook(eng.formulation, inst, task, opts, bound)
    if bound is not None and fam.sense == "min" and bound < d.lower:
        d.note = (f"bound {bound} is below the proved lower bound {d.lower}: this decision is "
                  "infeasible by that proof")
    return eng, opts, d


def compile_decision(eng: Engine, opts: dict, d):
    """The backend's compiled model (Cnf or CpData) and the seconds it took."""
    from ..models.formulation import to_cnf, to_cpsat
    t0 = time.perf_counter()
    model = to_cpsat(d.formulation) if engine_kind(eng) == "cpsat" else \
        to_cnf(d.formulation, opts.get("encoding", "seqcounter"))
    return model, time.perf_counter() - t0


def model_stats(fam: Family, inst: Any, cfg: Config, task: Task | str = Task.OPTIMIZE,
                bound: int | None = None) -> dict[str, Any]:
    """Variables, clauses/constraints and literals, in total and per constraint group, and build
    times; the groups sum to the totals (checked here: a mismatch is an AssertionError)."""
    t0 = time.perf_counter()
    eng, opts, d = decision_for(fam, inst, cfg, task, bound)
    t_form = time.perf_counter() - t0
    model, t_comp = compile_decision(eng, opts, d)
    st = model.stats()
    unit = "constraints" if st["format"] == "cp-sat" else "clauses"
    for col in (unit, "literals"):
        total = st[col] if col in st else None
        summed = sum(g[col] for g in st["groups"].values())
        assert total is None or summed == total, f"{col}: groups sum to {summed}, total {total}"
    if st["format"] == "cnf":
        aux = sum(g["aux_vars"] for g in st["groups"].values())
        assert st["keyed_vars"] + aux == st["vars"], "keyed + auxiliary variables != total"
    return {"instance": f"{fam.name}/{getattr(inst, 'name', '?')}", "config": str(cfg),
            "engine": eng.name, "task": str(Task(task)), "bound": d.bound, "bound_text": d.bound_text,
            "formulation": d.formulation.name, "source": d.formulation.source,
            "linear": d.formulation.is_linear(), **st,
            "seconds": {"formulation": round(d.formulation.build_seconds, 4),
                        "hook": round(t_form, 4), "compile": round(t_comp, 4),
                        "total": round(t_form + t_comp, 4)},
            "params": {k: v for k, v in opts.items()}}


# ----------------------------------------------------------------------------------------------
# writers: each returns (text or bytes, {number: key})

def _jsonable(key: Any) -> Any:
    if isinstance(key, tuple):
        return [_jsonable(k) for k in key]
    return key


def _comments(fam, inst, cfg, d, extra=()) -> list[str]:
    return [f"puzzlesat {version()}", f"instance {fam.name}/{getattr(inst, 'name', '?')}",
            f"configuration {cfg}", f"bound {d.bound_text}",
            f"formulation {d.formulation.name}: {d.formulation.source}", *extra]


def _objective_lits(cnf, d) -> tuple[list[tuple[int, int]], int]:
    """[(weight, literal that costs it when true)] and the constant offset, from a min objective."""
    if d.objective is None:
        return [], 0
    sense, terms, offset = d.objective
    sign = 1 if sense == "min" else -1
    out = []
    for c, k in terms:
        c *= sign
        if c > 0:
            out.append((c, cnf.id(k)))
        elif c < 0:
            out.append((-c, -cnf.id(k)))
            offset += c * sign
    return out, offset


def write_sat(fmt: str, cnf, fam, inst, cfg, d) -> str:
    from ..models._ext import dimacs_text, header
    st = cnf.stats()
    groups = [f"group {g}: {s['clauses']} clauses, {s['aux_vars']} aux vars" for g, s in st["groups"].items()]
    com = _comments(fam, inst, cfg, d, [f"encoding {cnf.encoding}", *groups])
    if fmt == "dimacs":
        return dimacs_text(cnf, com)
    obj, offset = _objective_lits(cnf, d)
    if fmt == "wcnf":
        top = sum(w for w, _ in obj) + 1
        lines = header(com + [f"soft clauses: the objective ({d.objective[0] if d.objective else 'none'}, "
                              f"offset {offset})"])
        lines.append(f"p wcnf {cnf.pool.top} {len(cnf.clauses) + len(obj)} {top}")
        lines += [f"{top} " + " ".join(map(str, c)) + " 0" for c in cnf.clauses]
        lines += [f"{w} {-l} 0" for w, l in obj]
        return "\n".join(lines) + "\n"
    assert fmt == "opb"
    lines = ["* " + ln[2:] if ln.startswith("c ") else "*" for ln in header(com)]
    lines.append(f"* #variable= {cnf.pool.top} #constraint= {len(cnf.clauses)}")
    if obj:
        terms, const = [], offset
        for w, l in obj:  # w * [l true]: l > 0 -> +w x; l < 0 -> w - w x
            terms.append(f"+{w} x{l}" if l > 0 else f"-{w} x{-l}")
            const += 0 if l > 0 else w
        lines.append(f"* objective offset {const}")
        lines.append("min: " + " ".join(terms) + " ;")
    for c in cnf.clauses:
        neg = sum(1 for l in c if l < 0)
        body = " ".join(f"+1 x{l}" if l > 0 else f"-1 x{-l}" for l in c)
        lines.append(f"{body} >= {1 - neg} ;" if c else "0 >= 1 ;")
    return "\n".join(lines) + "\n"


def write_cpsat(fmt: str, data):
    """A writer of the CpModelProto to a path (OR-tools writes text for a .txt name, else binary)."""
    def write(tmp: str) -> None:
        if not data.model.export_to_file(tmp):
            raise OSError(f"OR-tools could not write {tmp}")
    return write, (".txt" if fmt == "cpsat-txt" else ".pb")


def linear_blocker(f) -> str | None:
    """Why `f` is not an (I)LP as written (None when it is linear)."""
    from ..models.formulation import Linear, Xor
    for g, c in f.constraints():
        if isinstance(c, Xor):
            return f"group '{g}' has XOR (parity) constraints"
        if isinstance(c, Linear) and c.enforce:
            return f"group '{g}' has half-reified (enforced) linear constraints"
    return None


def write_lp(fmt: str, fam, inst, cfg, d) -> tuple[str, dict[int, Any]]:
    """LP or MPS of a linear formulation (variables x<n>, n from 1 as in the map), with the
    header comments."""
    from ..models.formulation import to_lp
    text, numbers = to_lp(d.formulation, d.objective, fmt)
    marker = "\\" if fmt == "lp" else "*"
    head = "".join(f"{marker} {ln}\n" for ln in _comments(fam, inst, cfg, d))
    return head + text, numbers


def export(fam: Family, inst: Any, cfg: Config, fmt: str, path: str, task: Task | str = Task.OPTIMIZE,
           bound: int | None = None) -> dict[str, Any]:
    """Write the model of `cfg` on `inst` in format `fmt` to `path`, and `path`.map.json; returns a
    summary (sizes, bound). InputError for an unknown or impossible format or a missing directory."""
    if fmt not in FORMATS:
        raise InputError(f"unknown export format '{fmt}'; known: " + ", ".join(FORMATS))
    writable(path, "export")   # its folder exists (not a file in the way), it is not a folder
    eng = fam.engine(cfg.engine)
    kind = engine_kind(eng) if eng.formulation else None
    allowed = SAT_FORMATS if kind == "sat" else CPSAT_FORMATS
    if kind is not None and fmt not in allowed:
        raise InputError(f"engine {eng.name} ({'SAT' if kind == 'sat' else 'CP-SAT'}) writes "
                         f"{', '.join(allowed)}; not {fmt}")
    eng, opts, d = decision_for(fam, inst, cfg, task, bound)
    if fmt in ("lp", "mps"):
        if not d.formulation.is_linear():
            why = linear_blocker(d.formulation) or "non-linear constraints"
            raise InputError(f"format {fmt} needs a linear model; formulation {d.formulation.name} of "
                             f"{eng.name} is not linear: {why}"
                             + (f" (try -e '{cfg.engine}[invariants=false]')" if "invariants" in opts else ""))
        data, numbers = write_lp(fmt, fam, inst, cfg, d)
        size = {"vars": len(numbers), "constraints": sum(1 for _ in d.formulation.constraints())}
    else:
        model, _ = compile_decision(eng, opts, d)
        if kind == "sat":
            data = write_sat(fmt, model, fam, inst, cfg, d)
            numbers = model.var_map()
            size = {"vars": model.pool.top, "clauses": len(model.clauses), "keyed_vars": model.num_keys}
        else:
            data, suffix = write_cpsat(fmt, model)
            numbers = {x.index: k for k, x in model.vars.items()}
            st = model.stats()
            size = {"vars": st["vars"], "constraints": st["constraints"]}
    meta = {"puzzlesat": version(), "instance": f"{fam.name}/{getattr(inst, 'name', '?')}",
            "config": str(cfg), "engine": eng.name, "task": str(Task(task)), "format": fmt,
            "bound": d.bound, "bound_text": d.bound_text, "formulation": d.formulation.name,
            "numbering": "proto index (from 0)" if fmt.startswith("cpsat") else "from 1",
            "projection": [_jsonable(k) for k in d.formulation.projection],
            "variables": {str(n): _jsonable(k) for n, k in sorted(numbers.items())}}
    write_atomic(path, data, "export", (suffix if fmt.startswith("cpsat") else "") or ".tmp")
    write_atomic(path + ".map.json", json.dumps(meta), "variable map")
    return {k: meta[k] for k in ("instance", "config", "format", "bound", "bound_text")} | size | \
        {"file": path, "map": path + ".map.json", "note": d.note}


# ----------------------------------------------------------------------------------------------
# CLI
