"""The families: which exist, their engines, their instances.

    registry    families found (the built-in tables here, the `puzzlesat.families` entry points,
                `register_family`), user engines, `ext:dimacs`
    instances   an instance by catalogue name, file, or TOML text
    options     options shared by the engine tables (CP-SAT, SAT, external programs)
    peg, pentomino, sliding, maze   the built-in tables: each a `FAMILY = Family(...)` record,
                data only (engines name their run functions as strings: listing them loads no
                solver)

A plug-in family is the same record in a package of its own: examples/nqueens is the template
(docs/adding-a-family.md).
"""
