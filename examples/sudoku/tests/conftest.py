"""Run the plug-in's tests from its source folder too (installed, its package is importable);
`--runslow` runs the cases marked slow (as in puzzlesat's own suite)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pytest_addoption(parser):
    try:
        parser.addoption("--runslow", action="store_true", default=False,
                         help="also run tests marked slow (minutes each)")
    except ValueError:  # already added by puzzlesat's tests/conftest.py in the same session
        pass


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running cases, skipped unless --runslow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords and "sudoku" in str(item.fspath):
            item.add_marker(skip)
