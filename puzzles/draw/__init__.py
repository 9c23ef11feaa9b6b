"""Pictures: every family's instance and solution as a standalone SVG document (pure Python).

`svg(instance, solution=None)` dispatches on the instance's type to the family's drawer in this
package; `save(path, text)` writes an SVG (or, with the optional `cairosvg`, a PNG) atomically.
Drawers trust that a solution has passed the family's checker; they never solve anything.

>>> from puzzlesat.puzzles import peg
>>> text = svg(peg.catalogue()["hoppers"]())
>>> text.startswith("<svg") and text.rstrip().endswith("</svg>")
True
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path

from ..core import InputError, writable, write_atomic
from .canvas import Canvas

__all__ = ["svg", "save", "check_target", "Canvas", "FORMATS", "FAMILIES"]

# ---- vocabulary -------------------------------------------------------------------------------
FORMATS = (".svg", ".png")   # picture file suffixes `save` writes
PNG_SCALE = 2.0              # PNG pixels per SVG unit (crisp on high-density screens)
# the families drawn: (module in puzzles/ and here, its instance class)
FAMILIES = (("peg", "PegInstance"), ("pentomino", "Tiling"), ("sliding", "Sliding"), ("maze", "Maze"))


def svg(instance, solution=None) -> str:
    """The instance (and, given one, a checked solution in the family's own type) as an SVG text."""
    for fam, cls in FAMILIES:  # by class and module name, so a subclass is drawn like its base
        if any(k.__name__ == cls and k.__module__.rpartition(".")[2] == fam
               for k in type(instance).__mro__):
            return importlib.import_module(f".{fam}", __name__).draw(instance, solution)
    raise InputError(f"no picture for a {type(instance).__name__}")


def check_target(path: str | os.PathLike) -> Path:
    """The picture path, validated before any work: a known suffix, an existing folder, and for PNG
    the `cairosvg` library; InputError (one line) otherwise."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"a picture file ends in {' or '.join(FORMATS)}, not {p.suffix or '(none)'!r}",
                         file=p)
    writable(p, "picture")
    if suffix == ".png":
        _png_converter()
    return p


def _png_converter():
    try:
        import cairosvg  # optional extra `puzzlesat[png]`; needs the system cairo library
    except (ImportError, OSError):
        raise InputError("PNG pictures need the cairosvg library and the system cairo library: "
                         "pip install 'puzzlesat[png]' (or write .svg)") from None
    return cairosvg


def save(path: str | os.PathLike, text: str) -> Path:
    """Write SVG `text` to `path` (.svg as is, .png rendered by cairosvg) via a temporary file in
    the same folder renamed into place, so a failure leaves nothing half-written."""
    p = check_target(path)
    data = text.encode("utf-8")
    if p.suffix.lower() == ".png":
        data = _png_converter().svg2png(bytestring=data, scale=PNG_SCALE)
    return write_atomic(p, data, "picture")
