"""Local machines make their encryption key once and keep it; a saved SMTP password survives restarts."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from cryptography.fernet import Fernet
from django.conf import settings

from config.local_keys import KEY_FILE_NAME, local_encryption_keys


def test_first_run_creates_a_private_key_file_and_later_runs_reuse_it(tmp_path):
    first = local_encryption_keys(tmp_path)
    again = local_encryption_keys(tmp_path)
    assert first == again and len(first) == 1
    Fernet(first[0].encode())  # a valid key
    mode = stat.S_IMODE(os.stat(tmp_path / KEY_FILE_NAME).st_mode)
    assert mode == 0o600


def test_local_settings_use_the_key_file_when_no_key_is_configured(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SECRETS_ENCRYPTION_KEYS"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.local", TENDER_RADAR_DATA_DIR=str(tmp_path))
    env.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/unused")
    code = "from django.conf import settings; print(settings.SECRETS_ENCRYPTION_KEYS[0])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (tmp_path / KEY_FILE_NAME).read_text().strip()
