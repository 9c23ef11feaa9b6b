"""Results ready to publish: tables in every format (one table model: compare/tables.py), the
campaign's HTML page (tested in a real headless Chromium over the DevTools protocol), and the
small HTML tables Jupyter shows.

Facts: hoppers needs 7 moves, hoppers with first jump 0->6 has 18 optimal sequences (SPEC.md);
the campaign below solves small sliding boards whose optima the native search gives beforehand.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
from importlib import metadata

import pytest

from browser import Browser, chromium
import helpers
from helpers import boards, rows, spec
from puzzlesat.compare.runner import solve
from puzzlesat.compare.tables import Column, Table, cell, render
from puzzlesat.families.instances import load_instance


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return helpers.cli(*args, cwd=cwd)  # a fork of this process


LATE_ENGINE = """
import time
from puzzlesat.engine import Outcome, Status

ANSWERS = {answers!r}  # instance name -> (moves, solution in JSON form), solved beforehand


def run(inst, task, ctx):
    \"\"\"Ignores its time limit: answers right in the grace period, or never (killed).\"\"\"
    if inst.name not in ANSWERS:
        time.sleep(3600)
    time.sleep(max(0.0, ctx.start + ctx.time_limit + 0.4 - time.monotonic()))
    moves, sol = ANSWERS[inst.name]
    return Outcome(Status.OPTIMAL, objective=moves, solutions=(sol,))
"""


@pytest.fixture(scope="module")
def late(tmp_path_factory):
    """3 sliding boards x native, tot, late (right answers after the 3 s limit on two boards,
    none on the third: killed, UNKNOWN); task optimize."""
    d = tmp_path_factory.mktemp("late")
    answers, optimum = {}, {}
    for k, f in enumerate(boards(d / "boards", 3, seed=21)):
        fam, inst = load_instance(str(f))
        r = solve(fam, inst, "native", "optimize", isolate=False)
        optimum[f"boards/{f.name}"] = r.objective
        if k < 2:
            answers[inst.name] = (r.objective, fam.solution_json(inst, r.solutions[0]))
    (d / "late.py").write_text(LATE_ENGINE.format(answers=answers))
    sp = spec(d, 'name = "late"\ninstances = ["boards/*.toml"]\ntask = "optimize"\ntime_limit = 3\n'
                 '[configs]\nnative = "native"\ntot = "sat:time[encoding=totalizer]"\nlate = "late.py:run"\n')
    p = cli("campaign", "run", str(sp), "--jobs", "2", "--store", str(d / "late.db"), "--allow-code", cwd=d)
    assert p.returncode == 0, p.stderr
    return d, d / "late.db", optimum


LIAR_ENGINE = """
from puzzlesat.engine import Outcome, Status


def run(inst, task, ctx):
    \"\"\"Claims at once that no solution exists (every board below has one).\"\"\"
    return Outcome(Status.INFEASIBLE, reason="made up")
