"""Tables as data, rendered to every format: the one place where `lab`, `compare`, `solve` and
`campaign report` become CSV, Markdown, LaTeX or HTML (the command line draws the text format
with rich from the same model: cli/display.rich_table).

    Cell     a value (what CSV writes), its text (what people read), a kind, and flags: `best`
             (bold in Markdown, LaTeX and HTML; the best configuration per instance) and
             `unknown` (no answer: a dash in LaTeX)
    Column   a name, a kind (numbers are right-aligned), and the formats it appears in
             (`only`: e.g. an `over_limit` flag only CSV writes, the text shows it in the status)
    Table    title, columns, rows, `key` (the context, e.g. instance, task and verdict: CSV puts
             it in leading columns, the others in the caption), `notes` (lines after the table,
             e.g. the reasons of a verdict), `params` (the run's parameters, for the footnote)

LaTeX uses booktabs (`\\usepackage{booktabs}`): one `table` environment per Table with a footnote
naming the machine (platform, CPU count), the solver versions (ortools, python-sat, numba) and the
parameters. Nothing here imports rich, a solver or a search.
"""
from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..core.machine import machine as this_machine

FORMATS = ("text", "json", "csv", "markdown", "latex")
NUMERIC = ("int", "float", "seconds")
STATUS_COLORS = {"OPTIMAL": "green", "INFEASIBLE": "green", "FEASIBLE": "yellow", "UNKNOWN": "yellow",
                 "ERROR": "red", "UNIQUE": "green", "MULTIPLE": "green",
                 "AGREE": "green", "DISAGREE": "red", "INCOMPLETE": "yellow", "UNCHECKED": "yellow"}


@dataclass(frozen=True)
class Cell:
    """One cell: `value` for machines, `text` for people (default: the value formatted by kind)."""

    value: Any
    kind: str = "text"          # text, int, float, seconds, status, verdict, mark
    text: str | None = None
    best: bool = False          # the best per instance: bold
    unknown: bool = False       # no answer (a limit): a dash in LaTeX
    wrong: bool = False         # an answer the cross-check refuted: red where there is colour

    @property
    def color(self) -> str | None:
        """The colour of a status or verdict cell (STATUS_COLORS; red for a wrong answer)."""
        if self.wrong:
            return "red"
        return STATUS_COLORS.get(str(self.value)) if self.kind in ("status", "verdict") else None

    def shown(self) -> str:
        """The text people read."""
        if self.text is not None:
            return self.text
        v = self.value
        if v is None:
            return ""
        if self.kind == "int" and isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        if self.kind == "seconds" and isinstance(v, (int, float)):
            return f"{v:.3f}"
        if self.kind == "float" and isinstance(v, (int, float)):
            return f"{v:.3f}"
        if self.kind == "mark":
            return "*" if v else ""
        return str(v)

    @property
    def is_unknown(self) -> bool:
        return self.unknown or (self.kind == "status" and self.value == "UNKNOWN")


def cell(value: Any, kind: str = "text", text: str | None = None, **flags: bool) -> Cell:
    """A Cell (shorthand)."""
    return Cell(value, kind, text, **flags)


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "text"
    only: tuple[str, ...] | None = None   # the formats that show this column (None: all)

    @property
    def right(self) -> bool:
        return self.kind in NUMERIC


@dataclass
class Table:
    """A titled table of cells with its context, notes and parameters."""

    title: str
    columns: list[Column]
    rows: list[list[Cell]] = field(default_factory=list)
    key: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    def add(self, *cells: Cell | Any) -> None:
        """Append a row (plain values become text cells)."""
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([c if isinstance(c, Cell) else Cell(c) for c in cells])

    def visible(self, fmt: str) -> list[int]:
        """Indices of the columns format `fmt` shows."""
        return [i for i, c in enumerate(self.columns) if c.only is None or fmt in c.only]

    def records(self) -> list[dict[str, Any]]:
        """One dict per row: the key's fields, then each column's value."""
        return [{**self.key, **{c.name: r[i].value for i, c in enumerate(self.columns)}}
                for r in self.rows]


