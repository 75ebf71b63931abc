"""HTTPS for lane screens (a browser gives the microphone to https:// pages only): `automanager cert`
writes a key only its owner reads, a certificate naming every host, and the authority a screen
installs; `serve --certfile --keyfile` refuses a pair it cannot serve, in one line, before starting,
and over HTTPS its same-origin checks take the https:// origin (a lane opens, the dashboard writes)
and refuse the http:// one."""

from __future__ import annotations

import shlex
import ssl
import stat
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from processes import ServeProcess, serve_refused
from typer.testing import CliRunner

from automanager.cli import app
from automanager.service import auth, tls


def cert(*args: str):
    return CliRunner().invoke(app, ["cert", *args])


def refused(result, *words: str) -> None:
    """Exit 2 and the reason in its first line, naming `words` (what to do next may follow)."""
    assert result.exit_code == 2, result.output
    reason = result.stderr.splitlines()[0]
    assert reason.startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in reason, (word, reason)


def certificates(path):
    return x509.load_pem_x509_certificates(path.read_bytes())


def test_cert_writes_a_key_only_its_owner_reads_and_a_certificate_for_every_host(tmp_path):
    made = cert("--host", "192.168.1.20", "--host", "lane.local", "--out", str(tmp_path / "tls"), "--days", "90")
    assert made.exit_code == 0, made.output
    key, chain, ca = (tmp_path / "tls" / name for name in (tls.KEY_FILE, tls.CERT_FILE, tls.CA_FILE))
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    [leaf], [authority] = certificates(chain), certificates(ca)
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(n.value) for n in names] == ["192.168.1.20", "lane.local", "localhost", "127.0.0.1"]
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert authority.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    leaf.verify_directly_issued_by(authority)  # the authority a screen installs vouches for the certificate
    lasts = leaf.not_valid_after_utc - datetime.now(UTC)
    assert timedelta(days=89) < lasts <= timedelta(days=90)

    said = made.stdout
    assert authority.fingerprint(hashes.SHA256()).hex(":").upper() in said
    assert f"--ignore-certificate-errors-spki-list={tls.spki(leaf)} https://192.168.1.20:8443/lane" in said
    serve = shlex.split(next(line for line in said.splitlines() if " serve " in line))
    assert serve[serve.index("--host") + 1] == "192.168.1.20"
    assert serve[serve.index("--certfile") + 1] == str(chain) and serve[serve.index("--keyfile") + 1] == str(key)
    tls.load(chain, key)  # what it wrote, serve takes


def test_cert_writes_to_the_state_dir_by_default_and_keeps_a_key_made_before_unless_forced(tmp_path):
    state = tmp_path / "state"
    assert cert("--host", "lane.local", "--state-dir", str(state)).exit_code == 0
    key = state / tls.KEY_FILE
    first = key.read_bytes()
    again = cert("--host", "lane.local", "--state-dir", str(state))
    refused(again, str(key), "exists")
    assert "--force" in again.stderr and key.read_bytes() == first
    forced = cert("--host", "lane.local", "--state-dir", str(state), "--force")
    assert forced.exit_code == 0 and key.read_bytes() != first
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert shlex.join(["--state-dir", str(state)]) in forced.stdout  # the serve command it prints runs there


@pytest.mark.parametrize("args,words", [
    ([], ["name the addresses"]),
    (["--host", "https://lane.local"], ["'https://lane.local' is no host name or IP address"]),
    (["--host", "lane.local:8443"], ["'lane.local:8443' is no host name"]),
    (["--host", "the lane"], ["'the lane' is no host name"]),
    (["--host", "lane.local", "--days", "0"], ["1 to 825 days", "not 0"]),
    (["--host", "lane.local", "--days", "3650"], ["1 to 825 days"]),
])
def test_cert_refuses_bad_input_in_one_line_and_writes_nothing(tmp_path, args, words):
    refused(cert(*args, "--out", str(tmp_path / "tls")), *words)
    assert not (tmp_path / "tls").exists()


def test_cert_refuses_a_folder_it_cannot_write_to(tmp_path):
    (tmp_path / "file").write_text("")
    refused(cert("--host", "lane.local", "--out", str(tmp_path / "file")), "cannot write the certificate")


@pytest.fixture
def made(tmp_path):
    return tls.make(tmp_path / "tls", ["127.0.0.1"], 30)


def test_serve_refuses_half_a_pair_or_one_it_cannot_serve_before_starting(tmp_path, made):
    other = tls.make(tmp_path / "other", ["127.0.0.1"], 30)
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    for args, words in [
        (["--certfile", str(made.cert)], ["--certfile without --keyfile"]),
        (["--keyfile", str(made.key)], ["--keyfile without --certfile"]),
        (["--certfile", str(tmp_path / "missing.pem"), "--keyfile", str(made.key)], ["cannot read", "missing.pem"]),
        (["--certfile", str(junk), "--keyfile", str(made.key)], ["holds no PEM certificate"]),
        (["--certfile", str(made.cert), "--keyfile", str(junk)], ["holds no PEM private key"]),
        (["--certfile", str(made.cert), "--keyfile", str(other.key)], ["is not the key of the certificate"]),
    ]:
        done = serve_refused(tmp_path / "home", args=args)
        refused(SimpleNamespace(exit_code=done.returncode, output=done.stderr, stderr=done.stderr), *words)
        assert not (tmp_path / "home" / "manager-token").exists()  # refused before the service was made


def test_over_https_a_lane_opens_and_the_dashboard_writes_from_its_https_origin_only(tmp_path, made):
    served = ServeProcess(tmp_path / "home", args=["--certfile", str(made.cert), "--keyfile", str(made.key)],
                          ca=made.ca)
    try:
        own, plain = served.url, served.url.replace("https://", "http://")
        assert served.http.post("/api/lanes", headers={"Origin": own, "Sec-Fetch-Site": "same-origin"}
                                ).status_code == 201
        assert served.http.post("/api/lanes", headers={"Origin": plain}).status_code == 403

        token = (tmp_path / "home" / "manager-token").read_text().strip()
        opened = served.http.get(f"/dashboard?token={token}")
        assert opened.status_code == 303 and "secure" in opened.headers["set-cookie"].lower()
        page = {"X-CSRF-Token": auth.page_token(token)}
        assert served.http.post("/api/save", headers={"Origin": own, **page}).status_code == 200
        assert served.http.post("/api/save", headers={"Origin": plain, **page}).status_code == 403
    finally:
        log = served.close()
    assert "Traceback" not in log
    assert f"lane page:  {served.url}/lane" in log and f"dashboard:  {served.url}/dashboard?token=" in log
    assert "HTTPS:      certificate for 127.0.0.1, localhost" in log


def test_a_certificate_covers_the_names_it_holds_and_no_other():
    """serve warns at start when the address it is told to show is not one of these."""
    certificate = tls.Certificate(ssl.create_default_context(), ["lane.local", "*.store.example", "localhost",
                                                                 "127.0.0.1"], datetime.now(UTC))
    assert certificate.covers("lane.local") and certificate.covers("LOCALHOST") and certificate.covers("127.0.0.1")
    assert certificate.covers("lane-2.store.example") and not certificate.covers("a.lane-2.store.example")
    assert not certificate.covers("192.168.1.20") and not certificate.covers("store.example")
