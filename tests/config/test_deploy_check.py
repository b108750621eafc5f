"""`manage.py check --deploy` with production settings and realistic environment reports nothing."""

import os
import subprocess
import sys

from django.conf import settings


def test_production_settings_pass_the_deploy_check():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "k3v9-" + "x7Qp2mZr8LwT4nYb6Hc1Jd5Fg0Sa9Ue3Vi7Ok2Pl6Rm" * 2,
        "DJANGO_ALLOWED_HOSTS": "radar.example,.radar.example",
        # The deploy checks do not connect; realistic production addresses are enough.
        "DATABASE_URL": "postgres://radar:secret@db.internal:5432/tender_radar",
        "REDIS_URL": "redis://cache.internal:6379/0",
        "SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def _deploy_check(env_overrides: dict[str, str | None]) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "k3v9-" + "x7Qp2mZr8LwT4nYb6Hc1Jd5Fg0Sa9Ue3Vi7Ok2Pl6Rm" * 2,
        "DJANGO_ALLOWED_HOSTS": "radar.example,.radar.example",
        "DATABASE_URL": "postgres://radar:secret@db.internal:5432/tender_radar",
        "REDIS_URL": "redis://cache.internal:6379/0",
    }
    for name, value in env_overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_encryption_keys():
    result = _deploy_check({"SECRETS_ENCRYPTION_KEYS": None})
    assert result.returncode != 0
    assert "SECRETS_ENCRYPTION_KEYS is empty" in result.stderr
    assert "Fernet.generate_key()" in result.stderr  # says how to make one


def test_deploy_check_fails_for_a_key_that_is_no_fernet_key():
    result = _deploy_check({"SECRETS_ENCRYPTION_KEYS": "not-a-key"})
    assert result.returncode != 0
    assert "accounts.E002" in result.stderr


def test_a_mail_backend_that_cannot_load_stops_every_command_before_a_first_run_half_succeeds():
    # django-anymail's Amazon SES needs boto3, which is not installed: platform_init could never mail the link.
    result = _deploy_check(
        {"SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=", "EMAIL_URL": "anymail://amazon_ses"}
    )
    assert result.returncode != 0
    assert "accounts.E003" in result.stderr and "boto3" in result.stderr


def test_console_mail_in_production_is_a_deploy_warning_and_the_old_variable_is_refused():
    keys = {"SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA="}
    assert "accounts.W001" in _deploy_check({**keys, "EMAIL_URL": "console://"}).stderr
    refused = _deploy_check({**keys, "EMAIL_BACKEND": "anymail.backends.amazon_ses.EmailBackend"})
    assert refused.returncode != 0 and "set EMAIL_URL instead" in refused.stderr