"""


@pytest.fixture(scope="module")
def liar(tmp_path_factory):
    """2 sliding boards x native, liar (a false 'no solution' in no time); task optimize, 4 s."""
    d = tmp_path_factory.mktemp("liar")
    boards(d / "boards", 2, seed=5)
    (d / "liar.py").write_text(LIAR_ENGINE)
    sp = spec(d, 'name = "liar"\ninstances = ["boards/*.toml"]\ntask = "optimize"\ntime_limit = 4\n'
                 '[configs]\nnative = "native"\nliar = "liar.py:run"\n')
    p = cli("campaign", "run", str(sp), "--store", str(d / "liar.db"), "--allow-code", cwd=d)
    assert p.returncode == 0, p.stderr
    return d, d / "liar.db"


# ---- the table model ------------------------------------------------------------------------------
def _toy() -> Table:
    t = Table("toy & 100% <b>", [Column("config"), Column("status", "status"), Column("seconds", "seconds"),
                                  Column("raw", "int", only=("csv",))],
              key={"instance": "peg/x_y"}, notes=["a_b <i>"], params={"time limit (s)": 5})
    t.add(cell("a_1"), cell("OPTIMAL", "status"), cell(1.5, "seconds", best=True), cell(7, "int"))
    t.add(cell("b#2"), cell("UNKNOWN", "status"), cell(5.0, "seconds"), cell(None, "int"))
    return t


def test_table_model_renders_values_texts_best_and_unknown_per_format():
    machine = {"platform": "Plan9-x", "cpus": 3, "versions": {"ortools": "1.0"}}
    got = list(csv.reader(io.StringIO(render([_toy(), _toy()], "csv"))))
    body = [["peg/x_y", "a_1", "OPTIMAL", "1.5", "7"], ["peg/x_y", "b#2", "UNKNOWN", "5.0", ""]]
    assert got == [["instance", "config", "status", "seconds", "raw"], *body, *body]  # one header
    md = render([_toy()], "markdown", machine)
    assert "| a_1 | OPTIMAL | **1.500** |" in md and "|---|---|---:|" in md and "raw" not in md
    assert "machine: Plan9-x, 3 CPUs" in md and "time limit (s) 5" in md
    tex = render([_toy()], "latex", machine)
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"a\_1 & OPTIMAL & \textbf{1.500} \\" in tex
    assert r"b\#2 & -- & 5.000 \\" in tex           # UNKNOWN as a dash
    assert r"\caption{toy \& 100\% <b> (instance peg/x\_y)}" in tex
    assert "3 CPUs" in tex and "ortools 1.0" in tex and r"a\_b <i>" in tex
    page = render([_toy()], "html")
    assert "&lt;b&gt;" in page and "&lt;i&gt;" in page and "<b>" not in page and "<script" not in page


# ---- lab, compare, campaign report in formats ------------------------------------------------------
def test_lab_and_compare_write_csv_markdown_and_latex():
    versions = {p: metadata.version(p) for p in ("ortools", "python-sat", "numba")}
    p = cli("lab", "peg/hoppers-first06", "--configs", "seq=sat,tot=sat[encoding=totalizer]",
            "--task", "count", "--format", "latex")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(r"\textbf{") == 1  # the best configuration's median time
    body = p.stdout.split(r"\midrule")[1].split(r"\bottomrule")[0]
    assert [line.split(" & ")[:5] for line in body.strip().splitlines()] == [
        ["seq", "sat:time", "OPTIMAL", "7", "18"], ["tot", "sat:time", "OPTIMAL", "7", "18"]]
    assert f"{os.cpu_count()} CPUs" in p.stdout
    assert all(f"{k} {v}" in p.stdout for k, v in versions.items())
    assert "tot=sat[encoding=totalizer]" in p.stdout and "task count" in p.stdout
    p = cli("compare", "peg/hoppers", "sliding/8-easy", "--engines", "native,cpsat", "--format", "csv")
    assert p.returncode == 0, p.stderr
    recs = list(csv.DictReader(io.StringIO(p.stdout)))
    assert [(r["instance"], r["engine"], r["status"], r["objective"], r["verdict"]) for r in recs] == [
        ("peg/hoppers", "native:auto", "OPTIMAL", "7", "AGREE"), ("peg/hoppers", "cpsat:time", "OPTIMAL", "7", "AGREE"),
        ("sliding/8-easy", "native:ida", "OPTIMAL", "2", "AGREE"),
        ("sliding/8-easy", "cpsat:time", "OPTIMAL", "2", "AGREE")]
    assert {r["over_limit"] for r in recs} == {"0"}
    p = cli("compare", "sliding/8-easy", "--engines", "native,cpsat", "--format", "markdown")
    assert p.returncode == 0 and "| native:ida | OPTIMAL | 2 |" in p.stdout
    assert p.stdout.count("**") == 4  # the title and the fastest run
    p = cli("lab", "peg/hoppers", "--configs", "sat", "--json", "--format", "csv")
    assert p.returncode == 2 and "--json and --format csv" in p.stderr


def test_campaign_report_formats_count_late_answers_unsolved(late):
    d, db, optimum = late
    got = {(r["instance"], r["config"]): r for r in rows(db)}
    for inst, opt in optimum.items():
        assert got[(inst, "native")]["objective"] == got[(inst, "tot")]["objective"] == opt
    lates = sorted((r["status"], r["termination"], r["over_limit"]) for (_, c), r in got.items() if c == "late")
    assert lates == [("OPTIMAL", "done", 1), ("OPTIMAL", "done", 1), ("UNKNOWN", "time", 1)]
    p = cli("campaign", "report", "--store", str(db), "--format", "csv")
    assert p.returncode == 0, p.stderr
    scores_csv, inst_csv = p.stdout.split("\n\n")
    scores = {r["config"]: r for r in csv.DictReader(io.StringIO(scores_csv))}
    assert (scores["late"]["solved"], scores["late"]["unknown"], scores["late"]["over limit"]) == ("0", "3", "3")
    assert float(scores["late"]["PAR-2 (s)"]) == 6.0 and scores["native"]["solved"] == "3"
    insts = list(csv.DictReader(io.StringIO(inst_csv)))
    # the late answers are right (checked): AGREE, though unsolved in the scores; the killed run: INCOMPLETE
    assert sorted(r["verdict"] for r in insts) == ["AGREE", "AGREE", "INCOMPLETE"]
    assert sum("over limit" in r["late"] for r in insts) == 2 and sum(r["late"] == "timeout" for r in insts) == 1
    tex = cli("campaign", "report", "--store", str(db), "--format", "latex").stdout
    assert tex.count(r"\begin{table}") == 2 and " & -- \\\\" in tex  # the killed run: a dash
    assert "machine: " in tex and "CPUs" in tex and "late=late.py:run" in tex
    md = cli("campaign", "report", "--store", str(db), "--format", "markdown").stdout
    assert "| late | late.py:run | 3 | 0 | 0 | 3 | 0 | 3 | 6.000 |" in md  # wrong 0: the answers are right


def test_a_refuted_answer_is_wrong_never_solved_in_every_format_and_plot(liar, tmp_path):
    """The liar's 'no solution' is refuted by native's checked solutions: in every format it is
    wrong, unsolved (PAR-2 twice the limit), never best; off the cactus plot, on the scatter's
    border. (Before 0.4 it was 'solved 2/2' with the best PAR-2.)"""
    d, db = liar
    p = cli("campaign", "report", "--store", str(db), "--json")
    assert p.returncode == 1  # DISAGREE
    rep = json.loads(p.stdout)
    lc, nc = rep["configs"]["liar"], rep["configs"]["native"]
    assert (lc["solved"], lc["wrong"], lc["unknown"], lc["errors"], lc["par2"]) == (0, 2, 0, 0, 8.0)
    assert (nc["solved"], nc["wrong"]) == (2, 0) and nc["par2"] < 8.0
    assert [i["verdict"] for i in rep["instances"]] == ["DISAGREE", "DISAGREE"]
    for i in rep["instances"]:
        assert "claimed INFEASIBLE, but native found a checked solution" in i["results"]["liar"]["wrong"]
        assert i["results"]["native"]["wrong"] is None
    p = cli("campaign", "report", "--store", str(db))
    assert p.returncode == 1
    line = next(x for x in p.stdout.splitlines() if x.startswith("│ liar"))
    assert [c.strip() for c in line.split("│")[1:9]] == ["liar", "liar.py:run", "2", "0", "2", "0", "0", "0"]
    scores_csv, inst_csv = cli("campaign", "report", "--store", str(db), "--format", "csv").stdout.split("\n\n")
    sc = {r["config"]: r for r in csv.DictReader(io.StringIO(scores_csv))}
    assert (sc["liar"]["solved"], sc["liar"]["wrong"], sc["liar"]["PAR-2 (s)"]) == ("0", "2", "8.0")
    assert [r["liar"] for r in csv.DictReader(io.StringIO(inst_csv))] == ["wrong (infeasible)"] * 2
    md = cli("campaign", "report", "--store", str(db), "--format", "markdown").stdout
    assert "| liar | liar.py:run | 2 | 0 | 2 | 0 | 0 | 0 | 8.000 |" in md  # not bold
    assert md.count("wrong (infeasible)") == 2 and "**wrong" not in md
    native_par2 = f"{nc['par2']:.3f}"
    assert f"| native | native | 2 | 2 | 0 | 0 | 0 | 0 | **{native_par2}** |" in md
    tex = cli("campaign", "report", "--store", str(db), "--format", "latex").stdout
    assert tex.count("wrong (infeasible)") == 2 and r"\textbf{8.000}" not in tex
    assert r"liar & liar.py:run & 2 & 0 & 2 & 0 & 0 & 0 & 8.000" in tex
    page = tmp_path / "liar.html"
    p = cli("campaign", "report", "--store", str(db), "--html", str(page), cwd=d)
    assert p.returncode == 1, p.stderr
    text = page.read_text(encoding="utf-8")
    data = json.loads(text.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    assert sorted((r["config"], bool(r["wrong"])) for r in data["runs"]) == [
        ("liar", True), ("liar", True), ("native", False), ("native", False)]
    assert "liar (0)</text>" in text and "native (2)</text>" in text  # the cactus legend
    assert "<td class=\"num best\" data-v=\"8.0\">" not in text
    from puzzlesat.compare.campaign.report import per_instance_times
    from puzzlesat.compare.campaign.store import Store
    from puzzlesat.compare.campaign.svgplot import scatter_svg
    store = Store.open_read(db)
    times = per_instance_times(store.rows())
    assert all(t == float("inf") for t in times["liar"].values()) and len(times["liar"]) == 2
    assert scatter_svg(store.rows(), store.meta(), "native", "liar").count("/ unsolved</title>") == 2


def test_the_store_keeps_start_up_and_checking_apart_and_reads_a_store_from_before(liar, tmp_path):
    """Every job stores its engine seconds with its start-up and checking seconds beside them; a
    store written before 0.4 (no such columns: its seconds include start-up) is still read, and
    the report says how many of its finished jobs hold such seconds."""
    d, db = liar
    got = rows(db)
    assert all(r["startup_seconds"] > 0 and r["check_seconds"] >= 0 for r in got)
    assert all(r["seconds"] < r["wall_seconds"] for r in got)
    old = tmp_path / "old.db"
    src = sqlite3.connect(db)
    src.backup(dst := sqlite3.connect(old))
    src.close()
    for col in ("startup_seconds", "check_seconds"):
        dst.execute(f"ALTER TABLE runs DROP COLUMN {col}")
    dst.commit()
    dst.close()
    p = cli("campaign", "report", "--store", str(old), "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["before_engine_time"] == 4  # every job finished
    p = cli("campaign", "report", "--store", str(old), "--format", "markdown")
    assert "4 finished jobs were stored before 0.4" in p.stdout
    p = cli("campaign", "report", "--store", str(db), "--format", "markdown")
    assert "stored before 0.4" not in p.stdout


# ---- the HTML page in a real browser ----------------------------------------------------------------
def test_campaign_html_report_in_headless_chromium(late, tmp_path):
    pytest.importorskip("websocket", reason="websocket-client (the test extra) drives Chromium")
    if chromium() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run does)")
    d, db, _ = late
    bad = tmp_path / "bad.db"  # one late answer made wrong: that instance DISAGREEs
    src = sqlite3.connect(db)
    src.backup(dst := sqlite3.connect(bad))
    src.close()
    dst.execute("UPDATE runs SET objective = objective + 1 WHERE config = 'late' AND status = 'OPTIMAL' "
                "AND instance = (SELECT MIN(instance) FROM runs WHERE config = 'late' AND status = 'OPTIMAL')")
    dst.execute("ALTER TABLE runs ADD COLUMN certified TEXT")  # as a store with certificates has it
    dst.execute("UPDATE runs SET certified = 'drat-checked' WHERE config = 'tot'")
    dst.commit()
    dst.close()
    page = tmp_path / "report.html"
    p = cli("campaign", "report", "--store", str(bad), "--html", str(page), cwd=d)
    assert p.returncode == 1, p.stderr  # DISAGREE
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    assert len(text) < 2_000_000
    with Browser(tmp_path) as b:
        b.open(page)
        assert b.eval("document.querySelectorAll('#runs tbody tr').length") == 9
        assert b.eval("document.getElementById('shown').textContent") == "9 of 9 runs"
        assert b.eval("document.querySelector('#verdict-table tbody tr .verdict').textContent") == "DISAGREE"
        assert b.eval("document.querySelectorAll('svg.plot').length") == 3  # cactus + 2 scatters
        column = ("Array.from(document.querySelectorAll('#runs tbody tr:not([hidden])'))"
                  ".map(tr => tr.cells[{k}].textContent)")
        heads = b.eval("Array.from(document.querySelectorAll('#runs th')).map(th => th.textContent)")
        k = heads.index("seconds")
        before = b.eval(column.format(k=k))
        b.eval(f"document.querySelectorAll('#runs th')[{k}].click()")
        up = b.eval(column.format(k=k))
        b.eval(f"document.querySelectorAll('#runs th')[{k}].click()")
        down = b.eval(column.format(k=k))
        assert up != before and [float(x) for x in up] == sorted(float(x) for x in before)
        assert down == up[::-1]
        assert "certified" in heads
        assert b.eval(column.format(k=heads.index("certified"))).count("drat-checked") == 3
        b.eval("const f = document.getElementById('filter'); f.value = 'late';"
               "f.dispatchEvent(new Event('input'))")
        assert b.eval("document.getElementById('shown').textContent") == "3 of 9 runs"
        assert set(b.eval(column.format(k=heads.index("config")))) == {"late"}
        b.eval("const g = document.getElementById('filter'); g.value = '';"
               "g.dispatchEvent(new Event('input'));"
               "const s = document.getElementById('status-filter'); s.value = 'UNKNOWN';"
               "s.dispatchEvent(new Event('change'))")
        assert b.eval("document.getElementById('shown').textContent") == "1 of 9 runs"
        b.eval("const t = document.getElementById('status-filter'); t.value = '';"
               "t.dispatchEvent(new Event('change'));"
               "const c = document.getElementById('late-filter'); c.click()")
        assert b.eval("document.getElementById('shown').textContent") == "3 of 9 runs"
        b.eval("document.getElementById('late-filter').click()")
        b.eval("Array.from(document.querySelectorAll('#runs tbody tr'))"
               ".find(tr => tr.textContent.includes('native')).click()")
        assert b.eval("new Promise(ok => { const i = document.querySelector('#detail img');"
                      " if (!i) ok(0); else if (i.complete) ok(i.naturalWidth);"
                      " else i.onload = () => ok(i.naturalWidth); })") > 0
        png = b.screenshot(tmp_path / "report.png")
        assert b.errors == []
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_html_report_into_a_missing_folder_is_one_line_exit_2(late, tmp_path):
    _, db, _ = late
    from puzzlesat.compare.campaign.run import open_report
    page = open_report(db).write_html(tmp_path / "plain.html").read_text(encoding="utf-8")
    assert '"certified_column":false' in page and '"over_limit":true' in page  # no such column here
    p = cli("campaign", "report", "--store", str(db), "--html", str(tmp_path / "no" / "r.html"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "does not exist" in p.stderr


# ---- Jupyter -----------------------------------------------------------------------------------
def test_results_comparisons_and_reports_show_as_small_escaped_html(late):
    import puzzlesat as ps
    from puzzlesat.compare.campaign.report import report
    from puzzlesat.compare.campaign.store import Store
    from puzzlesat.compare.lab import lab_instance
    from puzzlesat.core.config import parse_many
    import dataclasses

    def marked(inst, task, ctx):
        """The native count, with a reason that looks like markup (it must be shown as text)."""
        return dataclasses.replace(ps.solve(inst, "native", task).to_outcome(), reason="<i>x</i>")
    inst = ps.load("peg/hoppers-first06")
    c = ps.compare(inst, ["native", marked], "count")
    h = c._repr_html_()
    assert h.startswith("<table") and "&lt;i&gt;" in h and "<i>" not in h and "18" in h and "AGREE" in h
    r = c.results[0]
    h = r._repr_html_()
    assert h.startswith("<table") and "OPTIMAL" in h and "18" in h and "<script" not in h
    fam, inst = load_instance("peg/hoppers")
    lab = lab_instance(fam, inst, parse_many("a=sat"), "optimize")
    assert json.loads(json.dumps(lab))["configs"][0]["objective"] == 7  # still the JSON object
    assert "<table" in lab._repr_html_() and ">7<" in lab._repr_html_()
    store = Store.open_read(late[1])
    rep = report(store.rows(), store.meta())
    h = rep._repr_html_()
    assert h.count("<table") == 2 and "late.py:run" in h and "INCOMPLETE" in h
    assert rep.cactus()._repr_svg_().startswith("<svg")
