"""EMAIL_URL read into Django's mail settings (config/email_url.py)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.email_url import CONSOLE_BACKEND, SMTP_BACKEND, email_config


def test_smtp_is_starttls_on_587_by_default_with_decoded_credentials():
    config = email_config("smtp://radar%40firma.example:p%40ss%3Aw%2Frd@mail.firma.example")
    assert config.settings() == {
        "EMAIL_BACKEND": SMTP_BACKEND,
        "EMAIL_HOST": "mail.firma.example",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "radar@firma.example",
        "EMAIL_HOST_PASSWORD": "p@ss:w/rd",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_TIMEOUT": 20,
    }


def test_starttls_off_for_a_relay_or_catcher_and_a_timeout():
    config = email_config("smtp://mailcatcher:1025?starttls=off&timeout=5")
    assert (config.host, config.port, config.use_tls, config.use_ssl, config.timeout) == (
        "mailcatcher",
        1025,
        False,
        False,
        5,
    )
    assert (config.username, config.password) == ("", "")


def test_smtps_is_tls_from_the_first_byte_on_465():
    config = email_config("smtps://u:p@mail.example")
    assert (config.backend, config.port, config.use_ssl, config.use_tls) == (SMTP_BACKEND, 465, True, False)


def test_console_and_anymail_by_provider_name():
    assert email_config("console://").backend == CONSOLE_BACKEND
    assert email_config("anymail://postmark").backend == "anymail.backends.postmark.EmailBackend"
    assert email_config("ANYMAIL://Mailgun").backend == "anymail.backends.mailgun.EmailBackend"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "unknown scheme \\(none\\)"),
        ("sendmail://localhost", "unknown scheme sendmail://"),
        ("smtp://", "needs a host"),
        ("smtp://u:secret@host:port", "port must be a number"),
        ("smtps://h?starttls=off", "unknown option starttls"),
        ("smtp://h?starttls=maybe", "starttls must be on or off"),
        ("smtp://h?timeout=0", "timeout must be"),
        ("smtp://h?tls=1", "unknown option tls"),
        ("console://somewhere", "takes nothing"),
        ("anymail://nosuchesp", "names no django-anymail backend"),
        ("anymail://base", "names no django-anymail backend"),
        ("anymail://test", "names no django-anymail backend"),
        ("anymail://../etc", "names no django-anymail backend"),
        ("anymail://token:secret@postmark", "takes no credentials"),
    ],
)
def test_refusals_say_what_is_wrong_and_never_the_password(url, message):
    with pytest.raises(ImproperlyConfigured, match=message) as refused:
        email_config(url)
    assert "secret" not in str(refused.value)
    assert "EMAIL_URL" in str(refused.value) and ".env.example" in str(refused.value)
