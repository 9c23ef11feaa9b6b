"""Cactus and scatter plots drawn directly as SVG text (no matplotlib): for the HTML report and
Jupyter. The same data as `campaign plot` (report.per_instance_times: per configuration and
instance the median seconds over repeats, unsolved — a limit, an error, or past the time limit —
as infinity).

    cactus   x: time (log), y: instances solved within that time, one line per configuration
    scatter  x, y: two configurations' times per instance (log-log); unsolved on the border
             beyond the dashed time-limit lines
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

from .report import config_table, per_instance_times

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf")
W, H = 560, 380
LEFT, RIGHT, TOP, BOTTOM = 56, 150, 30, 46


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten (and 2, 5 times them when few) between lo and hi."""
    ticks = [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    if len([t for t in ticks if lo <= t <= hi]) < 3:
        ticks = sorted(t * m for t in ticks for m in (1, 2, 5))
    return [t for t in ticks if lo <= t <= hi]


def _num(t: float) -> str:
    return f"{t:g}"


class _Frame:
    """A plot area with a log x axis (and a log or linear y axis)."""

    def __init__(self, xlo: float, xhi: float, ylo: float, yhi: float, ylog: bool, title: str,
                 xlabel: str, ylabel: str, width: int = W, right: int = RIGHT):
        self.xlo, self.xhi, self.ylo, self.yhi, self.ylog = xlo, xhi, ylo, yhi, ylog
        self.w = width
        self.parts: list[str] = []
        self.pw, self.ph = width - LEFT - right, H - TOP - BOTTOM
        p = self.parts
        p.append(f'<text x="{LEFT}" y="18" font-size="13" font-weight="bold">{escape(title)}</text>')
        p.append(f'<rect x="{LEFT}" y="{TOP}" width="{self.pw}" height="{self.ph}" fill="none" stroke="#444"/>')
        for t in _log_ticks(xlo, xhi):
            x = self.x(t)
            p.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + self.ph}" stroke="#ddd"/>')
            p.append(f'<text x="{x:.1f}" y="{TOP + self.ph + 14}" font-size="10" text-anchor="middle">{_num(t)}</text>')
        yt = _log_ticks(ylo, yhi) if ylog else _lin_ticks(ylo, yhi)
        for t in yt:
            y = self.y(t)
            p.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + self.pw}" y2="{y:.1f}" stroke="#ddd"/>')
            p.append(f'<text x="{LEFT - 4}" y="{y + 3:.1f}" font-size="10" text-anchor="end">{_num(t)}</text>')
        p.append(f'<text x="{LEFT + self.pw / 2:.0f}" y="{H - 8}" font-size="11" text-anchor="middle">{escape(xlabel)}</text>')
        p.append(f'<text x="14" y="{TOP + self.ph / 2:.0f}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 14 {TOP + self.ph / 2:.0f})">{escape(ylabel)}</text>')

    def x(self, v: float) -> float:
        f = (math.log10(v) - math.log10(self.xlo)) / (math.log10(self.xhi) - math.log10(self.xlo))
        return LEFT + f * self.pw

    def y(self, v: float) -> float:
        if self.ylog:
            f = (math.log10(v) - math.log10(self.ylo)) / (math.log10(self.yhi) - math.log10(self.ylo))
        else:
            f = (v - self.ylo) / ((self.yhi - self.ylo) or 1)
        return TOP + self.ph - f * self.ph

    def svg(self, kind: str) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="plot {kind}" width="{self.w}" height="{H}" '
                f'viewBox="0 0 {self.w} {H}" font-family="sans-serif">' + "".join(self.parts) + "</svg>")