def render(tables: Iterable[Table], fmt: str, machine: dict[str, Any] | None = None) -> str:
    """The tables in `fmt` (csv, markdown, latex, html); `machine` for the footnote (default:
    this machine; a campaign passes the one its store recorded)."""
    tables = list(tables)
    if fmt == "csv":
        return to_csv(tables)
    if fmt == "markdown":
        return "\n".join(to_markdown(t, machine) for t in tables)
    if fmt == "latex":
        return "\n".join(to_latex(t, machine) for t in tables)
    if fmt == "html":
        return "\n".join(to_html(t) for t in tables)
    raise ValueError(f"no table format {fmt!r}")


# ---- CSV ------------------------------------------------------------------------------------------
def to_csv(tables: list[Table]) -> str:
    """Values, not texts. Tables of one shape (one per instance) are one CSV table with the key's
    fields first; tables of different shapes follow each other, separated by an empty line."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    last = None
    for t in tables:
        idx = t.visible("csv")
        header = [*t.key, *(t.columns[i].name for i in idx)]
        if header != last:
            if last is not None:
                buf.write("\n")
            w.writerow(header)
            last = header
        for r in t.rows:
            w.writerow([*map(csv_text, t.key.values()), *(_csv_value(r[i].value) for i in idx)])
    return buf.getvalue()


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return round(v, 6)
    return csv_text(v)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_text(v: Any) -> Any:
    """A CSV cell that no spreadsheet reads as a formula: a text beginning with = + - @ or a
    control character gets a leading apostrophe (OWASP's CSV injection advice); numbers, and
    texts that are numbers ('-3', '1e-5'), stay as they are. A carriage return becomes a line
    feed (the writer quotes a cell with a line feed; a bare one would split the row)."""
    if not isinstance(v, str):
        return v
    if "\r" in v:
        v = v.replace("\r\n", "\n").replace("\r", "\n")
    if not v.startswith(FORMULA_START):
        return v
    try:
        float(v)
        return v
    except ValueError:
        return "'" + v


# ---- footnote -------------------------------------------------------------------------------------
def footnote_parts(t: Table, machine: dict[str, Any] | None) -> list[str]:
    """[machine, solvers, parameters] as plain text."""
    m = machine if machine is not None else this_machine()
    parts = []
    hosts = f" (hosts: {', '.join(m['hosts'])})" if m.get("hosts") else ""
    if m.get("platform"):
        parts.append(f"machine: {m['platform']}, {m.get('cpus', '?')} CPUs{hosts}")
    else:
        parts.append(f"machine: not recorded{hosts}")
    vs = m.get("versions") or {}
    if vs or m.get("puzzlesat"):
        parts.append("solvers: " + (", ".join(f"{k} {v}" for k, v in vs.items()) or "not recorded")
                     + (f"; puzzlesat {m['puzzlesat']}" if m.get("puzzlesat") else ""))
    if t.params:
        parts.append("parameters: " + "; ".join(f"{k} {_param(v)}" for k, v in t.params.items()))
    return parts


def _param(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    if v is None:
        return "none"
    return str(v)


# ---- Markdown -------------------------------------------------------------------------------------
def _md(s: str) -> str:
    """Text in a Markdown table: pipes and backslashes escaped, and <, >, & as HTML entities, so
    that no raw HTML (a script, an image, a link) passes through to a renderer."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\\", "\\\\").replace("|", "\\|").replace("\n", " "))


def to_markdown(t: Table, machine: dict[str, Any] | None = None) -> str:
    """A pipe table under its title in bold; best cells bold; notes and footnote below."""
    idx = t.visible("markdown")
    title = t.title + ("  (" + ", ".join(f"{k} {v}" for k, v in t.key.items()) + ")" if t.key else "")
    lines = [f"**{_md(title)}**", "",
             "| " + " | ".join(_md(t.columns[i].name) for i in idx) + " |",
             "|" + "|".join("---:" if t.columns[i].right else "---" for i in idx) + "|"]
    for r in t.rows:
        texts = []
        for i in idx:
            s = _md(r[i].shown())
            texts.append(f"**{s}**" if r[i].best and s else s)
        lines.append("| " + " | ".join(texts) + " |")
    lines.append("")
    lines += [f"- {_md(n)}" for n in t.notes]
    if t.notes:
        lines.append("")
    lines.append("_" + _md("; ".join(footnote_parts(t, machine))) + "_")
    lines.append("")
    return "\n".join(lines)


