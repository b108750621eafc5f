"""Production's first run: operator host, first operator (one-time link, never a printed password), schedules."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command
from django.test import Client
from django_celery_beat.models import PeriodicTask
from django_tenants.utils import schema_context

from accounts.models import Domain
from config.email_url import email_config
from tests.fixtures.network import free_loopback_port

HOST = "betrieb.radar.example"


def _run(**options) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("platform_init", stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_first_run_sets_up_host_operator_and_schedules_and_mails_a_one_time_link(settings):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    out, _err = _run(host=HOST, operator_email="Ops@Radar.example")
    assert Domain.objects.filter(domain=HOST, tenant__schema_name="public").exists()
    with schema_context("public"):
        operator = get_user_model().objects.get(username="ops@radar.example")
        assert operator.is_superuser and operator.is_staff and not operator.has_usable_password()
    assert PeriodicTask.objects.filter(enabled=True).exists()
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ops@radar.example"]
    link = re.search(rf"https://{HOST}/admin/passwort/\S+/", mail.outbox[0].body).group(0)
    assert link not in out  # the link goes by mail only
    assert "not shown here" in out

    # The link sets the password once, on the operators' host.
    client = Client(HTTP_HOST=HOST)
    path = link.removeprefix(f"https://{HOST}")
    form_page = client.get(path, follow=True)
    assert form_page.status_code == 200 and "new_password1" in form_page.content.decode()
    response = client.post(
        form_page.redirect_chain[-1][0] if form_page.redirect_chain else path,
        {"new_password1": "Kr3ftig-genug-2026", "new_password2": "Kr3ftig-genug-2026"},
    )
    assert response.status_code == 302 and response["Location"] == "/admin/login/"
    with schema_context("public"):
        assert get_user_model().objects.get(username="ops@radar.example").check_password("Kr3ftig-genug-2026")
    assert "ungültig" in client.get(path, follow=True).content.decode()  # used once, void after


@pytest.mark.django_db
def test_running_again_changes_nothing_and_sends_no_second_link():
    _run(host=HOST, operator_email="ops@radar.example")
    with schema_context("public"):
        operator = get_user_model().objects.get(username="ops@radar.example")
        operator.set_password("Kr3ftig-genug-2026")
        operator.save()
    mail.outbox.clear()
    out, _err = _run(host=HOST, operator_email="ops@radar.example")
    assert "already there" in out and mail.outbox == []
    assert Domain.objects.filter(domain=HOST).count() == 1


@pytest.mark.django_db
def test_host_and_operator_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("TENDER_RADAR_PUBLIC_HOST", HOST)
    monkeypatch.setenv("TENDER_RADAR_OPERATOR_EMAIL", "env-ops@radar.example")
    _run()
    assert Domain.objects.filter(domain=HOST).exists()
    with schema_context("public"):
        assert get_user_model().objects.filter(username="env-ops@radar.example").exists()


@pytest.mark.django_db
def test_without_mail_the_command_fails_says_how_to_set_the_password_and_prints_no_secret(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # nothing listens
    out, err = StringIO(), StringIO()
    # CommandError: manage.py exits with status 1, so a deploy script stops here.
    with pytest.raises(CommandError, match="platform_init --prompt") as failed:
        call_command("platform_init", host=HOST, operator_email="ops@radar.example", stdout=out, stderr=err)
    assert "/admin/passwort/" not in out.getvalue() + err.getvalue() + str(failed.value)
    assert PeriodicTask.objects.filter(enabled=True).exists()  # the schedules are there all the same


@pytest.mark.django_db
def test_the_console_mail_backend_would_print_the_link_so_nothing_is_sent(settings, capsys):
    # The attack: EMAIL_BACKEND left at Django's console backend puts the mail, link and all, in the deploy log.
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="--show-secret") as refused:
        call_command("platform_init", host=HOST, operator_email="ops@radar.example", stdout=out, stderr=err)
    printed = out.getvalue() + err.getvalue() + str(refused.value) + "".join(capsys.readouterr())
    assert "/admin/passwort/" not in printed


@pytest.mark.django_db
def test_show_secret_prints_the_link_and_only_then(settings):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    out, _err = _run(host=HOST, operator_email="ops@radar.example", show_secret=True)
    assert re.search(rf"https://{HOST}/admin/passwort/\S+/", out)
    assert mail.outbox == []


@pytest.mark.django_db
def test_bad_input_is_a_clear_error():
    with pytest.raises(CommandError, match="TENDER_RADAR_PUBLIC_HOST"):
        call_command("platform_init", host="", operator_email="")
    with pytest.raises(CommandError, match="'not a host' ist kein gültiger Hostname"):
        call_command("platform_init", host="not a host", operator_email="ops@radar.example")


def _email_url(settings, url: str) -> None:
    """The mail settings production derives from EMAIL_URL (config.email_url), set for this test."""
    for name, value in email_config(url).settings().items():
        setattr(settings, name, value)


@pytest.mark.django_db
def test_the_link_goes_through_a_real_smtp_server_named_by_email_url(settings, smtp_server):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    _email_url(settings, f"smtp://{smtp_server.host}:{smtp_server.port}?starttls=off")
    out, err = _run(host=HOST, operator_email="ops@radar.example")
    [message] = smtp_server.messages
    assert message["To"] == "ops@radar.example"
    link = re.search(rf"https://{HOST}/admin/passwort/\S+/", message.get_content()).group(0)
    assert link not in out + err and "not shown here" in out


@pytest.mark.django_db
def test_an_unreachable_mail_server_fails_the_command_and_names_it(settings):
    port = free_loopback_port()  # nothing listens
    _email_url(settings, f"smtp://ops:Geheim-123@127.0.0.1:{port}?starttls=off&timeout=5")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("platform_init", host=HOST, operator_email="ops@radar.example", stdout=out, stderr=err)
    message = str(failed.value)
    assert "ConnectionRefusedError" in message and f"smtp://127.0.0.1:{port}" in message
    assert "Geheim-123" not in message and "/admin/passwort/" not in message + out.getvalue() + err.getvalue()


@pytest.mark.django_db
def test_prompt_without_a_terminal_reads_the_password_from_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", StringIO("Kr3ftig-genug-2026\n"))
    out, _err = _run(host=HOST, operator_email="ops@radar.example", prompt=True)
    assert "Password set (read from standard input)." in out
    with schema_context("public"):
        assert get_user_model().objects.get(username="ops@radar.example").check_password("Kr3ftig-genug-2026")


@pytest.mark.django_db
def test_prompt_without_a_terminal_or_input_says_so_instead_of_waiting(monkeypatch):
    monkeypatch.setattr("sys.stdin", StringIO(""))  # docker compose's migrate service: stdin is /dev/null
    with pytest.raises(CommandError, match="no terminal to ask on"):
        _run(host=HOST, operator_email="ops@radar.example", prompt=True)
    monkeypatch.setattr("sys.stdin", StringIO("kurz\n"))
    with pytest.raises(CommandError, match="Password refused"):
        _run(host=HOST, operator_email="ops@radar.example", prompt=True)
