"""Command-line option types and defaults shared by the commands."""
from __future__ import annotations

import math

import click

DEFAULT_TIME_LIMIT = 60.0  # seconds per engine run on the command line (0 or none: no limit)


class Seconds(click.ParamType):
    """A positive, finite number of seconds, or 0 / none for no limit (nan, inf and negatives are
    refused)."""
    name = "SECONDS"

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, str) and value.strip().lower() in ("none", "0", "0.0"):
            return None
        try:
            v = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds (or 0 / none: no limit)", param, ctx)
        if v == 0:
            return None
        if not math.isfinite(v) or v < 0:
            self.fail(f"{value!r} is not a positive finite number of seconds", param, ctx)
        return v


TIME_LIMIT_HELP = (f"seconds per engine (default {DEFAULT_TIME_LIMIT:g}; 0 or none: no limit); a "
                   "run cut short is UNKNOWN (or FEASIBLE with a checked solution)")
