import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone, translation

from kernel.errors import ApplicationError
from notifications.models import SavedSearch, SmtpSettings, UserPreference
from notifications.preferences.hosts import mail_host_check
from notifications.preferences.services import (
    saved_search_instant_alerts_set,
    smtp_settings_save,
    user_preference_ensure,
    user_preference_update,
)


@pytest.fixture
def member(alpha):
    from django.db import connection

    connection.set_tenant(alpha.tenant)
    return get_user_model().objects.get(username=alpha.member_email)


def test_get_or_create_is_idempotent(member):
    first = user_preference_ensure(user=member)
    assert user_preference_ensure(user=member).pk == first.pk
    assert UserPreference.objects.filter(user=member).count() == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"language": "xx", "digest_interval": "daily", "digest_hour": 7},
        {"language": "de", "digest_interval": "monthly", "digest_hour": 7},
        {"language": "de", "digest_interval": "daily", "digest_hour": 24},
    ],
)
def test_update_refuses_values_outside_the_choices(member, kwargs):
    with pytest.raises(ApplicationError):
        user_preference_update(user=member, **kwargs)


def test_instant_alerts_set_reports_how_many_changed(member):
    now = timezone.now()
    a = SavedSearch.objects.create(owner=member, name="A", filters={}, active_since=now)
    SavedSearch.objects.create(owner=member, name="B", filters={}, active_since=now, instant_alert=True)
    assert saved_search_instant_alerts_set(user=member, enabled_ids=[a.pk]) == 2
    assert saved_search_instant_alerts_set(user=member, enabled_ids=[a.pk]) == 0


def test_smtp_settings_stay_one_row(member):
    for port in (587, 465):
        smtp_settings_save(
            host="127.0.0.1", port=port, tls_mode="ssl", username="", password="", from_email="radar@alpha.example"
        )
    assert SmtpSettings.objects.count() == 1
    assert SmtpSettings.objects.get().port == 465
    for language, message in (("de", "Unbekannter TLS-Modus 'plain'."), ("en", "Unknown TLS mode 'plain'.")):
        with translation.override(language), pytest.raises(ApplicationError) as refused:
            smtp_settings_save(
                host="127.0.0.1", port=25, tls_mode="plain", username="", password="", from_email="a@b.de"
            )
        assert refused.value.fields == {"tls_mode": message}


def _resolver(*addresses):
    return lambda host, port: list(addresses)


def test_mail_host_rules():
    assert mail_host_check("Mail.Example.DE.", 587, allow_loopback=False, resolver=_resolver("93.184.215.14")) == (
        "mail.example.de"
    )
    for host, addresses in [("mail.example.de", ("10.0.0.3",)), ("169.254.169.254", ()), ("::1", ())]:
        with pytest.raises(ApplicationError, match="internen Netz"):
            mail_host_check(host, 587, allow_loopback=False, resolver=_resolver(*addresses))
    with pytest.raises(ApplicationError, match="Hostnamen"):
        mail_host_check("mail example", 587, allow_loopback=False, resolver=_resolver("93.184.215.14"))
    with pytest.raises(ApplicationError, match="auflösen"):
        mail_host_check("mail.example.de", 587, allow_loopback=False, resolver=_resolver())
    assert mail_host_check("127.0.0.1", 2525, allow_loopback=True, resolver=_resolver())
