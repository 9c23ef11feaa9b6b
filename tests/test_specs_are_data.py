"""Code only by opt-in: a campaign spec, a configuration list (`lab --configs @FILE`, `compare
--engines @FILE`, `solve -e @FILE`) or a spec's instances that would run code not shipped with
puzzlesat — an external command, a user engine by file or module, an engine a user or plug-in
registered, a plug-in family — is refused in one line naming the file, line, configuration and
the command or module (exit 2, nothing runs, no store), unless --allow-code is given; typed on
the command line it runs as asked. Every piece of user code here writes a marker file when it is
imported or run: the marker's absence proves that nothing ran. Also: the limits of spec
expansion, and the `user_code` column."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import puzzlesat as ps
from puzzlesat.cli.main import cli
from puzzlesat.compare.campaign.spec import load_spec
from puzzlesat.compare.plan import Origin, plan
from puzzlesat.core.result import InputError, Outcome, Status

from helpers import rows, spec

ROOT = Path(__file__).resolve().parents[1]
TRIED = {"specs": 0, "lists": 0}


@pytest.fixture
def code(tmp_path, monkeypatch):
    """User code that leaves a marker when imported or run: a file engine, a module engine (on
    sys.path and PYTHONPATH) and an external command. Yields (marker, file spec, module spec, cmd)."""
    mark = tmp_path / "MARK"
    body = (f"open({str(mark)!r}, 'a').write('imported\\n')\n"
            "from puzzlesat.engine import Outcome, Status\n"
            f"def run(inst, task, ctx):\n    open({str(mark)!r}, 'a').write('ran\\n')\n"
            "    return Outcome(Status.UNKNOWN)\n")
    (tmp_path / "marker_engine.py").write_text(body)
    pkg = tmp_path / "markerpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "engine.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.chdir(tmp_path)
    yield mark, "marker_engine.py:run", "markerpkg.engine:run", f"touch {mark}"
    for m in [m for m in sys.modules if m.startswith(("markerpkg", "puzzlesat_user_marker"))]:
        del sys.modules[m]


def invoke(*args: str):
    """The command line in this process: (exit code, stderr)."""
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stderr


def configs_of(c) -> dict[str, tuple[str, str]]:
    """name -> (configuration, what the refusal must name)."""
    mark, f, m, cmd = c
    return {"ext_default": ("ext:dimacs", "the command 'cadical -q'"),
            "ext_cmd": (f"ext:dimacs[cmd={cmd}]", f"the command '{cmd}'"),
            "file": (f, "the Python file marker_engine.py (function run)"),
            "module": (m, "the Python module markerpkg.engine (function run)")}


@pytest.mark.parametrize("kind", ["ext_default", "ext_cmd", "file", "module"])
def test_campaign_spec_naming_code_is_refused_in_one_line(code, tmp_path, kind):
    mark = code[0]
    text, what = configs_of(code)[kind]
    sp = spec(tmp_path, f'name = "x"\ninstances = ["peg/hoppers"]\ntime_limit = 20\n[configs]\n'
                        f'n = "native"\nu = "{text}"\n')
    TRIED["specs"] += 1
    rc, err = invoke("campaign", "run", str(sp), "--store", str(tmp_path / "s.db"))
    assert rc == 2 and err.count("\n") == 1, err
    assert f"campaign.toml:6: configs.u: configuration 'u={text}' would run {what}" in err
    assert "--allow-code" in err
    assert not (tmp_path / "s.db").exists() and not mark.exists()
    with pytest.raises(InputError, match="allow_code=True"):  # the API: the same refusal
        load_spec(sp)


@pytest.mark.parametrize("command", ["lab", "bench", "compare", "solve"])
@pytest.mark.parametrize("kind", ["ext_cmd", "file", "module"])
def test_configuration_lists_naming_code_are_refused(code, tmp_path, command, kind):
    mark = code[0]
    text, what = configs_of(code)[kind]
    lst = tmp_path / "configs.txt"
    lst.write_text(f"# a colleague's list\nn=native\n\nu={text}   # theirs\n" if command != "solve"
                   else f"# one configuration\n\nu={text}\n")
    TRIED["lists"] += 1
    flag = {"lab": "--configs", "bench": "--engines", "compare": "--engines", "solve": "-e"}[command]
    rc, err = invoke(command, "peg/hoppers", flag, f"@{lst}", "--time-limit", "20")
    line = 4 if command != "solve" else 3
    assert rc == 2 and err.count("\n") == 1, err
    assert f"configs.txt:{line}:" in err and f"'u={text}' would run {what}" in err, err
    assert not mark.exists()


def test_allow_code_runs_it_and_the_store_records_it(code, tmp_path):
    mark, f, m, cmd = code
    sp = spec(tmp_path, f'name = "x"\ninstances = ["peg/hoppers"]\ntime_limit = 30\n[configs]\n'
                        f'n = "native"\nf = "{f}"\nc = "ext:dimacs[cmd={cmd}]"\n')
    import helpers
    p = helpers.cli("campaign", "run", str(sp), "--jobs", "1", "--allow-code", timeout=300,
                    cwd=tmp_path)  # a fork of this process
    assert p.returncode == 0, p.stderr
    got = {r["config"]: r for r in rows(tmp_path / "campaign.db")}
    assert got["n"]["user_code"] is None and got["n"]["status"] == "OPTIMAL"
    assert got["f"]["user_code"] == "the Python file marker_engine.py (function run)"
    assert got["c"]["user_code"] == f"the command '{cmd}'"
    assert got["f"]["status"] == "UNKNOWN"  # the marker engine's answer, checked as any other
    assert "ran" in mark.read_text()  # the flag, not luck, is what kept the code from running


def test_typed_on_the_command_line_it_runs(code, tmp_path):
    mark, f, m, _ = code
    rc, err = invoke("solve", "peg/hoppers", "-e", f, "--time-limit", "20")
    assert rc == 0, err
    assert "ran" in mark.read_text()


def test_api_plan_refuses_code_from_a_file_and_runs_it_when_typed(code):
    mark, f, m, cmd = code
    fam, inst = ps.family_of(ps.load("peg/hoppers")), ps.load("peg/hoppers")
    where = Origin("colleague.toml", 7, "configs.x")
    for c in (f, m, f"ext:dimacs[cmd={cmd}]"):
        with pytest.raises(InputError, match=r"colleague.toml:7: configs.x: .*allow_code=True"):
            plan(fam, inst, [c], "optimize", origins=[where])
    assert not mark.exists()
    [run] = plan(fam, inst, [m], "optimize", origins=[where], allow_code=True)
    assert run.user_code == "the Python module markerpkg.engine (function run)"
    assert "imported" in mark.read_text()


def test_registered_engines_and_plugin_families_named_in_a_spec(tmp_path, monkeypatch):
    """An engine registered by a user (as plug-in entry points register theirs) and a plug-in
    family's instances, named in a spec: refused before the family's loader or catalogue runs."""
    mark = tmp_path / "MARK"
    ps.register_engine("peg", "mine:marker", lambda i, t, c: open(mark, "w") and Outcome(Status.UNKNOWN),
                       tasks=["optimize"])
    sys.path.insert(0, str(ROOT / "examples" / "nqueens"))
    try:
        from puzzlesat_nqueens import FAMILY
        ps.register_family(FAMILY)
        sp = spec(tmp_path, 'name = "x"\ninstances = ["peg/hoppers"]\n[configs]\nm = "mine:marker"\n')
        with pytest.raises(InputError, match=r"campaign.toml:4: configs.m: .*would run function .*"
                                             r"<lambda>.*allow_code=True"):
            load_spec(sp)
        q = tmp_path / "q.toml"
        q.write_text('kind = "nqueens"\nn = 6\n')
        for inst in ("nqueens/queens-6", "q.toml", "nqueens/*"):
            sp = spec(tmp_path, f'name = "x"\ninstances = ["{inst}"]\ntask = "count"\n'
                                '[configs]\nn = "native"\n', "p.toml")
            TRIED["specs"] += 1
            with pytest.raises(InputError, match=r"p.toml:2: instances: an instance of the plug-in "
                                                 r"family nqueens would run its code \(module "
                                                 r"puzzlesat_nqueens.*--allow-code"):
                load_spec(sp)
        s = load_spec(sp, allow_code=True)
        assert len(s.jobs()) == 13 and all("plug-in family nqueens" in j.user_code for j in s.jobs())
        assert all(j.source == j.instance for j in s.jobs())
        assert not mark.exists()
    finally:
        ps.unregister_family("nqueens")
        from puzzlesat.families.registry import unregister_engine
        unregister_engine("peg", "mine:marker")
        sys.path.remove(str(ROOT / "examples" / "nqueens"))


def test_a_job_payload_never_unpickles_and_reloads_through_the_loader(tmp_path):
    """The job carries the family's TOML text; a payload whose instance differs from its hash,
    or whose engine would run code the campaign did not allow, is refused by the job process."""
    from puzzlesat.compare.campaign.execute import execute
    sp = spec(tmp_path, 'name = "x"\ninstances = ["peg/hoppers"]\n[configs]\nn = "native"\n')
    [job] = [j.payload() for j in load_spec(sp).jobs()]
    assert job["instance_toml"].startswith('kind = "peg"') and "blob" not in job
    rec = execute(job)
    assert (rec["status"], rec["objective"]) == ("OPTIMAL", 7)
    tampered = dict(job, instance_toml=job["instance_toml"].replace("full = [", "full = [0, "))
    rec = execute(dict(tampered, key="t" * 32))
    assert rec["status"] == "ERROR" and "exited with code 2" in rec["reason"]
    sneaky = dict(job, engine="ext:dimacs", key="u" * 32)
    rec = execute(sneaky)
    assert rec["status"] == "ERROR" and "allow_code=True" in rec["reason"]


@pytest.mark.parametrize("body, message", [
    ('name = "x"\ninstances = ["peg/*"]\nrepeat = 400\n[configs]\nn = "native"\n',
     "campaign.toml:2: instances: jobs: 11,200 is more than the limit of 10,000"),
    ('name = "x"\ninstances = ["peg/hoppers"]\nrepeat = 20000\n[configs]\nn = "native"\n',
     "campaign.toml:3: repeat: repeats: 20,000 is more than the limit of 10,000"),
    ('name = "x"\ninstances = ["pentomino/6x10"]\ntask = "count"\nsplit = 100000\n[configs]\nn = "native"\n',
     "split: 100,000 is more than the limit"),
])
def test_spec_expansion_is_bounded_before_anything_is_loaded(tmp_path, body, message):
    sp = spec(tmp_path, body)
    TRIED["specs"] += 1
    rc, err = invoke("campaign", "run", str(sp), "--store", str(tmp_path / "s.db"))
    assert rc == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "s.db").exists()


def test_max_jobs_raises_the_limit(tmp_path):
    sp = spec(tmp_path, 'name = "x"\ninstances = ["peg/*"]\nrepeat = 400\n[configs]\nn = "native"\n')
    assert len(load_spec(sp, max_jobs=20000).jobs()) == 28 * 400
    with pytest.raises(InputError, match="11,200 is more than the limit of 11,000"):
        load_spec(sp, max_jobs=11000)


def test_figures():
    print(f"hostile specs refused: {TRIED['specs']}; configuration lists refused: {TRIED['lists']}")
