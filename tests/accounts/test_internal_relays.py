"""Internal mail servers an operator approved: the list, its change record, and the tenant's SMTP/IMAP honouring it.

The tenant's checks run against real servers on loopback with loopback *not* allowed (as in
production), so the list is what lets them through; the resolver is replaced only where a test
needs a name that no DNS knows (the one thing that would leave the machine).
"""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.models import InternalRelay, InternalRelayChange
from accounts.selectors import internal_relay_grants
from accounts.services import internal_relay_delete, internal_relay_save
from kernel.errors import ApplicationError
from notifications.alerts.deliveries import smtp_send_test
from notifications.alerts.sending import TemporarySendError
from notifications.models import SmtpSettings, TlsMode
from notifications.preferences.services import mailbox_settings_save, smtp_settings_save


def _relay(target, protocol="smtp", port=None, operator="ops@radar.example") -> InternalRelay:
    connection.set_schema_to_public()
    return internal_relay_save(relay_id=None, target=target, protocol=protocol, port=port, note="", operator=operator)


def _save_smtp(host, port=25):
    return smtp_settings_save(
        host=host, port=port, tls_mode=TlsMode.NONE, username="", password="", from_email="radar@alpha.example"
    )


def test_every_change_is_recorded_with_the_operator_old_and_new(db):
    connection.set_schema_to_public()
    relay = internal_relay_save(
        relay_id=None, target="Relay.Intern.Example", protocol="smtp", port=25, note="RZ", operator="anna@ops"
    )
    assert relay.target == "relay.intern.example"
    internal_relay_save(
        relay_id=relay.pk, target="10.20.0.0/16", protocol="both", port=None, note="RZ", operator="ben@ops"
    )
    internal_relay_save(
        relay_id=relay.pk, target="10.20.0.0/16", protocol="both", port=None, note="RZ", operator="ben@ops"
    )
    internal_relay_delete(relay_id=relay.pk, operator="cara@ops")
    rows = list(InternalRelayChange.objects.order_by("pk").values("relay_id", "action", "operator", "before", "after"))
    assert rows == [
        {
            "relay_id": relay.pk,
            "action": "added",
            "operator": "anna@ops",
            "before": None,
            "after": {"target": "relay.intern.example", "protocol": "smtp", "port": 25, "note": "RZ"},
        },
        {
            "relay_id": relay.pk,
            "action": "changed",
            "operator": "ben@ops",
            "before": {"target": "relay.intern.example", "protocol": "smtp", "port": 25, "note": "RZ"},
            "after": {"target": "10.20.0.0/16", "protocol": "both", "port": None, "note": "RZ"},
        },  # the second, identical save changed nothing and is not recorded
        {
            "relay_id": relay.pk,
            "action": "deleted",
            "operator": "cara@ops",
            "before": {"target": "10.20.0.0/16", "protocol": "both", "port": None, "note": "RZ"},
            "after": None,
        },
    ]
    assert not InternalRelay.objects.exists()


@pytest.mark.parametrize(
    ("values", "field"),
    [({"target": "10.0.0.1/8"}, "target"), ({"protocol": "pop3"}, "protocol"), ({"port": 70000}, "port")],
)
def test_a_bad_entry_is_refused_and_nothing_recorded(db, values, field):
    connection.set_schema_to_public()
    entry = {"target": "10.0.0.0/8", "protocol": "smtp", "port": None, "note": "", **values}
    with pytest.raises(ApplicationError) as refused:
        internal_relay_save(relay_id=None, operator="ops", **entry)
    assert list(refused.value.fields) == [field]
    assert not InternalRelay.objects.exists() and not InternalRelayChange.objects.exists()


def test_a_tenant_cannot_write_the_list(alpha):
    connection.set_tenant(alpha.tenant)
    with pytest.raises(ApplicationError, match="nur der Betreiber"):
        internal_relay_save(relay_id=None, target="10.0.0.0/8", protocol="both", port=None, note="", operator="x")
    relay = _relay("10.0.0.0/8")
    connection.set_tenant(alpha.tenant)
    with pytest.raises(ApplicationError, match="nur der Betreiber"):
        internal_relay_delete(relay_id=relay.pk, operator="x")
    connection.set_tenant(alpha.tenant)
    assert [grant.network.with_prefixlen for grant in internal_relay_grants(protocol="smtp")] == ["10.0.0.0/8"]
    connection.set_schema_to_public()
    assert InternalRelay.objects.count() == 1 and InternalRelayChange.objects.count() == 1


