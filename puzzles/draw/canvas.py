"""A minimal SVG writer: elements appended in drawing order, escaped, with a computed viewBox.

>>> c = Canvas()
>>> c.rect(0, 0, 10, 5, fill="red"); c.text(5, 4, "a<b")
>>> print(c.svg(pad=0).splitlines()[2].strip())
<rect x="0" y="0" width="10" height="5" fill="red"/>
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

# ---- vocabulary -------------------------------------------------------------------------------
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK = "#1a202c"          # text and outlines
MUTED = "#718096"        # secondary text, hole numbers
PAPER = "#ffffff"        # background


# Advance widths of DejaVu Sans (Book, Bold) in em, read from the fonts' hmtx tables (rounded to
# 0.01), by groups of characters of one width; any other character counts as `WIDE` (a
# deliberate overestimate: a picture may get a little margin, never clipped text).
_WIDTHS = {
    None: {0.27: "'", 0.28: 'ijl', 0.29: 'IJ', 0.32: ' ,.·', 0.34: '/:;\\|', 0.35: 'f', 0.36: '-',
           0.39: '()[]t', 0.4: '!', 0.41: 'r', 0.46: '"', 0.5: '*_`–', 0.52: 'sz', 0.53: '?',
           0.55: 'c', 0.56: 'L', 0.58: 'Fk', 0.59: 'vxy', 0.6: 'P', 0.61: 'TYao', 0.62: 'e',
           0.63: 'ESbdghnpqu', 0.64: '$0123456789{}', 0.66: 'K', 0.68: 'AV', 0.69: 'BRXZ',
           0.7: 'C', 0.73: 'U', 0.75: 'HN', 0.77: 'DG', 0.78: '&', 0.79: 'OQ', 0.82: 'w',
           0.84: '#+<=>^~→←↑↓×≤≥', 0.86: 'M', 0.95: '%', 0.97: 'm', 0.99: 'W', 1.0: '@—…'},
    "bold": {0.31: "'", 0.34: 'ijl', 0.35: ' ', 0.37: '/IJ\\|', 0.38: ',.·', 0.4: ':;', 0.42: '-',
             0.44: 'f', 0.46: '!()[]', 0.48: 't', 0.49: 'r', 0.5: '_`–', 0.52: '"*', 0.58: '?z',
             0.59: 'c', 0.6: 's', 0.64: 'L', 0.65: 'vxy', 0.67: 'ak', 0.68: 'EFTe', 0.69: 'o',
             0.7: '$0123456789', 0.71: 'hnu{}', 0.72: 'SYbdgpq', 0.73: 'CPZ', 0.76: 'B',
             0.77: 'AKRVX', 0.81: 'U', 0.82: 'G', 0.83: 'D', 0.84: '#+<=>HN^~→←↑↓×≤≥',
             0.85: 'OQ', 0.87: '&', 0.92: 'w', 1.0: '%@M—…', 1.04: 'm', 1.1: 'W'},
}
_ADVANCE = {w: {ch: v for v, chars in t.items() for ch in chars} for w, t in _WIDTHS.items()}
WIDE = 1.0


def text_width(s: str, size: float, weight: str | None = None) -> float:
    """The width of `s` set in DejaVu Sans at `size` px (bold when weight == "bold"), its white
    space collapsed as SVG renders text (runs to one space, none at either end)."""
    adv = _ADVANCE["bold" if weight == "bold" else None]
    return size * sum(adv.get(ch, WIDE) for ch in " ".join(s.split()))


def num(v: float) -> str:
    """A coordinate written compactly (at most two decimals)."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def attrs(**kw) -> str:
    """Keyword arguments as SVG attributes: trailing '_' dropped, other '_' become '-'."""
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        k = k.rstrip("_").replace("_", "-")
        out.append(f"{k}={quoteattr(num(v) if isinstance(v, float) else str(v))}")
    return (" " + " ".join(out)) if out else ""


