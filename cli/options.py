"""Command-line option types and defaults shared by the commands."""
from __future__ import annotations

import math

import click

from ..core.limits import MAX_SECONDS

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
        if v > MAX_SECONDS:
            self.fail(f"{value!r} is more than the limit of {MAX_SECONDS:.0e} seconds (README, "
                      "Limits; 0 or none: no limit)", param, ctx)
        return v


class WorkFolder(click.ParamType):
    """A folder a run keeps its work in: one that exists and is writable, or can be made (checked
    before any work; made by the run)."""
    name = "DIRECTORY"

    def convert(self, value, param, ctx):
        from ..core.files import usable_folder
        from ..core.result import InputError
        try:
            return str(usable_folder(value))
        except InputError as e:
            self.fail(str(e), param, ctx)


TIME_LIMIT_HELP = (f"seconds per engine (default {DEFAULT_TIME_LIMIT:g}; 0 or none: no limit); a "
                   "run cut short is UNKNOWN (or FEASIBLE with a checked solution)")


FORMATS = ("text", "json", "csv", "markdown", "latex")
FORMAT_HELP = ("how tables are written: text (a table for people), json (the records; --json is "
               "the same), csv, markdown, latex (booktabs, best in bold, a footnote with the "
               "machine, solver versions and parameters)")


def format_option(f):
    """`--format text|json|csv|markdown|latex` (the command's `--json` is `--format json`)."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help=FORMAT_HELP)(f)


def output_format(fmt: str | None, as_json: bool) -> str:
    """The format asked for: `--format`, `--json` as its alias; text by default."""
    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json and --format {fmt}: give one of them")
    return "json" if as_json else (fmt or "text")
ALLOW_CODE_HELP = ("run code not shipped with puzzlesat (an external command, a user engine file or "
                   "module, a plug-in's engine or family) when a file names it; without this flag "
                   "such a configuration read from a file is refused")


def read_configs(text: str, what: str):
    """(configurations, origins) of a `--configs`/`--engines` value: `@FILE` reads a
    configuration list file (one per line or comma separated, # comments; each keeps its file
    and line), anything else is a comma-separated list typed on the command line."""
    from ..compare.plan import TYPED, Origin
    from ..core.config import parse_file, parse_many
    if text.startswith("@"):
        pairs = parse_file(text[1:])
        return [c for c, _ in pairs], [Origin(text[1:], line, what) for _, line in pairs]
    configs = parse_many(text)
    return configs, [TYPED] * len(configs)


FAMILY_HELP = ("the family that reads the instance files (needed when two families read a file's "
               "suffix or kind; `puzzlesat plugins` lists such conflicts)")


def family_option(f):
    """`--family NAME`: the family that reads the instance files given."""
    return click.option("--family", "family_name", default=None, metavar="NAME", help=FAMILY_HELP)(f)
