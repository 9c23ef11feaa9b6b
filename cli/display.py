"""How the command line shows things: the consoles, tables of results, the live status line.

Every Console is made here, with emoji and markup off for text that is user data (an engine
named `buggy.py:boom` must print as written, not as an emoji).
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..compare.tables import Table as TableModel, render, results_table
from ..core.result import Result

out = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)


class _Live:
    """A live one-line status on stderr (only on a terminal): label, the latest progress fields and
    the elapsed time, redrawn twice a second even when the engine reports nothing."""

    def __init__(self, label: str):
        self.label, self.t0 = label, time.monotonic()
        self.fields: dict[str, Any] = {}
        self.status = err.status(escape(f"{label} …"))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self):
        self.status.start()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(1)
        self.status.stop()

    def engine(self, name: str) -> None:
        """A new engine starts: its name, fresh fields and clock."""
        self.fields, self.t0 = {"engine": name}, time.monotonic()
        self._draw()

    def update(self, fields: dict) -> None:
        self.fields = {**({"engine": self.fields["engine"]} if "engine" in self.fields else {}), **fields}
        self._draw()

    def _draw(self) -> None:
        text = "  ".join(f"{k}={v}" for k, v in self.fields.items())
        self.status.update(escape(f"{self.label}  {text}  [{time.monotonic() - self.t0:.1f} s]"))

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            self._draw()


class _NoLive:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    update = engine = None


def _live(label: str):
    return _Live(label) if err.is_terminal else _NoLive()


def rich_table(t: TableModel) -> Table:
    """The text format of a table model (compare/tables.py): a rich table, statuses and verdicts
    in colour, the best cells bold; key fields in the title."""
    title = t.title + ("  " + "  ".join(f"{k}={v}" for k, v in t.key.items()) if t.key else "")
    rt = Table(title=escape(title), title_justify="left")
    idx = t.visible("text")
    for i in idx:
        c = t.columns[i]
        rt.add_column(escape(c.name), justify="right" if c.right else ("center" if c.kind == "mark" else "left"),
                      no_wrap=c.name == "engine", overflow="fold")  # an engine name stays whole
    for row in t.rows:
        cells = []
        for i in idx:
            cell = row[i]
            text = escape(cell.shown())
            if cell.color:
                text = f"[{cell.color}]{text}[/]"
            if cell.best and text:
                text = f"[bold]{text}[/]"
            cells.append(text)
        rt.add_row(*cells)
    return rt


def _table(title: str, results: list[Result], wrong: list[str | None] | None = None) -> Table:
    """The rich table of results (solve, compare; `wrong`: the comparison's refuted answers)."""
    return rich_table(results_table(title, results, wrong=wrong))


def print_tables(tables: list[TableModel], fmt: str, machine: dict | None = None) -> None:
    """Tables on stdout in `fmt`: text (rich, each table then its notes), csv, markdown, latex."""
    if fmt == "text":
        for t in tables:
            out.print(rich_table(t))
            for n in t.notes:
                out.print(f"  - {n}", markup=False)
        return
    sys.stdout.write(render(tables, fmt, machine))
    sys.stdout.flush()