# ---- LaTeX ----------------------------------------------------------------------------------------
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "≤": r"$\le$", "≥": r"$\ge$", "–": "--", "—": "---", "…": r"\dots{}", "×": r"$\times$",
        "→": r"$\to$", "−": "$-$"}


def tex(s: str) -> str:
    """`s` with LaTeX's special characters escaped (and a few symbols as math)."""
    return "".join(_TEX.get(ch, ch) if ord(ch) < 128 or ch in _TEX else ch for ch in s)


def to_latex(t: Table, machine: dict[str, Any] | None = None) -> str:
    """A booktabs table: the best per instance in bold, UNKNOWN (no answer) as a dash, a
    footnote with the machine, the solver versions and the parameters."""
    idx = t.visible("latex")
    spec = "".join("r" if t.columns[i].right else "l" for i in idx)
    caption = t.title + (" (" + ", ".join(f"{k} {v}" for k, v in t.key.items()) + ")" if t.key else "")
    out = [r"% puzzlesat table; needs \usepackage{booktabs}", r"\begin{table}[htbp]", r"\centering",
           r"\caption{" + tex(caption) + "}", r"\begin{tabular}{" + spec + "}", r"\toprule",
           " & ".join(tex(t.columns[i].name) for i in idx) + r" \\", r"\midrule"]
    for r in t.rows:
        texts = []
        for i in idx:
            c = r[i]
            s = "--" if c.is_unknown else tex(c.shown())
            texts.append(r"\textbf{" + s + "}" if c.best and s and not c.is_unknown else s)
        out.append(" & ".join(texts) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    notes = [tex(n) for n in t.notes]
    foot = [tex(p) for p in footnote_parts(t, machine)]
    out.append(r"\par\smallskip{\footnotesize " + r"\\ ".join(notes + foot) + "}")
    out += [r"\end{table}", ""]
    return "\n".join(out)


# ---- HTML -----------------------------------------------------------------------------------------
TABLE_CSS = ("border-collapse:collapse;font-family:sans-serif;font-size:13px")
_CELL_CSS = "border:1px solid #ccc;padding:2px 6px"
_HTML_COLORS = {"green": "#1a7f37", "yellow": "#9a6700", "red": "#cf222e"}


def to_html(t: Table) -> str:
    """A small self-contained HTML table (every text escaped, inline styles, no script): what
    Jupyter shows (`_repr_html_`)."""
    idx = t.visible("html")
    e = html.escape
    caption = t.title + (" (" + ", ".join(f"{k} {v}" for k, v in t.key.items()) + ")" if t.key else "")
    out = [f'<table style="{TABLE_CSS}"><caption style="text-align:left;font-weight:bold">'
           f"{e(caption)}</caption><thead><tr>"]
    out += [f'<th style="{_CELL_CSS};text-align:{"right" if t.columns[i].right else "left"}">'
            f"{e(t.columns[i].name)}</th>" for i in idx]
    out.append("</tr></thead><tbody>")
    for r in t.rows:
        out.append("<tr>")
        for i in idx:
            c = r[i]
            style = f'{_CELL_CSS};text-align:{"right" if t.columns[i].right else "left"}'
            if c.color:
                style += f";color:{_HTML_COLORS[c.color]}"
            if c.best:
                style += ";font-weight:bold"
            out.append(f'<td style="{style}">{e(c.shown())}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    if t.notes:
        out.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in t.notes) + "</ul>")
    return "".join(out)


# ---- tables of results (solve, compare) ------------------------------------------------------------
def size_text(stats: dict) -> str:
    """A model's or a search's size from its numbers: `V vars, C clauses` (or `cons`), else the
    nodes searched."""
    if stats.get("vars") is not None:
        n, unit = ((stats["clauses"], "clauses") if stats.get("clauses") is not None
                   else (stats.get("constraints"), "cons"))
        return f"{stats['vars']:,} vars" + (f", {n:,} {unit}" if n is not None else "")
    return f"{stats['nodes']:,} nodes" if isinstance(stats.get("nodes"), int) else ""


