"""Provenance: a verdict read back from a work folder is never presented as checked in this run.
A sealed record of an earlier run is reported as such ('VERIFIED (sealed record of an earlier
run, DATE)', `verified_in: "earlier run"`); `--recheck` takes no seal on trust (kept proofs are
verified again by our checker, the rest solved again) and then says "this run". A record sealed
with any key but this user's is a forgery and is redone; the key itself must be private."""
from __future__ import annotations

import json
import os
import stat

import pytest

import helpers
from puzzlesat.compare.peg.cubes import run_cubes
from puzzlesat.core import seal
from puzzlesat.core.result import InputError
from puzzlesat.families.instances import load_instance

FAM, INST = load_instance("peg/hoppers-first06")   # moves <= 6: INFEASIBLE, 7 cubes + cover
CFG = "sat:ordered[families=best]"


def decide(folder, **kw):
    lines: list[str] = []
    r = run_cubes(FAM, INST, CFG, 6, 3, certify=True, work_dir=folder, progress=lines.append, **kw)
    assert r["status"] == "INFEASIBLE" and r["certificate"]["verdict"] == "VERIFIED", r
    return r, lines


def test_sealed_records_are_earlier_runs_and_recheck_verifies_them_now(tmp_path):
    w = tmp_path / "w"
    r, _ = decide(w, keep=True)
    assert r["certificate"]["verified_in"] == "this run" and r["provenance"]["this_run"] == 8
    r, _ = decide(w, keep=True)          # resumed: every verdict is a sealed record
    prov = r["certificate"]["provenance"]
    assert r["certificate"]["verified_in"] == "earlier run" and prov["earlier_runs"] == 8
    assert prov["this_run"] == 0 and prov["earlier_dates"][0].startswith("20")
    assert seal.verdict_text("VERIFIED", prov).startswith("VERIFIED (8 sealed records of earlier runs, 20")
    # a kept proof damaged: --recheck does not take it, the cube is solved again
    victim = w / "jobs" / "cube-000003.drat"
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 3])
    r, lines = decide(w, keep=True, recheck=True)
    assert r["certificate"]["verified_in"] == "this run" and r["provenance"]["earlier_runs"] == 0
    assert sum("kept proof verified again" in x for x in lines) == 7
    assert any(x.startswith("  cube-000003: RECHECK_FAILED") and "solved again" in x for x in lines)


def test_recheck_without_kept_proofs_solves_again_and_the_cli_says_so(tmp_path):
    w = tmp_path / "w"
    args = ["peg", "cubes", "peg/hoppers-first06", "--bound", "6", "--depth", "3", "--certify",
            "--work-dir", str(w), "-j", "1", "-e", CFG]
    assert helpers.cli(*args).returncode == 0
    p = helpers.cli(*args)                      # text: the earlier run named, with its date
    assert p.returncode == 0, p.stderr
    assert "certificate: VERIFIED (8 sealed records of earlier runs, 20" in p.stdout
    assert "--recheck checks them again" in p.stdout
    p = helpers.cli(*args, "--recheck", "--json")
    rep = json.loads(p.stdout)
    assert rep["certificate"]["verified_in"] == "this run" and rep["recheck"] is True
    assert "8 jobs to solve again" in p.stderr


def test_a_record_sealed_with_another_key_is_a_forgery(tmp_path, monkeypatch):
    """Forged-but-sealed needs this user's key: records re-sealed under any other key (a forger
    who recomputed every seal) are set aside and solved again."""
    w = tmp_path / "w"
    decide(w)
    context = "peg cubes " + json.dumps(json.loads((w / "plan.json").read_text()), sort_keys=True)
    monkeypatch.setattr(seal, "_KEY", {})
    monkeypatch.setenv("PUZZLESAT_SEAL_KEY", str(tmp_path / "forger" / "seal.key"))
    for p in (w / "results").glob("*.json"):
        rec = json.loads(p.read_text())
        p.write_text(json.dumps(seal.sign(rec, context)))
    monkeypatch.setattr(seal, "_KEY", {})
    monkeypatch.delenv("PUZZLESAT_SEAL_KEY")
    r, lines = decide(w)
    assert r["certificate"]["verified_in"] == "this run"
    assert sum("no seal of this user's puzzlesat" in x for x in lines) == 5   # then '... 8 in all'
    assert any("8 result files set aside" in x for x in lines)


