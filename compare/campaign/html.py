"""`campaign report --html FILE`: one self-contained HTML page for a campaign, in the spirit of
BenchExec's table-generator: every run in a sortable, filterable table, the verdict per instance
(DISAGREE first), the configurations' scores, cactus and scatter plots as inline SVG
(svgplot.py), the solution picture of a run on click, the spec and the parameters.

Self-contained: no network and no CDN — the data is embedded as JSON, the script is the small one
below, the CSS is inline, and each picture is the family's `svg` of the run's stored first
solution, computed when the page is written (identical pictures stored once; past a total budget
of PICTURE_BUDGET bytes a run says its picture was left out, so the file stays small). A picture
is shown as an <img> of a data: URL, so its SVG can run nothing. The page is written atomically.
"""
from __future__ import annotations

import hashlib
import html
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...core.files import write_atomic
from ...core.result import InputError
from ...families.instances import load_instance
from ..tables import footnote_parts
from .report import (certificate_verdict, cell_text, machine_of, mark_wrong, report_params,
                     report_tables)
from .spec import content_hash
from .store import loads
from .svgplot import cactus_svg, scatter_svg

PICTURE_BUDGET = 8_000_000   # bytes of SVG pictures in one page, at most
MAX_SCATTERS = 6             # scatter plots: the first configuration against each of the next ones

RUN_COLUMNS = (("instance", "text"), ("config", "text"), ("repeat", "num"), ("status", "text"),
               ("wrong", "text"), ("objective", "num"), ("count", "num"), ("seconds", "num"),
               ("startup_seconds", "num"), ("over_limit", "text"),
               ("termination", "text"), ("certified", "text"), ("picture", "text"))


def _instances(rows: list[dict[str, Any]], meta: dict[str, str], store_path: Path) -> dict[str, tuple]:
    """label -> (family, instance) or (None, why) for each stored instance: loaded by its label
    (a catalogue name, or a path as the spec gave it: tried beside the spec, the store and here)
    and accepted only if its content hash is the stored one."""
    out: dict[str, tuple] = {}
    bases = [Path(meta["spec_path"]).parent] if meta.get("spec_path") else []
    bases += [store_path.resolve().parent, Path(".")]
    for r in rows:
        label = r["instance"]
        if label in out:
            continue
        found: tuple = (None, "instance not found (its file is not beside the spec or the store)")
        for src in [label] + [str(b / label) for b in bases]:
            try:
                fam, inst = load_instance(src, _no_plugin, family=r.get("family") or None)
            except PluginRefused as e:
                found = (None, str(e))
                break
            except InputError:
                continue
            if r.get("instance_hash") and content_hash(fam, inst) != r["instance_hash"]:
                found = (None, f"{src} has changed since the run (its content hash differs)")
                continue
            found = (fam, inst)
            break
        out[label] = found
    return out


class PluginRefused(InputError):
    """A stored instance of a plug-in family: a report never runs a plug-in's code."""


def _no_plugin(fam) -> None:
    """The report's admission: a store names what a report draws, so no plug-in family's loader
    or catalogue runs for it (the store may come from anyone)."""
    if fam.user:
        raise PluginRefused(f"an instance of the plug-in family {fam.name}: a report does not run "
                            "a plug-in's code to draw it")


def _pictures(rows: list[dict[str, Any]], insts: dict[str, tuple]) -> tuple[dict[str, str], list]:
    """(picture id -> SVG text, per row: its picture id or why there is none)."""
    pics: dict[str, str] = {}
    spent = 0
    per_row: list = []
    for r in rows:
        fam, inst = insts.get(r["instance"], (None, "instance not loaded"))
        if not r.get("solution"):
            per_row.append((None, "no solution stored"))
            continue
        if fam is None:
            per_row.append((None, inst))
            continue
        if not fam.has_svg():
            per_row.append((None, f"family {fam.name} draws no pictures"))
            continue
        pid = hashlib.sha256(f"{r['instance']}\0{r['solution']}".encode()).hexdigest()[:16]
        if pid not in pics:
            try:
                svg = fam.svg(inst, fam.solution_from_json(inst, json.loads(r["solution"])))
            except Exception as e:  # a stored solution this version cannot draw: say so, go on
                per_row.append((None, f"picture failed: {type(e).__name__}: {e}"[:200]))
                continue
            if spent + len(svg) > PICTURE_BUDGET:
                per_row.append((None, f"picture left out (the page's {PICTURE_BUDGET // 1_000_000} MB "
                                      "picture budget is spent)"))
                continue
            pics[pid] = svg
            spent += len(svg)
        per_row.append((pid, None))
    return pics, per_row


