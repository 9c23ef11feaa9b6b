"""The bottom layer: the vocabulary of a run and the plumbing every layer above shares.

    result    Status, Task, Outcome, Context, Result, InputError, CheckError
    family    the family contract (Puzzle protocol) and the engine declarations (Engine, Option)
    config    the configuration grammar: `name=engine[key=value,...]`
    inputs    reading TOML with the place of every error (Source, load_toml, require)
    files     atomic writes
    seal      seals: records this user's puzzlesat wrote, told apart from claims
    cluster   local Dask clusters: TLS with a temporary certificate, no HTTP server
    procs     worker processes: death signal, process groups, limits, external programs
    machine   the machine and solver versions a published table names

It imports nothing else of puzzlesat.
"""
__version__ = "0.3.0"