def test_unsealed_records_with_kept_proofs_are_verified_now_not_solved_again(tmp_path, monkeypatch):
    """A folder whose seal key is gone (moved from another machine, or the key lost with its
    machine): every UNSAT record's kept proof is verified by our checker in this run instead of
    the job being solved again; a damaged proof sends its cube back to be solved."""
    w = tmp_path / "w"
    decide(w, keep=True)
    monkeypatch.setattr(seal, "_KEY", {})
    monkeypatch.setenv("PUZZLESAT_SEAL_KEY", str(tmp_path / "new-machine" / "seal.key"))
    victim = w / "jobs" / "cube-000003.drat"
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 3])
    r, lines = decide(w, keep=True)
    assert r["certificate"]["verified_in"] == "this run" and r["provenance"]["this_run"] == 8
    assert any(x.startswith("  8 UNSAT records without this user's seal") for x in lines), lines
    assert sum("kept proof verified again" in x for x in lines) == 7
    assert any(x.startswith("  cube-000003: RECHECK_FAILED") and "solved again" in x for x in lines)
    assert not any("set aside" in x for x in lines)
    r, lines = decide(w, keep=True)      # now sealed with the new key: nothing to do
    assert r["certificate"]["verified_in"] == "earlier run" and r["provenance"]["earlier_runs"] == 8


def test_the_seal_key_must_be_private(tmp_path, monkeypatch):
    monkeypatch.setattr(seal, "_KEY", {})
    folder = tmp_path / "k"
    key = folder / "seal.key"
    monkeypatch.setenv("PUZZLESAT_SEAL_KEY", str(key))
    seal.seal({"a": 1}, "c")                                     # made: 0600 in a 0700 folder
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    for mode in (0o640, 0o604, 0o620):
        monkeypatch.setattr(seal, "_KEY", {})
        os.chmod(key, mode)
        with pytest.raises(InputError, match="chmod 600"):
            seal.seal({"a": 1}, "c")
    w = tmp_path / "w"                                           # refused before anything is written
    p = helpers.cli("peg", "games", "peg/hoppers-first06", "--work-dir", str(w),
                    env={**os.environ, "PUZZLESAT_SEAL_KEY": str(key)})
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "chmod 600" in p.stderr, p.stderr
    assert not w.exists()
    os.chmod(key, 0o600)
    os.chmod(folder, 0o777)                                      # others could swap the key
    monkeypatch.setattr(seal, "_KEY", {})
    with pytest.raises(InputError, match="chmod 700"):
        seal.seal({"a": 1}, "c")
    os.chmod(folder, 0o755)                                      # readable folder, private key: fine
    monkeypatch.setattr(seal, "_KEY", {})
    assert seal.verified(seal.sign({"a": 1}, "c"), "c")


def test_a_seal_that_is_not_ascii_is_a_forgery_not_a_crash():
    """hmac.compare_digest raises TypeError on a str with non-ASCII characters: a record whose seal
    is '\x80' (found by test_hostile_fuzz's work-folder fuzz) or a lone surrogate is not ours."""
    good = seal.sign({"a": 1}, "c")
    assert seal.verified(good, "c")
    for forged in ("\x80", "\udc80", "é" * len(good[seal.FIELD]), good[seal.FIELD] + "\x80"):
        assert seal.verified({**good, seal.FIELD: forged}, "c") is False


# ---- peg games folders: sealed like the layers; old or forged folders are counted again --------
def test_a_games_folder_forged_with_recomputed_checksums_is_counted_again(tmp_path, monkeypatch):
    from puzzlesat.core.files import file_sha256
    from puzzlesat.native_search.peg import games as G
    from puzzlesat.puzzles.peg import catalogue
    inst = catalogue()["triangle21"]()
    ref = G.count_games(inst, direction="forward")
    r = G.count_games(inst, direction="forward", work_dir=tmp_path)
    again = G.count_games(inst, direction="forward", work_dir=tmp_path)
    assert again.resumed and again.resumed_from and again.resumed_from.startswith("20")
    assert again.games == ref.games and r.resumed_from is None
    folder = next(tmp_path.iterdir())
    man = json.loads((folder / "manifest.json").read_text())
    last = max((n for n, e in man["layers"].items() if e["side"] == "f" and e["n"]),
               key=lambda n: man["layers"][n]["n"])
    p = folder / f"{last}.counts.bin"                     # a count inflated, its SHA-256 redone
    data = bytearray(p.read_bytes())
    data[0] ^= 0x40
    p.write_bytes(bytes(data))
    man["layers"][last]["counts"] = file_sha256(p)
    for forged in ({k: v for k, v in man.items() if k != "seal"}, {**man, "seal": "0" * 64}):
        (folder / "manifest.json").write_text(json.dumps(forged))
        r = G.count_games(inst, direction="forward", work_dir=tmp_path)
        assert not r.resumed and r.games == ref.games and "no seal" in r.redone[0], r.redone
    # sealed and sound: --recheck (PUZZLESAT_RECHECK) still counts everything again
    monkeypatch.setenv(seal.RECHECK_ENV, "1")
    r = G.count_games(inst, direction="forward", work_dir=tmp_path)
    assert not r.resumed and r.games == ref.games and "--recheck" in r.redone[0]


