"""Stated limits on what puzzlesat reads. An input beyond one is refused with a clear message
(InputError naming the file and field) before anything large is built; the README's Limits table
and docs/campaigns.md list them. Each is far beyond what any engine solves, so a real instance
never meets one: they keep a hostile or mistaken input from exhausting memory or time while it
is read.
"""
from __future__ import annotations

MAX_INPUT_BYTES = 16 * 1024 * 1024   # an instance file, a campaign spec, TOML text
MAX_ART_CHARS = 1_000_000            # board or shape art (peg, pentomino), all layers together
PEG_MAX_HOLES = 128                  # holes of a peg board (two 64-bit words: native_search/peg/wide.py)
PEG_BITBOARD_HOLES = 64              # holes the bitboard searches take (native:iddfs, native:bfs, tables)
PEG_MAX_DIRECTIONS = 16              # jump directions of a peg board
TILING_MAX_CELLS = 4096              # cells of a tiling board, and of one piece
TILING_MAX_PIECES = 512              # distinct pieces of a tiling
SLIDING_MAX_CELLS = 36               # cells of a sliding-tile board (6x6)
SLIDING_MAX_WALK = 10_000_000        # moves of a generated random walk (~10 s; far past mixing)
MAZE_MAX_NODES = 100_000             # intersections of a calculation maze (rows x cols)
MAX_JOBS = 10_000                    # jobs a campaign spec expands to, unless --max-jobs says more
MAX_GLOB = 10_000                    # files or catalogue names one `instances` glob matches
MAX_GLOB_VISITS = 200_000            # directory entries one glob may look at while it matches
MAX_SECONDS = 1e9                    # a time limit in seconds (31 years; past ~9.2e9 clocks overflow)
MAX_MEMORY_MB = 1 << 30              # a memory limit in MB (1 PiB)
MAX_CONFIGS = 1000                   # configurations in a spec or a configuration list
WORKER_RESTART_SECONDS = 1800.0      # a killed local Dask worker's restart may take this long (load)


def too_big(what: str, n: int, limit: int, unit: str = "") -> str:
    """The message of an input beyond a stated limit."""
    return f"{what}: {n:,}{unit} is more than the limit of {limit:,}{unit} (README, Limits)"
