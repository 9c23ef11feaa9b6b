"""Records of short peg solutions (upper bounds) and their replay by the independent checker.

A record file is JSON: {"board": NAME, "problems": [{"pair": [vacate, finish], "solution":
[[from, over, to], ...], "moves": K, "found": HOW, "when": ISO-8601, ...}, ...], "least":
{"moves", "pair"} (optional)} — what `puzzlesat peg problems BOARD --upper-bound --json` prints.
The board is a built-in board name (puzzles.peg.board). Replaying a record builds its problem
(every hole full but `vacate`; one peg, in `finish`, at the end) and runs puzzles.peg.check on the
solution: the record holds when the checker accepts it and counts exactly `moves`; `least`, when
given, must be the fewest moves of the records. This module shares no code with any search.

The records shipped with puzzlesat (`shipped()`): puzzles/data/peg/records/BOARD.json.

>>> results = [replay_file(p) for p in shipped()]
>>> all(r.ok for r in results)
True
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..core.inputs import read_text
from ..core.limits import MAX_INPUT_BYTES
from ..core.result import CheckError, InputError
from .peg import Board, PegInstance, board, check, hole_label


@dataclass
class Replayed:
    """One file's replay: per record (pair, claimed moves, checker's moves or None, reason)."""

    path: str
    board: str
    rows: list[tuple[tuple[int, int], int, int | None, str]] = field(default_factory=list)
    least: tuple[int, tuple[int, int]] | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def shipped() -> list[Path]:
    """The record files shipped in the package, sorted by name."""
    root = resources.files("puzzlesat.puzzles").joinpath("data", "peg", "records")
    return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith(".json"))


def _int(v, where: str) -> int:
    if type(v) is not int:
        raise InputError(f"{where}: expected a whole number, got {v!r}")
    return v


def read(path: str | Path) -> tuple[Board, dict]:
    """The board and the parsed file; InputError naming the file and field if it is not a record
    file (its records are replayed by `replay_file`)."""
    p = Path(path)
    text = read_text(p, MAX_INPUT_BYTES, "record file")   # a regular file, bounded, UTF-8
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:   # RecursionError: nested past the parser's depth
        raise InputError(f"{p}: not JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("problems"), list):
        raise InputError(f"{p}: expected an object with 'board' and a list 'problems'")
    if not isinstance(data.get("board"), str):
        raise InputError(f"{p}: field 'board': expected a board name")
    try:
        b = board(data["board"])
    except InputError as e:
        raise InputError(f"{p}: field 'board': {e.message}") from None
    return b, data


def replay_file(path: str | Path) -> Replayed:
    """Replay every record of the file (see the module docstring); a record that fails is in
    `errors` with the reason (InputError only when the file is not a record file at all)."""
    b, data = read(path)
    out = Replayed(str(path), b.name)
    if "holes" in data and data["holes"] != b.n:
        out.errors.append(f"field 'holes': {data['holes']!r}, the board {b.name} has {b.n}")
    for i, rec in enumerate(data["problems"]):
        where = f"problems[{i}]"
        try:
            if not isinstance(rec, dict):
                raise InputError(f"{where}: expected an object")
            pair = rec.get("pair")
            if not (isinstance(pair, list) and len(pair) == 2):
                raise InputError(f"{where}.pair: expected [vacate, finish]")
            v, f = (_int(x, f"{where}.pair") for x in pair)
            if not (0 <= v < b.n and 0 <= f < b.n):
                raise InputError(f"{where}.pair: holes of {b.name} are 0..{b.n - 1}")
            claimed = _int(rec.get("moves"), f"{where}.moves")
            sol = rec.get("solution")
            if not isinstance(sol, list):
                raise InputError(f"{where}.solution: expected a list of [from, over, to]")
            jumps = []
            for k, j in enumerate(sol):
                if not (isinstance(j, list) and len(j) == 3):
                    raise InputError(f"{where}.solution[{k}]: expected [from, over, to]")
                jumps.append(tuple(_int(h, f"{where}.solution[{k}]") for h in j))
        except InputError as e:
            out.errors.append(e.message)
            continue
        inst = PegInstance(f"{b.name}:{hole_label(b, v)}->{hole_label(b, f)}", b,
                           frozenset(range(b.n)) - {v}, frozenset({f}))
        try:
            got: int | None = check(inst, tuple(jumps))
            reason = "" if got == claimed else f"the checker counts {got} moves, the record {claimed}"
        except CheckError as e:
            got, reason = None, str(e)
        out.rows.append(((v, f), claimed, got, reason))
        if reason:
            out.errors.append(f"{where} ({hole_label(b, v)} -> {hole_label(b, f)}): {reason}")
    good = [(m, pair) for pair, m, got, reason in out.rows if not reason]
    if good:
        out.least = min(good)
    least = data.get("least")
    if least is not None:
        try:
            lm = least["moves"]
            lp = tuple(least["pair"])
        except (TypeError, KeyError):
            out.errors.append("field 'least': expected {\"moves\", \"pair\"}")
        else:
            if out.least is None or lm != out.least[0] or lp not in {p for m, p in good if m == lm}:
                out.errors.append(f"field 'least': {lm} moves for {list(lp)}, the records replay to "
                                  + (f"{out.least[0]} at least" if out.least else "nothing"))
    return out
