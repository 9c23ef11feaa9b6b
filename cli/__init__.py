"""The command line, `puzzlesat ...` (and `python -m puzzlesat ...`): the only layer that imports
click and rich, a client of the public API.

    main       the root group: list, show, engines, solve, compare, generate; InputError -> exit 2
    lab        lab and bench (configurations x repeats)
    export     export and stats (formulations for other solvers)
    campaign   campaign run/status/report/plot/export
    peg, sliding, maze   the built-in families' own commands (named by their Family records)
    display    consoles, result tables, the live status line
"""
from .main import cli, main

__all__ = ["cli", "main"]
