"""Pictures: the built-in families' instances and solutions as standalone SVG documents (pure
Python), one drawer module per family (`draw(instance, solution=None) -> str`), reached through the
family (`puzzles/<family>.py` `svg`, the family contract's optional member); `save(path, text)`
writes an SVG (or, with the optional `cairosvg`, a PNG) atomically. Drawers trust that a solution
has passed the family's checker; they never solve anything.

>>> from puzzlesat.puzzles import peg
>>> text = peg.svg(peg.catalogue()["hoppers"]())
>>> text.startswith("<svg") and text.rstrip().endswith("</svg>")
True
"""
from __future__ import annotations

import os
from pathlib import Path

from ...core.result import InputError
from ...core.files import writable, write_atomic
from .canvas import Canvas

__all__ = ["save", "check_target", "Canvas", "FORMATS"]

# ---- vocabulary -------------------------------------------------------------------------------
FORMATS = (".svg", ".png")   # picture file suffixes `save` writes
PNG_SCALE = 2.0              # PNG pixels per SVG unit (crisp on high-density screens)


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
