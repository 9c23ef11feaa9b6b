"""compare/config.py: the configuration grammar, its canonical form and its errors."""
import pytest

from puzzlesat.core.config import Config, parse, parse_many
from puzzlesat.core.result import InputError


def test_unnamed_config_is_named_by_its_canonical_spec():
    c = parse(" sat:time [ solver = glucose4 , encoding=totalizer ] ")
    assert c == Config("sat:time[encoding=totalizer,solver=glucose4]", "sat:time",
                       (("encoding", "totalizer"), ("solver", "glucose4")))
    assert str(c) == c.spec == "sat:time[encoding=totalizer,solver=glucose4]"
    assert c.opts == {"encoding": "totalizer", "solver": "glucose4"}


def test_named_config_and_round_trip():
    c = parse("tot=sat:time[encoding=totalizer,solver=glucose4]")
    assert (c.name, c.engine) == ("tot", "sat:time")
    assert str(c) == "tot=sat:time[encoding=totalizer,solver=glucose4]"
    assert parse(str(c)) == c
    assert parse("native") == Config("native", "native", ())
    assert parse("cpsat[]") == Config("cpsat", "cpsat", ())


def test_option_order_does_not_matter():
    assert parse("sat[solver=glucose4,encoding=totalizer]") == parse("sat[encoding=totalizer,solver=glucose4]")


def test_name_argument_names_an_unnamed_config():
    assert parse("sat:time[encoding=totalizer]", name="tot").name == "tot"
    assert parse("tot=sat:time", name="tot").name == "tot"
    with pytest.raises(InputError, match="named 'a' but given as 'b'"):
        parse("a=sat", name="b")
    with pytest.raises(InputError, match="configuration name"):
        parse("sat", name="1bad name")


@pytest.mark.parametrize("text, match", [
    ("", "bad engine name"),
    ("sat time", "bad engine name"),
    ("9x=sat", "bad name"),
    ("sat[encoding=totalizer", "one \\[key=value"),
    ("sat[a=1][b=2]", "one \\[key=value"),
    ("sat[encoding]", "not key=value"),
    ("sat[encoding=]", "not key=value"),
    ("sat[a=1,a=2]", "given twice"),
    ("sat[a=1]x", "one \\[key=value"),
])
def test_malformed_configs_are_input_errors(text, match):
    with pytest.raises(InputError, match=match):
        parse(text)


def test_non_string_is_an_input_error():
    with pytest.raises(InputError, match="expected a string"):
        parse(3)


def test_parse_many_splits_outside_brackets_only():
    cs = parse_many("native, tot=sat:time[encoding=totalizer,solver=glucose4],cpsat[workers=1]")
    assert [str(c) for c in cs] == ["native", "tot=sat:time[encoding=totalizer,solver=glucose4]",
                                    "cpsat[workers=1]"]
    with pytest.raises(InputError, match="used twice"):
        parse_many("sat,sat")
    with pytest.raises(InputError, match="none given"):
        parse_many(" , ")