def note_text(r: Any, width: int = 160) -> str:
    """The last line of a result's reason (and a count's lower bound), shortened at a word."""
    import textwrap
    note = (r.reason or "").strip().splitlines()[-1] if r.reason else ""
    if "count_lower_bound" in r.stats:
        note = (note + f"; ≥{r.stats['count_lower_bound']} found").strip("; ")
    return textwrap.shorten(note, width, placeholder=" …") if note else ""


RESULT_COLUMNS = [Column("engine"), Column("status"), Column("objective", "int"), Column("count", "int"),
                  Column("checked", "int"), Column("time (s)", "seconds"),
                  Column("startup_seconds", "seconds", only=("csv",)),
                  Column("check_seconds", "seconds", only=("csv",)),
                  Column("over_limit", "int", only=("csv",)), Column("wrong", "int", only=("csv",)),
                  Column("model / search size"), Column("note")]


def status_text(status: Any, late: bool = False, wrong: bool = False) -> str:
    """A status as tables show it: `(over limit)` for an answer after the time limit, `(wrong)`
    for an answer the cross-check refuted (crossval.assess)."""
    return str(status) + (" (over limit)" if late else "") + (" (wrong)" if wrong else "")


def results_table(title: str, results: list, key: dict[str, str] | None = None,
                  params: dict[str, Any] | None = None, best: bool = False,
                  wrong: list[str | None] | None = None) -> Table:
    """One row per checked Result (solve, compare). A result that ended after its time limit
    says `(over limit)` in its status, one whose answer the cross-check refuted (`wrong`, per
    result: why, or None) says `(wrong)` and its reason in the note; with `best`, the fastest
    result that finished within its limit, and is not wrong, is marked best. Times are engine
    seconds (Result.seconds); CSV adds the start-up and checking seconds apart."""
    certs = any(getattr(r, "certificate", None) for r in results)  # runs asked to certify
    answers = any(getattr(r, "answer", None) for r in results)  # task unique
    cols = list(RESULT_COLUMNS)
    if certs:
        cols.insert(5, Column("certificate"))
    wrong = list(wrong) if wrong is not None else [None] * len(results)
    if answers:
        cols.insert(2, Column("answer", "status"))
    t = Table(title, cols, key=dict(key or {}), params=dict(params or {}))
    fastest = None
    if best:
        done = [r for r, w in zip(results, wrong) if r.finished() and not r.over_limit() and not w]
        fastest = min(done, key=lambda r: r.seconds, default=None)
    for r, w in zip(results, wrong):
        late = r.over_limit()
        checked = f"{r.checked}" + (f" ({r.failed} failed)" if r.failed else "")
        c = getattr(r, "certificate", None)
        cert = (cell(None if c is None else str(c.verdict)),) if certs else ()
        note = note_text(r) if not w else f"wrong: {w}"
        answer = (cell(getattr(r, "answer", None), "status"),) if answers else ()
        t.add(cell(r.label), cell(str(r.status), "status", status_text(r.status, late, bool(w)), wrong=bool(w)),
              *answer,
              cell(r.objective, "int", None if r.objective is None else str(r.objective)),
              cell(r.count, "int", None if r.count is None else str(r.count)),
              cell(r.checked, "int", checked), *cert,
              cell(round(r.seconds, 4), "seconds", best=r is fastest),
              cell(_round(getattr(r, "startup_seconds", None)), "seconds"),
              cell(_round(getattr(r, "check_seconds", None)), "seconds"),
              cell(int(late), "int"), cell(int(bool(w)), "int"), cell(size_text(r.stats)), cell(note))
    return t


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def run_params(results: list, task: Any = None) -> dict[str, Any]:
    """The parameters a table's footnote names: task, limits, and each configuration's
    canonical form where it is more than its name."""
    p: dict[str, Any] = {}
    if task is not None:
        p["task"] = str(task)
    limits = {r.params.get("time_limit") for r in results}
    if limits:
        p["time limit (s)"] = ", ".join(sorted(_param(x) for x in limits))
    mems = {r.params.get("memory_limit_mb") for r in results}
    if mems:
        p["memory limit (MB)"] = ", ".join(sorted(_param(x if x is None else round(x)) for x in mems))
    return p