def _lin_ticks(lo: float, hi: float) -> list[float]:
    span = max(hi - lo, 1)
    step = max(1, 10 ** math.floor(math.log10(span)) // (2 if span / 10 ** math.floor(math.log10(span)) < 3 else 1))
    return [float(v) for v in range(int(lo), int(hi) + 1, int(step))]


def _limit(rows: list[dict[str, Any]]) -> float:
    return max((r["time_limit"] for r in rows if r.get("time_limit")), default=1.0)


def cactus_svg(rows: list[dict[str, Any]], meta: dict[str, str]) -> str:
    """Instances solved (y) within a time (x, log), one line per configuration, as SVG text."""
    times = per_instance_times(rows)
    configs = list(config_table(rows))
    limit = _limit(rows)
    finite = [t for c in configs for t in times.get(c, {}).values() if math.isfinite(t) and t > 0]
    lo = max(1e-3, min(finite) / 1.5) if finite else 1e-3
    hi = limit * 1.2
    n = len({r["instance"] for r in rows})
    f = _Frame(lo, hi, 0, max(n, 1), False,
               f"campaign {meta.get('campaign')}: {n} instances, time limit {limit:g} s",
               "time (s, log)", "instances solved")
    x = f.x(limit)
    f.parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + f.ph}" stroke="#888" stroke-dasharray="4 3"/>')
    for k, c in enumerate(configs):
        color = COLORS[k % len(COLORS)]
        ts = sorted(max(t, lo) for t in times.get(c, {}).values() if math.isfinite(t))
        pts = [(f.x(t), f.y(i + 1)) for i, t in enumerate(ts)]
        if pts:
            f.parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="'
                           + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
            f.parts += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.5" fill="{color}"/>' for a, b in pts]
        ly = TOP + 12 + 16 * k
        f.parts.append(f'<line x1="{LEFT + f.pw + 10}" y1="{ly - 4}" x2="{LEFT + f.pw + 26}" y2="{ly - 4}" '
                       f'stroke="{color}" stroke-width="2"/>')
        f.parts.append(f'<text x="{LEFT + f.pw + 30}" y="{ly}" font-size="11">{escape(c)} ({len(ts)})</text>')
    return f.svg("cactus")


def scatter_svg(rows: list[dict[str, Any]], meta: dict[str, str], x: str, y: str) -> str:
    """Configuration `x` against `y`, one point per instance (log-log), unsolved on the border."""
    times = per_instance_times(rows)
    limit = _limit(rows)
    xs, ys = times.get(x, {}), times.get(y, {})
    insts = sorted(set(xs) & set(ys))
    finite = [t for i in insts for t in (xs[i], ys[i]) if math.isfinite(t) and t > 0]
    lo = max(1e-3, min(finite) / 2) if finite else 1e-3
    border = limit * 1.5
    f = _Frame(lo, border * 1.15, lo, border * 1.15, True,
               f"campaign {meta.get('campaign')}: {x} vs {y}", f"{x} (s)", f"{y} (s)",
               width=H + 40, right=20)
    a, b = f.x(lo), f.x(border)
    f.parts.append(f'<line x1="{a:.1f}" y1="{f.y(lo):.1f}" x2="{b:.1f}" y2="{f.y(border):.1f}" stroke="#888"/>')
    for v in (limit,):
        f.parts.append(f'<line x1="{f.x(v):.1f}" y1="{TOP}" x2="{f.x(v):.1f}" y2="{TOP + f.ph}" stroke="#888" stroke-dasharray="4 3"/>')
        f.parts.append(f'<line x1="{LEFT}" y1="{f.y(v):.1f}" x2="{LEFT + f.pw}" y2="{f.y(v):.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    for i in insts:
        px, py = (min(max(t, lo), border) for t in (xs[i], ys[i]))
        f.parts.append(f'<circle cx="{f.x(px):.1f}" cy="{f.y(py):.1f}" r="3.5" fill="{COLORS[0]}" '
                       f'fill-opacity="0.75"><title>{escape(i)}: {_t(xs[i])} / {_t(ys[i])}</title></circle>')
    f.parts.append(f'<text x="{LEFT + 4}" y="{TOP + 12}" font-size="10" fill="#666">unsolved: on the top/right border</text>')
    return f.svg("scatter")


def _t(v: float) -> str:
    return f"{v:.3f} s" if math.isfinite(v) else "unsolved"
