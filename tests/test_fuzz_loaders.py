"""Fuzzed loaders: random bytes and random TOML structures fed to every loader — the four
families' instance files (TOML and the maze's .txt), a plug-in family through the contract
(examples/nqueens, registered at run time), campaign specs, configuration strings and lists —
give an InputError with a message, never another exception, a hang (an alarm turns one into a
failure) or a write (the working folder stays empty). Bounded examples, no deadline: fast."""
from __future__ import annotations

import json
import math
import signal
import string
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import puzzlesat as ps
from puzzlesat.compare.campaign.spec import load_spec
from puzzlesat.compare.plan import Origin, plan
from puzzlesat.core.config import parse, parse_file, parse_many, parse_pairs
from puzzlesat.core.inputs import Source
from puzzlesat.core.result import InputError
from puzzlesat.families.instances import load_file

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("peg", "pentomino", "sliding", "maze", "nqueens")
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
TRIED = {"instances": 0, "specs": 0, "configs": 0}


@pytest.fixture(scope="module", autouse=True)
def nqueens():
    """The n-queens plug-in, registered through the contract like any plug-in family."""
    sys.path.insert(0, str(ROOT / "examples" / "nqueens"))
    from puzzlesat_nqueens import FAMILY
    ps.register_family(FAMILY)
    yield
    ps.unregister_family("nqueens")
    sys.path.remove(str(ROOT / "examples" / "nqueens"))


@contextmanager
def no_hang(seconds: int = 30):
    """A failure instead of a hang: SIGALRM after `seconds`."""
    def boom(*_):
        raise AssertionError(f"a loader ran for more than {seconds} s")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def only_input_errors(fn, *args, **kw):
    """fn(...) returns, or raises InputError with a one-line message; anything else fails."""
    with no_hang():
        try:
            return fn(*args, **kw)
        except InputError as e:
            msg = str(e)
            assert msg.strip() and len(" ".join(msg.split())) < 4000, msg[:200]
            return None


# ---- random TOML structures, written as TOML text ------------------------------------------------
KEYS = ["kind", "name", "board", "empty", "full", "finish", "first_jump", "known_min_moves",
        "source", "size", "pieces", "one_sided", "rows", "cols", "start", "goal", "optimal", "note",
        "horizontal", "vertical", "walked", "n", "fixed", "holes", "art", "directions", "shape",
        "count", "instances", "task", "time_limit", "memory_limit_mb", "repeat", "seeds",
        "precheck", "split", "configs", "x"]
SCALARS = st.one_of(
    st.integers(min_value=-3, max_value=40), st.integers(), st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(KINDS + ("6x10", "english33", "hoppers", "o o o\n o o", ". . .\n...", "+1 *2 -3",
                             "native", "sat[encoding=totalizer]", "ext:dimacs", "peg/*", "*.toml",
                             "count", "optimize", "LPX", "orthogonal", "#", "##\n#.")),
    st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner,
                                                 max_size=5)), max_leaves=30)
TABLES = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8)


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v).replace("\x7f", "\\u007f")
    if isinstance(v, list):
        return "[" + ", ".join(map(toml_value, v)) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml_text(table: dict) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in table.items())


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty working folder that must stay as it is (no loader writes)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work


def assert_untouched(folder: Path, *allowed: str) -> None:
    """Only the input files are there; then they are removed (hypothesis reuses the folder)."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(allowed)
    for name in allowed:
        (folder / name).unlink()


@SETTINGS
@given(kind=st.sampled_from(KINDS), table=TABLES)
def test_random_toml_instances(folder, kind, table):
    table = {"kind": kind, **table} if "kind" not in table else table
    f = folder / "i.toml"
    f.write_text(toml_text(table), encoding="utf-8")
    TRIED["instances"] += 1
    got = only_input_errors(load_file, f)
    if got is not None:  # it loaded: it is a well-formed instance of its family
        fam, inst = got
        assert fam.owns(inst) and fam.describe(inst)["name"] is not None
    assert_untouched(folder, "i.toml")


@SETTINGS
@given(kind=st.sampled_from(KINDS), table=TABLES)
def test_random_structures_through_each_family_loader(kind, table):
    """The parsed structure itself (what tomllib gives) to the family's from_toml."""
    from puzzlesat.families.registry import family_of_kind
    fam = family_of_kind(kind)
    TRIED["instances"] += 1
    only_input_errors(fam.from_toml, {**table, "kind": kind}, Source("fuzz"))


@SETTINGS
@given(data=st.binary(max_size=400), suffix=st.sampled_from([".toml", ".txt"]))
def test_random_bytes_as_instance_files(folder, data, suffix):
    f = folder / f"i{suffix}"
    f.write_bytes(data)
    TRIED["instances"] += 1
    only_input_errors(load_file, f)
    assert_untouched(folder, f.name)