class Canvas:
    """SVG elements in drawing order; `svg()` closes the document around their bounding box."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.defs: list[str] = []
        self.depth = 1
        self.x0 = self.y0 = float("inf")
        self.x1 = self.y1 = float("-inf")

    # -- bookkeeping
    def grow(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Extend the drawn area (used for the viewBox)."""
        self.x0, self.y0 = min(self.x0, x0), min(self.y0, y0)
        self.x1, self.y1 = max(self.x1, x1), max(self.y1, y1)

    def add(self, element: str) -> None:
        self.parts.append("  " * self.depth + element)

    def open(self, **kw) -> None:
        """Start a group `<g>`; close it with `close()`."""
        self.add(f"<g{attrs(**kw)}>")
        self.depth += 1

    def close(self) -> None:
        self.depth -= 1
        self.add("</g>")

    def marker(self, ident: str, color: str, size: float = 6.0) -> str:
        """Define (once) an arrowhead marker in `color`; returns its `url(#...)` reference."""
        if not any(f'id="{ident}"' in d for d in self.defs):
            self.defs.append(
                f'<marker id="{ident}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="{num(size)}" '
                f'markerHeight="{num(size)}" orient="auto-start-reverse" markerUnits="userSpaceOnUse">'
                f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
        return f"url(#{ident})"

    # -- shapes
    def rect(self, x: float, y: float, w: float, h: float, **kw) -> None:
        self.grow(x, y, x + w, y + h)
        self.add(f"<rect{attrs(x=float(x), y=float(y), width=float(w), height=float(h), **kw)}/>")

    def circle(self, cx: float, cy: float, r: float, **kw) -> None:
        self.grow(cx - r, cy - r, cx + r, cy + r)
        self.add(f"<circle{attrs(cx=float(cx), cy=float(cy), r=float(r), **kw)}/>")

    def line(self, x1: float, y1: float, x2: float, y2: float, **kw) -> None:
        self.grow(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
        self.add(f"<line{attrs(x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **kw)}/>")

    def polyline(self, points: list[tuple[float, float]], **kw) -> None:
        for x, y in points:
            self.grow(x, y, x, y)
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.add(f"<polyline{attrs(points=pts, **kw)}/>")

    def path(self, d: str, bbox: tuple[float, float, float, float], **kw) -> None:
        """A path with data `d`; `bbox` (x0, y0, x1, y1) is the area it covers."""
        self.grow(*bbox)
        self.add(f"<path{attrs(d=d, **kw)}/>")

    def text(self, x: float, y: float, s: str, size: float = 12, anchor: str = "middle",
             weight: str | None = None, fill: str = INK, **kw) -> None:
        """Text with its baseline at y; the viewBox grows by an estimate of its extent."""
        w = text_width(s, size, weight)
        left = x - (w / 2 if anchor == "middle" else w if anchor == "end" else 0)
        self.grow(left, y - size, left + w, y + 0.3 * size)
        a = attrs(x=float(x), y=float(y), font_size=float(size), text_anchor=anchor,
                  font_weight=weight, fill=fill, **kw)
        self.add(f"<text{a}>{escape(s)}</text>")

    # -- the document
    def svg(self, pad: float = 12, title: str | None = None) -> str:
        """The complete SVG document (width/height in px = the drawn area plus `pad`)."""
        if self.x0 == float("inf"):
            self.grow(0, 0, 1, 1)
        x0, y0 = self.x0 - pad, self.y0 - pad
        w, h = self.x1 - self.x0 + 2 * pad, self.y1 - self.y0 + 2 * pad
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(w)}" height="{num(h)}" '
                f'viewBox="{num(x0)} {num(y0)} {num(w)} {num(h)}" font-family={quoteattr(FONT)}>')
        body = [head]
        if title:
            body.append(f"  <title>{escape(title)}</title>")
        body.append(f'  <rect x="{num(x0)}" y="{num(y0)}" width="{num(w)}" height="{num(h)}" '
                    f'fill="{PAPER}"/>')
        if self.defs:
            body.append("  <defs>" + "".join(self.defs) + "</defs>")
        return "\n".join(body + self.parts + ["</svg>"]) + "\n"
