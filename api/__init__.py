"""puzzlesat: combinatorial puzzles as CP-SAT and SAT models, cross-validated against native searches.

This is the front door: it only re-exports. What a notebook user types:

>>> import puzzlesat as ps
>>> inst = ps.load("peg/hoppers")                  # catalogue name, file path, or TOML text
>>> r = ps.solve(inst, "sat", time_limit=60, encoding="totalizer")
>>> r.status.value, r.objective, r.params["encoding"]
('OPTIMAL', 7, 'totalizer')
>>> c = ps.compare(inst, ["native", "cpsat", "sat[encoding=totalizer]"])
>>> c.verdict.value, [row["objective"] for row in c.table()]
('AGREE', [7, 7, 7])

Everything is checked: every solution any engine returns passes the family's independent checker
before it is counted; a time limit gives UNKNOWN (or FEASIBLE with a checked solution), never a
wrong answer. Bad input raises `puzzlesat.InputError` with the message the CLI prints; nothing
here prints or exits.

The layers (README, Layout): `puzzlesat.core` (the vocabulary: Status, Result, the family
contract), `puzzlesat.puzzles` (rules, instances, checkers, pictures), `puzzlesat.models` and
`puzzlesat.native_search` (formulations and searches), `puzzlesat.families` (the engine tables and
the family registry), `puzzlesat.compare` (plan, runner, cross-validation, lab, campaigns),
`puzzlesat.cli` (the command line), `puzzlesat.engine` (helpers for your own engines).
"""
from . import compare  # the subpackage, callable as the function compare(instance, engines, ...)
from . import certify  # the subpackage, callable as the function certify(cnf, proof, ...)
from .compare.api import (EngineInfo, Model, catalogue, check, engines, load, load_all, model,
                          solve, svg)
from .compare.crossval import Comparison, Verdict
from .core import __version__
from .core.config import Config
from .core.family import Engine, Family, Option, UserEngine
from .core.inputs import Source
from .core.result import (CertificateClaim, Certificate, CertVerdict, CheckError, Context, InputError,
                          Outcome, PluginError, Result, Status, Task)
from .families.registry import (PluginInfo, family_of, plugins, register_engine, register_family,
                                unregister_engine, unregister_family)

__all__ = ["load", "load_all", "solve", "compare", "certify", "engines", "catalogue", "check", "svg", "model", "Model",
           "family_of", "register_engine", "unregister_engine", "register_family",
           "unregister_family", "plugins", "PluginInfo", "UserEngine", "Option", "Engine", "Family", "EngineInfo",
           "Result", "Comparison", "Verdict", "Certificate", "CertificateClaim", "CertVerdict", "Status", "Task", "Outcome", "Context", "InputError",
           "CheckError", "PluginError", "Config", "Source", "__version__"]
