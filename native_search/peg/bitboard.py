"""The bitboard engines' one limit: native:iddfs, native:bfs and native:auto hold a position in one
64-bit word. Its own module, so that planning a run checks it without importing the searches
(numba: a third of a second of a native run's start-up, in the planning process)."""
from __future__ import annotations

from ...core.limits import PEG_BITBOARD_HOLES
from ...core.result import InputError
from ...puzzles.peg import PegInstance


def validate(inst: PegInstance, options: dict) -> None:
    """Refuse (InputError) a board of more than PEG_BITBOARD_HOLES holes: the native engines hold
    a position in one 64-bit word (larger boards: `puzzlesat peg problems BOARD --upper-bound`,
    native_search/peg/wide.py, and the CP-SAT / SAT models)."""
    if inst.board.n > PEG_BITBOARD_HOLES:
        raise InputError(f"board {inst.board.name} has {inst.board.n} holes: the native peg engines "
                         f"hold a position in one 64-bit word (at most {PEG_BITBOARD_HOLES} holes); "
                         "use a cpsat:/sat: engine, or `puzzlesat peg problems BOARD --upper-bound`")