def page_data(rows: list[dict[str, Any]], meta: dict[str, str], rep: dict[str, Any],
              store_path: str | Path) -> dict[str, Any]:
    """Everything the page shows, as one JSON-able object."""
    rows = mark_wrong(rows)
    insts = _instances(rows, meta, Path(store_path))
    pics, per_row = _pictures(rows, insts)
    certified = any("certified" in r or r.get("certificate") for r in rows)
    runs = []
    for r, (pid, why) in zip(rows, per_row):
        runs.append({"instance": r["instance"], "family": r["family"], "config": r["config"],
                     "config_spec": r["config_spec"], "repeat": r["repeat"], "task": r["task"],
                     "status": r["status"], "wrong": r.get("wrong") or "",
                     "objective": r["objective"], "count": r["count"],
                     "seconds": r["seconds"], "startup_seconds": r.get("startup_seconds"),
                     "check_seconds": r.get("check_seconds"), "over_limit": bool(r["over_limit"]),
                     "termination": r["termination"], "reason": r["reason"],
                     "certified": r.get("certified") or certificate_verdict(r), "cell": cell_text(r),
                     "picture": pid,
                     "no_picture": why, "params": loads(r.get("params")),
                     "cpu_seconds": r.get("cpu_seconds"), "peak_memory_mb": r.get("peak_memory_mb"),
                     "host": r.get("host"), "finished": r.get("finished")})
    return {"campaign": rep["campaign"], "task": rep["task"], "jobs": rep["jobs"],
            "certified_column": certified, "runs": runs, "pictures": pics,
            "columns": [c for c, _ in RUN_COLUMNS if c != "certified" or certified],
            "numeric": [c for c, k in RUN_COLUMNS if k == "num"]}


