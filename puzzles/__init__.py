"""Shared core: one module per puzzle family, importing nothing outside `puzzles`.

Every family module provides the same small protocol, which `compare/` relies on:

    KIND: str                                   # the TOML `kind`, e.g. "peg"
    SENSE: "min" | "max" | None                 # direction of the objective for task optimize
    catalogue() -> dict[str, Callable[[], Instance]]   # built-in instances by short name
    from_toml(data: dict, src: Source) -> Instance      # raises InputError naming file/line/field
    SUFFIXES: dict[str, Callable[[Path, str], Instance]]  # other file formats (may be empty)
    check(instance, solution) -> int | None     # independent checker: raises CheckError,
                                                # returns the recomputed objective value
    solution_json(instance, solution) -> dict
    solution_key(instance, solution, up_to_symmetry=False) -> Hashable  # a solution's identity
    describe(instance) -> dict                  # JSON-able summary for `show` and reports
    render(instance, solution=None) -> str
    infeasible_reason(instance) -> str | None   # an invariant that proves "no solution" at once

Instances are frozen dataclasses with a `name`; solutions are plain picklable values.
"""