def test_peg_problems_answers_say_earlier_run_and_recheck_searches_again(tmp_path):
    args = ["peg", "problems", "triangle4", "--method", "bfs", "--work-dir", str(tmp_path)]
    first = json.loads(helpers.cli(*args, "--json").stdout)
    assert first["problems"] and all(p["verified_in"] == "this run" for p in first["problems"])
    settled = [p for p in first["problems"] if p["status"] in ("OPTIMAL", "INFEASIBLE")]
    p = helpers.cli(*args)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("[sealed record of an earlier run, 20") >= 1
    assert "--recheck searches them again" in p.stdout
    again = json.loads(helpers.cli(*args, "--json").stdout)
    earlier = [q for q in again["problems"] if q["verified_in"] == "earlier run"]
    assert earlier and all(q["verified_at"].startswith("20") for q in earlier)
    rechecked = json.loads(helpers.cli(*args, "--json", "--recheck").stdout)
    assert all(q["verified_in"] == "this run" for q in rechecked["problems"])
    assert [q["min_moves"] for q in rechecked["problems"]] == [q["min_moves"] for q in first["problems"]]
    assert len(settled) >= len(earlier)
    p = helpers.cli("peg", "problems", "triangle4", "--method", "bfs", "--recheck")
    assert p.returncode == 2 and "--recheck" in p.stderr and "Traceback" not in p.stderr


# ---- sliding pattern-database caches: a forged database with a recomputed checksum ------------
def test_forged_pattern_databases_with_recomputed_checksums_are_built_again(tmp_path, monkeypatch):
    """The review's wrong answer: distances inflated in a cached database, its blake2b recomputed,
    made native:ida claim 'the optimum is at least 59' for the 8-puzzle whose optimum is 31.
    A database counts only with this user's seal; a forged or older one is built again."""
    import hashlib

    import numpy as np
    from puzzlesat.native_search.sliding import pattern_db as P, zpdb as Z
    for mod in (P, Z):
        monkeypatch.setattr(mod, "cache_dir", lambda: tmp_path)
        monkeypatch.setattr(mod, "_LOADED", {})
    key = P.Key(3, 3, (0, 1, 3, 4), 8)
    real = P.database(key).copy()
    f = P.path(key)
    raw = f.read_bytes()
    i = raw.index(b"\n")
    head = json.loads(raw[:i])
    fake = np.where(real > 0, real + 6, real).astype(np.uint8)
    head["blake2b"] = hashlib.blake2b(memoryview(fake), digest_size=16).hexdigest()
    for forged in ({k: v for k, v in head.items() if k != "seal"}, head):   # unsealed; stale seal
        f.write_bytes((json.dumps(forged) + "\n").encode() + fake.tobytes())
        assert P.read(key) is None
        monkeypatch.setattr(P, "_LOADED", {})
        assert np.array_equal(P.database(key), real)
    zkey = Z.Key(3, 3, (1, 2, 4, 5))
    bits = np.array(Z.database(zkey))
    assert Z.read(zkey) is not None
    zf = Z.path(zkey)
    data = bytearray(zf.read_bytes())
    line = json.loads(bytes(data[: data.index(b"\n")]))
    line.pop("seal")
    text = (json.dumps(line) + "\n").encode()
    zf.write_bytes(text + b" " * (Z.HEADER_BYTES - len(text)) + bytes(data[Z.HEADER_BYTES:]))
    assert Z.read(zkey) is None and Z.read_header(zkey) is None
    zf.unlink()
    os.mkfifo(zf)                                   # a FIFO where the cache was: never opened
    assert Z.read_header(zkey) is None
    zf.unlink()
    monkeypatch.setattr(Z, "_LOADED", {})
    assert np.array_equal(np.array(Z.database(zkey)), bits)
