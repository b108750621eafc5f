"""A real IMAP server (Dovecot) per test, on loopback, with implicit TLS and STARTTLS.

Dovecot is Debian's ``dovecot-imapd`` (``.ci/run`` installs it); tests using ``imap_server``
are skipped, with that reason, only when the binary is missing. Each test gets its own
configuration, certificate, users and Maildir in a temporary folder, so mailboxes never
leak between tests. As root the server drops to Dovecot's own system users; otherwise it
runs entirely as the current user.
"""

from __future__ import annotations

import datetime as dt
import grp
import ipaddress
import os
import pwd
import secrets
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from imapclient import IMAPClient

from tests.fixtures.network import free_loopback_port

DOVECOT_CANDIDATES = ("/usr/sbin/dovecot", "/usr/local/sbin/dovecot")


def _dovecot_binary() -> str | None:
    found = shutil.which("dovecot")
    if found:
        return found
    return next((path for path in DOVECOT_CANDIDATES if os.access(path, os.X_OK)), None)


def _write_certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@dataclass
class ImapServer:
    host: str
    port: int  # plain IMAP, STARTTLS offered
    ssl_port: int  # implicit TLS
    cert_path: Path
    users_path: Path  # folder of passwd-files, one per user
    users: dict[str, str] = field(default_factory=dict)

    def ssl_context(self) -> ssl.SSLContext:
        """A client context that trusts this server's certificate (and nothing else)."""
        return ssl.create_default_context(cafile=str(self.cert_path))

    def add_user(self, prefix: str = "alerts") -> tuple[str, str]:
        username = f"{prefix}-{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(12)
        self.users[username] = password
        # One passwd-file per user (the path has %u): Dovecot caches a file it has read.
        path = self.users_path / username
        path.write_text(f"{username}:{{PLAIN}}{password}\n")
        os.chmod(path, 0o644)
        return username, password

    def client(self, username: str) -> IMAPClient:
        client = IMAPClient(self.host, port=self.ssl_port, ssl=True, ssl_context=self.ssl_context(), timeout=10)
        client.login(username, self.users[username])
        return client

    def append(self, username: str, raw: bytes, *, folder: str = "INBOX", msg_time=None) -> None:
        with self.client(username) as client:
            if not client.folder_exists(folder):
                client.create_folder(folder)
            client.append(folder, raw, msg_time=msg_time)

    def flags(self, username: str) -> list[tuple]:
        with self.client(username) as client:
            client.select_folder("INBOX", readonly=True)
            return [tuple(v[b"FLAGS"]) for v in client.fetch(client.search(["ALL"]), ["FLAGS"]).values()]


def _identities() -> dict[str, str | int]:
    if os.geteuid() == 0:
        internal = pwd.getpwnam("dovecot")
        login = pwd.getpwnam("dovenull")
        return {
            "internal_user": internal.pw_name,
            "internal_group": grp.getgrgid(internal.pw_gid).gr_name,
            "login_user": login.pw_name,
            "uid": internal.pw_uid,
            "gid": internal.pw_gid,
        }
    me = pwd.getpwuid(os.getuid())
    return {
        "internal_user": me.pw_name,
        "internal_group": grp.getgrgid(me.pw_gid).gr_name,
        "login_user": me.pw_name,
        "uid": me.pw_uid,
        "gid": me.pw_gid,
    }


_CONFIG = """\
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
auth_mechanisms = plain login
default_internal_user = {internal_user}
default_internal_group = {internal_group}
default_login_user = {login_user}
first_valid_uid = {uid}
first_valid_gid = {gid}
mail_location = maildir:{folder}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {users}/%u
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={folder}/home/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {ssl_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service stats {{
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
"""


def _wait_for(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"dovecot exited with {process.returncode}: {_tail(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
                if sock.recv(64).startswith(b"* OK"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"dovecot did not answer on port {port}: {_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"


@pytest.fixture
def imap_server():
    binary = _dovecot_binary()
    if binary is None:
        pytest.skip("Dovecot (Debian package dovecot-imapd) is not installed; .ci/run installs it")
    folder = Path(tempfile.mkdtemp(prefix="tr-imap-"))
    try:
        ids = _identities()
        for sub in ("run", "state", "mail", "home"):
            (folder / sub).mkdir()
        cert, key = _write_certificate(folder)
        users = folder / "users"
        users.mkdir()
        port, ssl_port = free_loopback_port(), free_loopback_port()
        config = folder / "dovecot.conf"
        config.write_text(
            _CONFIG.format(folder=folder, cert=cert, key=key, users=users, port=port, ssl_port=ssl_port, **ids)
        )
        os.chmod(folder, 0o755)  # noqa: S103 - Dovecot's own users must reach the test's files
        os.chmod(users, 0o755)  # noqa: S103 - read by Dovecot's auth process
        for path in (cert, config):
            os.chmod(path, 0o644)
        if os.geteuid() == 0:
            for sub in ("mail", "home"):
                os.chown(folder / sub, ids["uid"], ids["gid"])
        process = subprocess.Popen([binary, "-F", "-c", str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    try:
        _wait_for(port, process, folder / "dovecot.log")
        yield ImapServer(host="127.0.0.1", port=port, ssl_port=ssl_port, cert_path=cert, users_path=users)
    finally:
        # Dovecot takes about a second to wind down its children; nothing of this test needs to wait for
        # that (the next server has its own ports and folder), so it is stopped and removed in the background.
        process.terminate()
        threading.Thread(target=_reap, args=(process, folder)).start()  # the run waits for it at exit


def _reap(process: subprocess.Popen, folder: Path) -> None:
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
