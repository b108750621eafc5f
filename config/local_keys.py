"""The encryption key of a local machine: made once on first run, kept in the data directory.

Why a file: a newcomer's ``manage.py demo`` must be able to store an SMTP password at once,
and the same key must still decrypt it after a restart. Production never uses this: it
takes ``SECRETS_ENCRYPTION_KEYS`` from the environment and refuses to start without it.
"""

from __future__ import annotations

import os
from pathlib import Path

KEY_FILE_NAME = "secrets.key"

# Shown wherever a key is missing, so the reader can fix it in one step.
HOW_TO_MAKE_A_KEY = (
    "SECRETS_ENCRYPTION_KEYS is empty: stored SMTP/IMAP passwords and webhook secrets cannot be "
    "encrypted. Generate a key with\n"
    "  python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'\n"
    "and set SECRETS_ENCRYPTION_KEYS=<key> in the environment (comma-separated, newest first when rotating)."
)


def local_encryption_keys(data_dir: Path) -> list[str]:
    """[the key in ``data_dir/secrets.key``], creating the file (mode 0600) if it does not exist yet."""
    from cryptography.fernet import Fernet

    path = data_dir / KEY_FILE_NAME
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: two processes starting at once (web, worker, beat) never write two different keys.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(Fernet.generate_key().decode() + "\n")
    key = path.read_text().strip()
    if not key:  # a writer that crashed between create and write: make the key now
        key = Fernet.generate_key().decode()
        path.write_text(key + "\n")
    return [key]
