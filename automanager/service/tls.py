"""HTTPS on a store's own network. Browsers let only https:// pages (and localhost) use the microphone,
so a lane screen on another device needs the service to serve TLS.

`make` writes a certificate for the names and addresses the screens open. An authority made for
this certificate alone signs it, and that authority's key is never written: the screens trust the
authority, and it can vouch for nothing else, even if the service's key leaks. `load` reads any
certificate and key for `serve` (this one, or one from a real CA) and says in one line what is
wrong with them."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..files import replace_durably

KEY_FILE, CERT_FILE, CA_FILE = "https-key.pem", "https-cert.pem", "https-ca.crt"
ALWAYS = ("localhost", "127.0.0.1")  # this machine's own names: a screen on it, a check with curl
MAX_DAYS = 825  # iPads and iPhones refuse a server certificate valid for longer than this
BACKDATED = timedelta(hours=1)  # valid from a little before now: a screen whose clock is behind still takes it
MAX_FILE = 1 << 20  # bytes: a certificate chain or a key is a few kilobytes
LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)", re.I)


class TLSError(ValueError):
    """What is wrong with a certificate, a key or a host name, in one line."""


class KeyExists(TLSError):
    """`make` keeps a key made before (the screens trust its certificate) unless forced."""


@dataclass(frozen=True)
class Made:
    """The files `make` wrote and what a lane screen is told about them."""

    key: Path
    cert: Path
    ca: Path
    hosts: list[str]
    until: datetime
    fingerprint: str  # the authority's (what the screens install), SHA-256 as devices show it: AB:CD:...
    spki: str  # the service's public key as Chromium's --ignore-certificate-errors-spki-list takes it


@dataclass(frozen=True)
class Certificate:
    """A certificate and its key, read for `serve`: the TLS context, the hosts it names, its end."""

    context: ssl.SSLContext
    hosts: list[str]
    until: datetime

    def covers(self, host: str) -> bool:
        """Whether a browser opening https://<host> takes this certificate for it."""
        host = host.strip("[]").lower().rstrip(".")
        return any(host == name or (name.startswith("*.") and host.partition(".")[2] == name[2:])
                   for name in self.hosts)


def entry(host: str) -> x509.GeneralName:
    """A host as a certificate names it: an IP address, or a DNS name; anything else is refused."""
    try:
        return x509.IPAddress(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        pass
    name = host.lower().rstrip(".")
    if not name or len(name) > 253 or not all(LABEL.fullmatch(label) for label in name.split(".")):
        raise TLSError(f"{host!r} is no host name or IP address: give the name or address a lane screen opens, "
                       "without https:// or a port (e.g. 192.168.1.20 or lane.local)")
    return x509.DNSName(name)


def named(general: x509.GeneralName) -> str:
    return str(general.value)


def listening(hosts: Iterable[str]) -> str:
    """The address serve listens on for screens that open one of `hosts`: the first IP address
    among them, else every address of the machine (a name may stand for any of them)."""
    for host in hosts:
        if isinstance(found := entry(host), x509.IPAddress):
            return str(found.value)
    return "0.0.0.0"


def make(folder: Path, hosts: Iterable[str], days: int, force: bool = False) -> Made:
    """The service's key (KEY_FILE, readable by its owner only), its certificate for `hosts` and this
    machine's own names (CERT_FILE) and the authority that signed it (CA_FILE), in `folder`; an existing
    key is kept unless `force`."""
    entries = list(dict.fromkeys(entry(host) for host in [*hosts, *ALWAYS]))
    if not 1 <= days <= MAX_DAYS:
        raise TLSError(f"a certificate is valid for 1 to {MAX_DAYS} days (iPads refuse longer), not {days}")
    key_path, cert_path, ca_path = folder / KEY_FILE, folder / CERT_FILE, folder / CA_FILE
    start = datetime.now(UTC) - BACKDATED
    until = start + timedelta(days=days)
    authority_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    authority = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "AutoManager"),
                           x509.NameAttribute(NameOID.COMMON_NAME, f"AutoManager lane screens {start:%Y-%m-%d %H:%M}")])
    ca = (x509.CertificateBuilder().subject_name(authority).issuer_name(authority)
          .public_key(authority_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(start).not_valid_after(until)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(authority_key.public_key()), critical=False)
          .sign(authority_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "AutoManager service")]))
            .issuer_name(authority).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(entries), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(authority_key.public_key()),
                           critical=False)
            .sign(authority_key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    try:  # written by way of a temporary file, which is made readable by its owner only
        replace_durably(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()), exclusive=not force)
    except FileExistsError:
        raise KeyExists(f"{key_path} exists: a new key means every lane screen must trust the new certificate "
                        "again") from None
    for path, made in ((cert_path, cert), (ca_path, ca)):
        replace_durably(path, made.public_bytes(serialization.Encoding.PEM))
        path.chmod(0o644)  # a certificate is public: it is copied to the screens
    return Made(key_path, cert_path, ca_path, [named(e) for e in entries], until,
                ca.fingerprint(hashes.SHA256()).hex(":").upper(), spki(cert))


def spki(cert: x509.Certificate) -> str:
    """base64(SHA-256(SubjectPublicKeyInfo)): the hash Chromium's --ignore-certificate-errors-spki-list takes."""
    info = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(info).digest()).decode()


def read(path: Path, what: str) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as exc:
        raise TLSError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE:
        raise TLSError(f"{what}: {path} is larger than {MAX_FILE} bytes, so it is not a certificate or a key")
    return data


def load(certfile: Path, keyfile: Path) -> Certificate:
    """The certificate (first in `certfile`, its chain after it) and its unencrypted key, ready to
    serve; one that cannot serve (no PEM, another key, expired, not yet valid) is refused."""
    chain, secret = read(certfile, "--certfile"), read(keyfile, "--keyfile")
    try:
        leaf = x509.load_pem_x509_certificates(chain)[0]
    except ValueError:
        raise TLSError(f"--certfile: {certfile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)") from None
    try:
        key = serialization.load_pem_private_key(secret, password=None)
    except TypeError:
        raise TLSError(f"--keyfile: {keyfile} is protected by a passphrase, and serve cannot type one "
                       "in: give it a key without a passphrase") from None
    except (ValueError, UnsupportedAlgorithm):
        raise TLSError(f"--keyfile: {keyfile} holds no PEM private key (-----BEGIN PRIVATE KEY-----)") from None
    public = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(*public) != leaf.public_key().public_bytes(*public):
        raise TLSError(f"the key in {keyfile} is not the key of the certificate in {certfile}")
    now = datetime.now(UTC)
    if leaf.not_valid_after_utc <= now:
        raise TLSError(f"the certificate in {certfile} expired on {leaf.not_valid_after_utc:%Y-%m-%d}")
    if leaf.not_valid_before_utc > now:
        raise TLSError(f"the certificate in {certfile} is valid only from {leaf.not_valid_before_utc:%Y-%m-%d %H:%M} "
                       "UTC (is this machine's clock right?)")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certfile, keyfile)
    except (ssl.SSLError, OSError) as exc:
        raise TLSError(f"{certfile} and {keyfile} cannot be served: {getattr(exc, 'reason', None) or exc}") from None
    try:
        alternative = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        hosts = [named(general) for general in alternative if isinstance(general, x509.DNSName | x509.IPAddress)]
    except x509.ExtensionNotFound:
        hosts = []  # browsers take no certificate without subjectAltName
    return Certificate(context, [host.lower() for host in hosts], leaf.not_valid_after_utc)