def _json_script(obj: Any) -> str:
    """JSON safe inside <script type="application/json"> (no `</`, no HTML comment openers)."""
    return (json.dumps(obj, default=str, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def render_html(rows: list[dict[str, Any]], meta: dict[str, str], rep: dict[str, Any],
                store_path: str | Path) -> str:
    """The page's text."""
    e = html.escape
    data = page_data(rows, meta, rep, store_path)
    tables = report_tables(rep, rows, meta)
    configs = list(rep["configs"])
    plots = []
    if rows:
        plots.append(cactus_svg(rows, meta))
        for y in configs[1:1 + MAX_SCATTERS]:
            plots.append(scatter_svg(rows, meta, configs[0], y))
    counts = {v: sum(i["verdict"] == v for i in rep["instances"])
              for v in ("DISAGREE", "INCOMPLETE", "UNCHECKED", "AGREE")}
    verdict_rows = []
    for i in rep["instances"]:
        verdict_rows.append(
            f'<tr class="v-{e(i["verdict"])}"><td>{e(i["instance"])}</td><td>{e(i["task"])}</td>'
            f'<td class="verdict">{e(i["verdict"])}</td><td>{e("; ".join(i["reasons"]))}</td></tr>')
    score = tables[0]
    score_rows = []
    for row in score.rows:
        score_rows.append("<tr>" + "".join(
            f'<td class="{"num" if col.right else ""}{" best" if c.best else ""}"'
            + (f' data-v="{e(str(c.value))}"' if col.right and c.value is not None else "")
            + f">{e(c.shown())}</td>" for col, c in zip(score.columns, row)) + "</tr>")
    m = machine_of(meta, rows)
    foot = footnote_parts(score, m)
    params = report_params(rows, meta)
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    title = f"campaign {rep['campaign']}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)} — puzzlesat report</title>
<style>{CSS}</style></head>
<body>
<header><h1>{e(title)}</h1>
<p>task {e(str(rep['task']))} · {rep['jobs']} jobs · {len(rep['instances'])} instances ·
{len(configs)} configurations · verdicts:
<span class="verdict v-DISAGREE">DISAGREE {counts['DISAGREE']}</span>
<span class="verdict v-INCOMPLETE">INCOMPLETE {counts['INCOMPLETE']}</span>
{f'<span class="verdict v-UNCHECKED">UNCHECKED {counts["UNCHECKED"]}</span>' if counts["UNCHECKED"] else ""}
<span class="verdict v-AGREE">AGREE {counts['AGREE']}</span></p>
<p class="small">written {e(generated)} by puzzlesat from {e(str(store_path))}</p></header>
<nav><a href="#runs-section">runs</a> · <a href="#verdicts">verdicts</a> · <a href="#scores">scores</a> ·
<a href="#plots">plots</a> · <a href="#spec">spec and parameters</a></nav>
<section id="runs-section"><h2>Runs</h2>
<div class="controls"><label>filter <input id="filter" type="search" placeholder="instance, config, status…"></label>
<label>status <select id="status-filter"><option value="">all</option>
{"".join(f'<option>{s}</option>' for s in ("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "ERROR"))}
</select></label>
<label><input id="late-filter" type="checkbox"> only over the limit</label>
<span id="shown"></span> <span class="small">(click a column to sort, a run to see its picture)</span></div>
<div class="runs-wrap"><div class="runs-scroll"><table id="runs" class="sortable"><thead><tr></tr></thead><tbody></tbody></table></div>
<aside id="detail"><p class="small">Click a run to see its first checked solution.</p></aside></div>
</section>
<section id="verdicts"><h2>Verdict per instance</h2>
<p class="small">Across every configuration and repeat, by the rules of <code>compare</code>; DISAGREE first.</p>
<table id="verdict-table" class="sortable"><thead><tr><th data-key="0">instance</th><th data-key="1">task</th>
<th data-key="2">verdict</th><th data-key="3">reasons</th></tr></thead><tbody>{"".join(verdict_rows)}</tbody></table>
</section>
<section id="scores"><h2>Scores per configuration</h2>
<p class="small">solved: finished with a proved answer within the time limit (a run past the limit
is unsolved); wrong: an answer the cross-check refuted (unsolved, and its configuration is never
best); PAR-2: mean engine seconds, unsolved and wrong counted as twice the limit; best PAR-2 in
bold. Times are engine seconds: the worker's start-up and the checking are apart.</p>
<table id="score-table" class="sortable"><thead><tr>{"".join(f'<th data-key="{k}">{e(c.name)}</th>' for k, c in enumerate(score.columns))}</tr></thead>
<tbody>{"".join(score_rows)}</tbody></table></section>
<section id="plots"><h2>Plots</h2><div class="plots">{"".join(plots)}</div>
<p class="small">Per instance the median over repeats; unsolved runs (limits, errors, past the limit) are off the cactus plot and on the scatter plots' border.</p></section>
<section id="spec"><h2>Spec and parameters</h2>
<ul>{"".join(f"<li>{e(p)}</li>" for p in foot)}</ul>
<table class="params"><tbody>{"".join(f"<tr><th>{e(k)}</th><td>{e(_text(v))}</td></tr>" for k, v in params.items())}</tbody></table>
<h3>campaign.toml</h3><pre>{e(meta.get('spec') or '(not stored)')}</pre></section>
<script type="application/json" id="data">{_json_script(data)}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def _text(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} = {x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def write_html(path: str | Path, store_path: str | Path, rows: list[dict[str, Any]],
               meta: dict[str, str], rep: dict[str, Any]) -> Path:
    """Write the page to `path` atomically (a missing folder: InputError)."""
    return write_atomic(path, render_html(rows, meta, rep, store_path), "HTML report")


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 1.5em 2em;color:#1f2328;font-size:14px}
h1{margin:.6em 0 .2em;font-size:22px}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.4em}
.small{color:#59636e;font-size:12px}nav{margin:.4em 0 0}a{color:#0969da}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 7px;vertical-align:top}
th{background:#f6f8fa;cursor:pointer;user-select:none;white-space:nowrap}
th.asc::after{content:" \\25B2";font-size:10px}th.desc::after{content:" \\25BC";font-size:10px}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.best{font-weight:bold}
tbody tr:nth-child(even){background:#fafbfc}#runs tbody tr{cursor:pointer}#runs tbody tr:hover{background:#ddf4ff}
#runs tbody tr.selected{background:#b6e3ff}
.verdict{font-weight:bold;padding:0 4px;border-radius:3px}
.v-DISAGREE .verdict,.verdict.v-DISAGREE,.s-ERROR{color:#cf222e}.v-INCOMPLETE .verdict,.verdict.v-INCOMPLETE,.v-UNCHECKED .verdict,.verdict.v-UNCHECKED,.s-UNKNOWN,.s-FEASIBLE{color:#9a6700}
.v-AGREE .verdict,.verdict.v-AGREE,.s-OPTIMAL,.s-INFEASIBLE{color:#1a7f37}
tr.v-DISAGREE{background:#ffebe9}.late{color:#cf222e;font-weight:bold}
.controls{margin:.3em 0 .6em;display:flex;gap:1.2em;align-items:center;flex-wrap:wrap}
.runs-wrap{display:flex;gap:1em;align-items:flex-start}.runs-scroll{max-height:65vh;overflow:auto;border:1px solid #d0d7de}
.runs-scroll th{position:sticky;top:0}#detail{min-width:280px;max-width:420px;position:sticky;top:8px;
border:1px solid #d0d7de;border-radius:6px;padding:.5em .8em;background:#fff}
#detail dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:.3em 0}#detail dd{margin:0;word-break:break-word}
#detail img{max-width:100%;max-height:420px;display:block;margin:.4em 0;border:1px solid #eee}
.plots{display:flex;flex-wrap:wrap;gap:1em}.plots svg{border:1px solid #d0d7de;background:#fff}
pre{background:#f6f8fa;padding:.6em;border-radius:6px;overflow:auto}table.params th{text-align:left;cursor:default}
"""

SCRIPT = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
const NUMERIC = new Set(DATA.numeric);
const runs = document.getElementById("runs");
let shownRuns = DATA.runs.map((r, i) => i);

function fmt(run, col) {
  const v = run[col];
  if (col === "seconds" || col === "startup_seconds") return v === null || v === undefined ? "" : Number(v).toFixed(3);
  if (col === "over_limit") return v ? "over limit" : "";
  if (col === "wrong") return v ? "wrong" : "";
  if (col === "picture") return run.picture ? "yes" : "";
  if (col === "certified") return v === null || v === undefined ? "" : String(v);
  return v === null || v === undefined ? "" : String(v);
}

function buildRuns() {
  const head = runs.tHead.rows[0];
  DATA.columns.forEach((c, k) => {
    const th = document.createElement("th");
    th.textContent = c.replace("_", " ");
    th.dataset.key = String(k);
    head.appendChild(th);
  });
  const body = runs.tBodies[0];
  DATA.runs.forEach((run, i) => {
    const tr = document.createElement("tr");
    tr.dataset.index = String(i);
    DATA.columns.forEach((c) => {
      const td = document.createElement("td");
      td.textContent = fmt(run, c);
      if (NUMERIC.has(c)) { td.className = "num"; if (run[c] !== null) td.dataset.v = String(run[c]); }
      if (c === "status") td.className = "s-" + run.status;
      if ((c === "over_limit" && run.over_limit) || (c === "wrong" && run.wrong)) td.className = "late";
      tr.appendChild(td);
    });
    tr.addEventListener("click", () => showRun(i, tr));
    body.appendChild(tr);
  });
}

function applyFilter() {
  const words = document.getElementById("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const status = document.getElementById("status-filter").value;
  const late = document.getElementById("late-filter").checked;
  let n = 0;
  for (const tr of runs.tBodies[0].rows) {
    const run = DATA.runs[Number(tr.dataset.index)];
    const text = tr.textContent.toLowerCase() + " " + (run.config_spec || "").toLowerCase();
    const ok = words.every((w) => text.includes(w)) && (!status || run.status === status)
      && (!late || run.over_limit);
    tr.hidden = !ok;
    if (ok) n += 1;
  }
  document.getElementById("shown").textContent = n + " of " + DATA.runs.length + " runs";
}

function cellValue(td) {
  if (td.dataset.v !== undefined) return Number(td.dataset.v);
  return td.textContent;
}

function sortBy(table, th) {
  const k = Number(th.dataset.key);
  const asc = !th.classList.contains("asc");
  for (const h of table.tHead.rows[0].cells) h.classList.remove("asc", "desc");
  th.classList.add(asc ? "asc" : "desc");
  const rows = Array.from(table.tBodies[0].rows);
  rows.sort((a, b) => {
    const x = cellValue(a.cells[k]), y = cellValue(b.cells[k]);
    const xe = x === "" , ye = y === "";
    if (xe || ye) return xe === ye ? 0 : (xe ? 1 : -1);
    const c = typeof x === "number" && typeof y === "number" ? x - y
      : String(x).localeCompare(String(y), undefined, {numeric: true});
    return asc ? c : -c;
  });
  for (const r of rows) table.tBodies[0].appendChild(r);
}

function showRun(i, tr) {
  for (const r of runs.tBodies[0].rows) r.classList.remove("selected");
  tr.classList.add("selected");
  const run = DATA.runs[i];
  const box = document.getElementById("detail");
  box.textContent = "";
  const h = document.createElement("h3");
  h.textContent = run.instance + " · " + run.config + (run.repeat ? " #" + run.repeat : "");
  box.appendChild(h);
  const lines = [["status", run.status + (run.over_limit ? " (over the time limit: unsolved)" : "")],
    ["wrong", run.wrong], ["value", run.cell], ["configuration", run.config_spec], ["task", run.task],
    ["engine seconds", fmt(run, "seconds")], ["start-up seconds", fmt(run, "startup_seconds")],
    ["check seconds", run.check_seconds], ["CPU seconds", run.cpu_seconds], ["peak memory MB", run.peak_memory_mb],
    ["termination", run.termination], ["reason", run.reason], ["host", run.host]];
  if (DATA.certified_column) lines.push(["certified", run.certified]);
  const dl = document.createElement("dl");
  for (const [k, v] of lines) {
    if (v === null || v === undefined || v === "") continue;
    const dt = document.createElement("dt"); dt.textContent = k; dt.className = "small";
    const dd = document.createElement("dd"); dd.textContent = String(v);
    dl.append(dt, dd);
  }
  box.appendChild(dl);
  if (run.picture && DATA.pictures[run.picture]) {
    const img = document.createElement("img");
    img.alt = "first checked solution of " + run.instance;
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(DATA.pictures[run.picture]);
    box.appendChild(img);
  } else {
    const p = document.createElement("p"); p.className = "small";
    p.textContent = "no picture: " + (run.no_picture || "none");
    box.appendChild(p);
  }
}

buildRuns();
for (const table of document.querySelectorAll("table.sortable")) {
  for (const th of table.tHead.rows[0].cells) th.addEventListener("click", () => sortBy(table, th));
}
for (const id of ["filter", "status-filter", "late-filter"]) {
  document.getElementById(id).addEventListener("input", applyFilter);
  document.getElementById(id).addEventListener("change", applyFilter);
}
applyFilter();
"""