MAZE_TOKENS = st.sampled_from(["1", "2", "3", "0", "-1", "+1", "*2", "-3", "+0", "*0", "#", "x",
                               "99999999999999999999", "\n", "\n", " ", "2 2", "1 0 3"])


@SETTINGS
@given(tokens=st.lists(MAZE_TOKENS, max_size=40))
def test_random_maze_text(folder, tokens):
    f = folder / "m.txt"
    f.write_text(" ".join(tokens), encoding="utf-8")
    TRIED["instances"] += 1
    only_input_errors(load_file, f)
    assert_untouched(folder, "m.txt")


# ---- campaign specs ----------------------------------------------------------------------------
SPEC_TABLES = st.fixed_dictionaries(
    {}, optional={"name": st.one_of(st.text(max_size=6), SCALARS),
                  "instances": st.one_of(st.lists(st.sampled_from(
                      ["peg/hoppers", "sliding/8-easy", "peg/*", "nope/x", "*.toml", "maze/sample1",
                       "nqueens/queens-4", "x.toml", "../*", "/etc/*"]), max_size=3), VALUES),
                  "task": st.one_of(st.sampled_from(["count", "optimize", "feasible"]), SCALARS),
                  "time_limit": SCALARS, "memory_limit_mb": SCALARS, "repeat": SCALARS,
                  "seeds": VALUES, "precheck": SCALARS, "split": SCALARS,
                  "configs": st.one_of(st.dictionaries(st.text(max_size=5) | st.sampled_from(["a", "b"]),
                                                       st.sampled_from(["native", "cpsat", "sat",
                                                                        "ext:dimacs", "x.py:run",
                                                                        "os.path:join", "bfs=native:bfs",
                                                                        "sat[encoding=nope]"])
                                                       | SCALARS, max_size=3), VALUES),
                  "extra": SCALARS})


@SETTINGS
@given(table=SPEC_TABLES)
def test_random_campaign_specs(folder, table):
    f = folder / "c.toml"
    f.write_text(toml_text(table), encoding="utf-8")
    TRIED["specs"] += 1
    spec = only_input_errors(load_spec, f)
    if spec is not None:
        only_input_errors(spec.jobs)
    assert_untouched(folder, "c.toml")


@SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes_as_campaign_specs(folder, data):
    f = folder / "c.toml"
    f.write_bytes(data)
    TRIED["specs"] += 1
    only_input_errors(load_spec, f)
    assert_untouched(folder, "c.toml")


# ---- configuration strings and lists -----------------------------------------------------------
CONFIG_TEXT = st.text(alphabet=string.ascii_letters + string.digits + ":.=[],/_- \t#*~\n\x00é",
                      max_size=40)


@SETTINGS
@given(text=CONFIG_TEXT)
def test_random_configuration_strings(text):
    TRIED["configs"] += 1
    for fn in (parse, parse_many, lambda t: parse_pairs(t.split(","))):
        only_input_errors(fn, text)
    fam, inst = ps.family_of(ps.load("peg/hoppers")), ps.load("peg/hoppers")
    # read from a file: planned without importing anything it names
    only_input_errors(plan, fam, inst, [text], "optimize", origins=[Origin("l.txt", 1)], machine=False)


@SETTINGS
@given(data=st.binary(max_size=300))
def test_random_configuration_lists(folder, data):
    f = folder / "l.txt"
    f.write_bytes(data)
    TRIED["configs"] += 1
    only_input_errors(parse_file, str(f))
    assert_untouched(folder, "l.txt")


def test_to_toml_round_trips_every_catalogue_instance():
    """The form a campaign job carries: every built-in instance (and the plug-in's, and those of
    any plug-in installed that has the optional to_toml) comes back equal, with the same content
    hash, through its family's own loader."""
    from puzzlesat.compare.campaign.spec import content_hash
    from puzzlesat.families.instances import load_text
    from puzzlesat.families.registry import families
    n = 0
    for fam in families().values():
        for short, make in fam.catalogue().items():
            inst = make()
            text = fam.to_toml(inst)
            if text is None:  # optional for a plug-in; every built-in family has it
                assert fam.user and fam.name != "nqueens", fam.name
                break
            got, back = load_text(text, f"{fam.name}/{short}", family=fam.name)
            assert got is fam and back == inst, (fam.name, short)
            assert content_hash(fam, back) == content_hash(fam, inst)
            n += 1
    assert n > 100


def test_figures():
    print(f"fuzzed inputs: {TRIED}")
