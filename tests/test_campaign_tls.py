"""Clusters over TLS: a scheduler and two workers on 127.0.0.1 that speak only TLS with
certificates from a throw-away CA made here (openssl); a campaign runs on them with the client's
certificate, and is refused — one line, no store — without it or with a certificate of another CA.
A plain tcp:// scheduler that is not on this machine is refused by the address check itself,
before any connection: no test here connects to anything but 127.0.0.1."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from puzzlesat.compare.campaign.executors import check_scheduler_address, is_loopback
from puzzlesat.core.result import InputError

from helpers import boards, rows, spec

DASK = str(Path(sys.executable).parent / "dask")


# ---- the address check: pure, nothing resolved or connected -----------------------------------
@pytest.mark.parametrize("address", [
    "tcp://127.0.0.1:8786", "tcp://127.3.4.5:1", "tcp://[::1]:8786", "tcp://localhost:8786",
    "127.0.0.1:8786", "tls://127.0.0.1:8786", "tls://192.0.2.7:8786", "tls://scheduler.example:8786",
])
def test_allowed_addresses(address):
    assert check_scheduler_address(address) in ("tcp", "tls")


@pytest.mark.parametrize("address", [
    "tcp://192.0.2.7:8786", "tcp://10.0.0.1:8786", "tcp://0.0.0.0:8786", "tcp://[2001:db8::1]:8786",
    "tcp://scheduler.example:8786", "tcp://localhost.example:8786", "192.0.2.7:8786",
    "tcp://128.0.0.1:8786",
])
def test_plain_tcp_to_another_machine_is_refused_unless_insecure(address):
    with pytest.raises(InputError, match="not this machine.*--insecure"):
        check_scheduler_address(address)
    assert check_scheduler_address(address, insecure=True) == "tcp"


@pytest.mark.parametrize("address, message", [
    ("ws://127.0.0.1:8786", "protocol 'ws'"), ("ucx://127.0.0.1:1", "protocol 'ucx'"),
    ("tcp://127.0.0.1:99999", "Port out of range"), ("tcp://:8786", "PROTOCOL://HOST:PORT"),
    ("tcp://u@127.0.0.1:1", "PROTOCOL://HOST:PORT"), ("tls://h:1/path", "PROTOCOL://HOST:PORT"),
])
def test_unreadable_addresses(address, message):
    with pytest.raises(InputError, match=message):
        check_scheduler_address(address, insecure=True)


def test_loopback_is_by_address_never_by_resolving():
    assert is_loopback("127.255.255.254") and is_loopback("::1") and is_loopback("LOCALHOST")
    assert not is_loopback("localhost.localdomain.example") and not is_loopback("127.0.0.1.nip.io")


def test_cli_refuses_before_connecting(tmp_path, monkeypatch):
    """`campaign run --scheduler tcp://192.0.2.7:8786` (TEST-NET, never routed): exit 2, one line,
    no store; distributed.Client is replaced by a trap, so no connection can even be tried."""
    import distributed
    from click.testing import CliRunner
    from puzzlesat.cli.main import cli

    def trap(*a, **k):
        raise AssertionError("a connection was attempted")
    monkeypatch.setattr(distributed, "Client", trap)
    sp = spec(tmp_path, 'name = "x"\ninstances = ["peg/hoppers"]\n[configs]\nn = "native"\n')
    for extra in ([], ["--tls-ca-file", str(sp)]):
        res = CliRunner().invoke(cli, ["campaign", "run", str(sp), "--store", str(tmp_path / "s.db"),
                                       "--executor", "dask", "--scheduler", "tcp://192.0.2.7:8786",
                                       *extra])
        assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.stderr
        assert "--insecure" in res.stderr or "need a tls:// --scheduler" in res.stderr
    assert not (tmp_path / "s.db").exists()


# ---- a TLS cluster on 127.0.0.1 ------------------------------------------------------------------
def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(d: Path, name: str) -> dict[str, Path]:
    """A throw-away CA and one certificate it signs (EC P-256, a day, SAN IP:127.0.0.1)."""
    d.mkdir(parents=True, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
             "-subj", f"/CN={name}-ca", cwd=d)
    _openssl("req", *ec, "-keyout", "node.key", "-out", "node.csr", "-subj", f"/CN={name}", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "node.pem", "-days", "1", "-extfile", "san.ext", cwd=d)
    return {"ca": d / "ca.pem", "cert": d / "node.pem", "key": d / "node.key"}


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tls_args(c: dict[str, Path]) -> list[str]:
    return ["--tls-ca-file", str(c["ca"]), "--tls-cert", str(c["cert"]), "--tls-key", str(c["key"])]


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """(address, certificates, a certificate of another CA): a TLS scheduler and two workers."""
    pytest.importorskip("distributed")
    if shutil.which("openssl") is None:
        pytest.skip("openssl not on PATH")
    d = tmp_path_factory.mktemp("tls")
    certs, other = make_ca(d / "ca", "cluster"), make_ca(d / "other", "stranger")
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--protocol", "tls", "--no-dashboard", *tls_args(certs)], **quiet)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny",
                                           "--no-dashboard", "--host", "127.0.0.1",
                                           *tls_args(certs)], **quiet))
        from distributed import Client
        from distributed.security import Security
        sec = Security(tls_ca_file=str(certs["ca"]), tls_client_cert=str(certs["cert"]),
                       tls_client_key=str(certs["key"]), require_encryption=True)
        deadline = time.monotonic() + 90
        while True:
            try:
                with Client(address, security=sec, timeout=10) as c:
                    if len(c.scheduler_info()["workers"]) == 2:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the TLS cluster did not come up"
            time.sleep(0.5)
        yield address, certs, other
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _cli(*args: str, timeout: float = 300):
    return subprocess.run([sys.executable, "-m", "puzzlesat", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_campaign_over_tls_on_two_local_workers(tls_cluster, tmp_path):
    address, certs, _ = tls_cluster
    boards(tmp_path / "boards", 4, seed=21)
    sp = spec(tmp_path, 'name = "tls"\ninstances = ["boards/*.toml"]\ntask = "count"\n'
                        'time_limit = 60\n[configs]\nnative = "native"\ncpsat = "cpsat"\n')
    db = tmp_path / "t.db"
    p = _cli("campaign", "run", str(sp), "--store", str(db), "--executor", "dask",
             "--scheduler", address, *tls_args(certs))
    assert p.returncode == 0, p.stderr
    got = rows(db)
    assert len(got) == 8 and all((r["status"], r["termination"]) == ("OPTIMAL", "done") for r in got)
    assert {r["worker"].split("://")[0] for r in got} == {"tls"}
    by: dict[str, set] = {}
    for r in got:
        by.setdefault(r["instance"], set()).add((r["objective"], r["count"]))
    assert all(len(v) == 1 for v in by.values())


@pytest.mark.parametrize("which", ["no certificate", "another CA's certificate"])
def test_tls_cluster_refuses_a_client_without_its_certificate(tls_cluster, tmp_path, which):
    address, certs, other = tls_cluster
    sp = spec(tmp_path, 'name = "x"\ninstances = ["peg/hoppers"]\n[configs]\nn = "native"\n')
    db = tmp_path / "s.db"
    extra = [] if which == "no certificate" else tls_args(other)
    p = _cli("campaign", "run", str(sp), "--store", str(db), "--executor", "dask",
             "--scheduler", address, *extra)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert ("needs --tls-ca-file" in p.stderr if not extra else "does not answer" in p.stderr), p.stderr
    assert not db.exists()
