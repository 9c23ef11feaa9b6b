"""The suite's own switches name real things: every case sent to --runslow (conftest HEAVY) is a
test function of its file, and every file the workers are handed first (FILE_SECONDS) exists."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import FILE_SECONDS, HEAVY

HERE = Path(__file__).resolve().parent


def test_heavy_cases_name_test_functions():
    for nodeid in HEAVY:
        m = re.fullmatch(r"(test_\w+\.py)::(test_\w+)(\[.*\])?", nodeid)
        assert m, nodeid
        path = HERE / m[1]
        assert path.exists(), nodeid
        assert re.search(rf"^def {m[2]}\(", path.read_text(encoding="utf-8"), re.M), nodeid


def test_heaviest_files_exist():
    assert FILE_SECONDS and all((HERE / name).exists() for name in FILE_SECONDS)
