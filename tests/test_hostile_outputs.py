"""What puzzlesat writes for others to open: CSV cells that a spreadsheet would run as formulas
get a leading apostrophe, Markdown tables carry no raw HTML, files are made with the user's umask
(not 0644 regardless), a full disk or a closed pipe on the output is one line (no traceback), a
spec cannot choose where proofs are written without --allow-code, and `campaign report --html`
runs no plug-in's code for the instances a store names."""
from __future__ import annotations

import csv
import io
import os
import stat
import sys
from pathlib import Path

import pytest

import helpers
from puzzlesat.compare.tables import Cell, Column, Table, csv_text, to_csv, to_markdown
from puzzlesat.core.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]
TRIED = {"inputs": 0}
EVIL = ["=HYPERLINK(\"http://127.0.0.1/\",\"x\")", "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
        "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1"]


@pytest.mark.parametrize("text", EVIL)
def test_csv_cells_never_start_a_formula(text):
    TRIED["inputs"] += 1
    want = "'" + text.replace("\r", "\n")
    assert csv_text(text) == want
    t = Table("t", [Column("config")], [[Cell(text)]], key={"instance": text})
    got = list(csv.reader(io.StringIO(to_csv([t]), newline="")))
    assert got[1] == [want, want] and len(got) == 2


@pytest.mark.parametrize("value", ["-3", "-1e-05", "+7", 12, -4.5, None, "plain", "a=b"])
def test_csv_numbers_and_plain_text_stay(value):
    assert csv_text(value) == value


def test_campaign_export_csv_has_no_formula(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from test_hostile_store import good_row, make_store
    db = make_store(tmp_path / "s.db", [good_row(0, instance="=1+1", config="@x", reason="+y")], typed=True)
    TRIED["inputs"] += 1
    p = helpers.cli("campaign", "export", "--store", str(db), "--format", "csv")
    assert p.returncode == 0, p.stderr
    row = list(csv.DictReader(io.StringIO(p.stdout)))[0]
    assert (row["instance"], row["config"], row["reason"]) == ("'=1+1", "'@x", "'+y")


def test_markdown_passes_no_raw_html():
    TRIED["inputs"] += 1
    evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>&amp;'
    t = Table(evil, [Column(evil)], [[Cell(evil)]], notes=[evil])
    md = to_markdown(t)
    assert "<" not in md and ">" not in md and "&lt;script&gt;" in md and "&amp;amp;" in md


@pytest.mark.parametrize("mask", [0o077, 0o027, 0o002])
def test_files_are_written_with_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        p = write_atomic(tmp_path / "out.txt", "x", "output")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask


@pytest.mark.parametrize("args", [["list"], ["solve", "peg/hoppers-first06", "--json"]])
def test_a_full_disk_on_the_output_is_one_line(args):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    TRIED["inputs"] += 1
    with open("/dev/full", "w") as full:
        import subprocess
        p = subprocess.run([sys.executable, "-m", "puzzlesat", *args], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 2 and p.stderr == "puzzlesat: error: cannot write the output (No space left on device)\n", p.stderr


def test_a_spec_cannot_choose_the_proof_folder(tmp_path):
    TRIED["inputs"] += 1
    sp = helpers.spec(tmp_path, f'name = "x"\ninstances = ["peg/hoppers-first06"]\ntime_limit = 20\n'
                                f'[configs]\ns = "sat[certify=true,proof_dir={tmp_path}]"\n')
    p = helpers.cli("campaign", "run", str(sp), "--store", str(tmp_path / "s.db"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "would write its proofs into the folder" in p.stderr and "--allow-code" in p.stderr
    assert not (tmp_path / "s.db").exists()
    lst = tmp_path / "configs.txt"
    lst.write_text(f"s=sat[certify=true,proof_dir={tmp_path}]\n")
    p = helpers.cli("solve", "peg/hoppers-first06", "-e", f"@{lst}")
    assert p.returncode == 2 and "configs.txt:1:" in p.stderr, p.stderr
    # typed on the command line, it is the user's own choice
    p = helpers.cli("solve", "peg/hoppers-first06", "-e", f"sat[certify=true,proof_dir={tmp_path}]")
    assert p.returncode == 0, p.stderr


def test_report_html_runs_no_plugin_code(tmp_path, monkeypatch):
    """A store naming an instance of a plug-in family (catalogue name or file): the report says
    it has no picture; the plug-in's catalogue and loader are never called."""
    import puzzlesat as ps
    from puzzlesat.compare.campaign import html
    sys.path.insert(0, str(ROOT / "examples" / "nqueens"))
    try:
        import puzzlesat_nqueens
        from puzzlesat_nqueens import puzzle
        ps.register_family(puzzlesat_nqueens.FAMILY)
        called = []
        for name in ("catalogue", "from_toml"):
            real = getattr(puzzle, name)
            monkeypatch.setattr(puzzle, name, lambda *a, _r=real, **k: (called.append(1), _r(*a, **k))[1])
        (tmp_path / "q.toml").write_text('kind = "nqueens"\nname = "q"\nn = 5\n')
        rows = [{"instance": "nqueens/queens-8", "family": "nqueens", "instance_hash": None},
                {"instance": "q.toml", "family": "nqueens", "instance_hash": None},
                {"instance": str(tmp_path / "q.toml"), "family": None, "instance_hash": None}]
        TRIED["inputs"] += 3
        got = html._instances(rows, {}, tmp_path / "s.db")
        assert all(got[r["instance"]][0] is None for r in rows), got
        assert "plug-in family nqueens" in got["nqueens/queens-8"][1]
        assert not called
    finally:
        ps.unregister_family("nqueens")
        sys.path.remove(str(ROOT / "examples" / "nqueens"))


def test_figures():
    print(f"hostile output inputs tried: {TRIED['inputs']}")
