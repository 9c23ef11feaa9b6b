"""puzzlesat: combinatorial puzzles as CP-SAT and SAT models, cross-validated against native searches.

The public API is filled in by `puzzlesat.api`; the subpackages are
`puzzlesat.puzzles` (instances, rules, checkers), `puzzlesat.models` (CP-SAT and SAT formulations),
`puzzlesat.native_search` (reference searches) and `puzzlesat.compare` (registry, runner, CLI).
"""
__version__ = "0.2.0"
