"""examples/tour.ipynb runs from top to bottom in a real Jupyter kernel (nbclient + ipykernel),
its own asserts included (Hoppers = 7 moves, 18 optimal sequences with first jump 0->6, SPEC.md),
and shows the HTML tables and SVG plots it promises."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_tour_notebook_runs_in_a_kernel(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="nbformat (with nbclient, the test extra)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient (the test extra) executes notebooks")
    nb = nbformat.read(ROOT / "examples" / "tour.ipynb", as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")  # stored without outputs
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.km = client.create_kernel_manager()
        client.start_new_kernel()
        client.start_new_kernel_client()
    except Exception as e:  # no kernel spec, or a kernel that dies at start
        pytest.skip(f"a Jupyter kernel cannot start here: {type(e).__name__}: {e}")
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, i)  # raises CellExecutionError with the cell's traceback
    finally:
        client._cleanup_kernel()
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if o.get("output_type") == "execute_result"]
    html = [o["data"]["text/html"] for o in shown if "text/html" in o["data"]]
    svg = [o["data"]["image/svg+xml"] for o in shown if "image/svg+xml" in o["data"]]
    assert sum("AGREE" in h for h in html) >= 3 and any("OPTIMAL" in h for h in html)
    assert any('class="plot cactus"' in s for s in svg) and any('class="plot scatter"' in s for s in svg)
    assert "<script" not in "".join(html)
