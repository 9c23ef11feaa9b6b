"""How the command line shows things: the consoles, tables of results, the live status line.

Every Console is made here, with emoji and markup off for text that is user data (an engine
named `buggy.py:boom` must print as written, not as an emoji).
"""
from __future__ import annotations

import sys
import textwrap
import threading
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.result import Result, Status

out = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)


class _Live:
    """A live one-line status on stderr (only on a terminal): label, the latest progress fields and
    the elapsed time, redrawn twice a second even when the engine reports nothing."""

    def __init__(self, label: str):
        self.label, self.fields, self.t0 = label, {}, time.monotonic()
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


def _note(r: Result, width: int = 160) -> str:
    """The last line of the result's reason, shortened at a word boundary."""
    note = (r.reason or "").strip().splitlines()[-1] if r.reason else ""
    if "count_lower_bound" in r.stats:
        note = (note + f"; ≥{r.stats['count_lower_bound']} found").strip("; ")
    return textwrap.shorten(note, width, placeholder=" …") if note else ""


def size_text(stats: dict) -> str:
    """A model's or a search's size from its numbers: `V vars, C clauses` (or `constraints`),
    else the nodes searched."""
    if stats.get("vars") is not None:
        n, unit = ((stats["clauses"], "clauses") if stats.get("clauses") is not None
                   else (stats.get("constraints"), "cons"))
        return f"{stats['vars']:,} vars" + (f", {n:,} {unit}" if n is not None else "")
    return f"{stats['nodes']:,} nodes" if isinstance(stats.get("nodes"), int) else ""


def _checked(r: Result) -> str:
    """Solutions that passed the checker, and those that failed it."""
    return f"{r.checked}" + (f" ({r.failed} failed)" if r.failed else "")


def _table(title: str, results: list[Result]) -> Table:
    t = Table(title=escape(title), title_justify="left")
    for col, just in (("engine", "left"), ("status", "left"), ("objective", "right"), ("count", "right"),
                      ("checked", "right"), ("time (s)", "right"), ("model / search size", "left"),
                      ("note", "left")):
        t.add_column(col, justify=just)
    for r in results:
        color = {Status.OPTIMAL: "green", Status.INFEASIBLE: "green", Status.FEASIBLE: "yellow",
                 Status.UNKNOWN: "yellow", Status.ERROR: "red"}[r.status]
        t.add_row(escape(r.label), f"[{color}]{r.status}[/]", _s(r.objective), _s(r.count), _checked(r),
                  f"{r.seconds:.3f}", escape(size_text(r.stats)), escape(_note(r)))
    return t


def _s(v) -> str:
    return "" if v is None else str(v)


