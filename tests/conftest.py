"""Shared test switches: `--runslow` runs the cases marked slow (the benchmark's territory)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (minutes each)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow (see README, Benchmarks)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# ---- plain-Python kernels ----------------------------------------------------------------------
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_jit():
    """`run(code, env=None) -> stdout`: Python code in a fresh interpreter with numba's JIT off
    (NUMBA_DISABLE_JIT=1), so the numba kernels run as the plain Python they must also be; a
    non-zero exit fails the test with the interpreter's error."""
    def run(code: str, env: dict | None = None, timeout: float = 300) -> str:
        full = "from numba.core import config; assert config.DISABLE_JIT\n" + textwrap.dedent(code)
        out = subprocess.run([sys.executable, "-c", full], capture_output=True, text=True,
                             timeout=timeout, cwd=ROOT,
                             env={**os.environ, **(env or {}), "NUMBA_DISABLE_JIT": "1"})
        assert out.returncode == 0, out.stderr[-4000:]
        return out.stdout
    return run