def test_the_settings_check_refuses_an_internal_smtp_host_until_the_operator_lists_it(alpha):
    connection.set_tenant(alpha.tenant)
    with pytest.raises(ApplicationError, match="internen Netz.*gibt der Betreiber der Plattform frei"):
        _save_smtp("10.20.0.5")
    _relay("10.20.0.0/16", protocol="smtp", port=25)
    connection.set_tenant(alpha.tenant)
    assert _save_smtp("10.20.0.5").host == "10.20.0.5"
    with pytest.raises(ApplicationError, match="internen Netz"):  # the entry names port 25 only
        _save_smtp("10.20.0.5", port=587)
    with pytest.raises(ApplicationError, match="internen Netz"):  # and SMTP only
        mailbox_settings_save(
            host="10.20.0.5", port=25, use_ssl=True, username="u", password="p", folder="INBOX", is_active=True
        )


def test_an_imap_entry_allows_the_mailbox_but_not_smtp(alpha):
    _relay("10.30.0.8", protocol="imap")
    connection.set_tenant(alpha.tenant)
    saved = mailbox_settings_save(
        host="10.30.0.8", port=993, use_ssl=True, username="u", password="p", folder="INBOX", is_active=True
    )
    assert saved.host == "10.30.0.8"
    with pytest.raises(ApplicationError, match="internen Netz"):
        _save_smtp("10.30.0.8")


@pytest.fixture
def production_loopback(settings):
    """Loopback refused, as in production: the local test servers stand in for internal relays."""
    settings.MAIL_ALLOW_LOOPBACK = False
    settings.SOURCES_ALLOW_LOOPBACK = False


def test_sending_connects_only_with_an_entry_for_that_port(alpha, smtp_server, production_loopback):
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(host="127.0.0.1", port=smtp_server.port, tls_mode=TlsMode.NONE, from_email="r@a.de")
    with pytest.raises(TemporarySendError, match="loopback"):
        smtp_send_test(to=alpha.admin_email)
    _relay("127.0.0.1", protocol="smtp", port=smtp_server.port + 1)
    connection.set_tenant(alpha.tenant)
    with pytest.raises(TemporarySendError, match="loopback"):
        smtp_send_test(to=alpha.admin_email)
    _relay("127.0.0.0/8", protocol="both", port=smtp_server.port)
    connection.set_tenant(alpha.tenant)
    smtp_send_test(to=alpha.admin_email)
    assert [m["To"] for m in smtp_server.messages] == [alpha.admin_email]


def test_the_smtp_connection_goes_to_the_address_it_checked(alpha, smtp_server, production_loopback, monkeypatch):
    """A host entry by name; the name resolves (once) to the local server. smtplib never resolves it itself:
    "relay.intern.test" is in no DNS, so a second resolution would fail instead of delivering."""
    resolved = []

    def resolver(host, port):
        resolved.append(host)
        return ["127.0.0.1"] if host == "relay.intern.test" else []

    monkeypatch.setattr("notifications.mail_route.system_resolver", resolver)
    monkeypatch.setattr("notifications.alerts.sending.system_resolver", resolver)
    _relay("relay.intern.test", protocol="smtp", port=smtp_server.port)
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(
        host="relay.intern.test", port=smtp_server.port, tls_mode=TlsMode.NONE, from_email="r@a.de"
    )
    smtp_send_test(to=alpha.admin_email)
    assert len(smtp_server.messages) == 1
    assert resolved == ["relay.intern.test", "relay.intern.test"]  # the early check and the connection's own


def test_a_dns_answer_that_changes_before_the_connection_is_refused(
    alpha, smtp_server, production_loopback, monkeypatch
):
    """A network entry: the early check sees an address inside it, the connection's own resolution one outside."""
    answers = iter([["127.0.0.1"], ["10.99.0.1"]])
    resolver = lambda host, port: next(answers)  # noqa: E731
    monkeypatch.setattr("notifications.mail_route.system_resolver", resolver)
    monkeypatch.setattr("notifications.alerts.sending.system_resolver", resolver)
    _relay("127.0.0.0/8", protocol="smtp")
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(host="mx.firma.test", port=smtp_server.port, tls_mode=TlsMode.NONE, from_email="r@a.de")
    with pytest.raises(TemporarySendError, match="10.99.0.1.*private|private.*10.99.0.1"):
        smtp_send_test(to=alpha.admin_email)
    assert smtp_server.messages == []
