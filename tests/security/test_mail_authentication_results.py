"""Attacks on the sender check of alert mails (issue 27, F2, F3, F1 c).

F2: a sender writes an Authentication-Results header with the tenant's own authserv-id into the
mail itself; it stands below the receiving server's ``Received:`` field (the server prepends its
own header above it, RFC 8601 §4/§5), and Postfix+OpenDKIM/OpenDMARC and Dovecot LMTP leave it
there. F3: a genuine pass for another host of the same organisational domain. F1 c: a tenant-typed
forwarding rule, or one for a whole shared-hosting domain. The attack mails are constructed here,
headers in the order the attacker's mail arrives in; one of them goes through a real Dovecot
mailbox and the real mailbox check.
"""

from __future__ import annotations

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.inbox.services import mailbox_check
from notifications.models import MailboxSettings
from sources.adapters.mail import parse_alert_mail
from sources.adapters.mail.provenance import (
    AUTHENTICATION_FORGED,
    SENDER_UNVERIFIED,
    ApprovedSender,
    MailTrust,
    mail_provenance,
)
from sources.models import ApprovedForwarder, InboundMail
from tests.fixtures.mail import RECEIVING_SERVER, netserver_alert
from tests.fixtures.tenants import operator_sign_in

TRUST = MailTrust(authserv_id=RECEIVING_SERVER)
# What the tenant's receiving server itself wrote: on top, above the Received: field of the hop it accepted.
SERVER_SAYS_FAIL = (
    f"Authentication-Results: {RECEIVING_SERVER};\r\n"
    "\tdkim=fail (signature verification failed) header.d=tender24.de;\r\n"
    "\tspf=softfail smtp.mailfrom=tender24.de\r\n"
    f"Received: from relay.angebote-abgeben.example ([203.0.113.7]) by {RECEIVING_SERVER} (Postfix)\r\n"
    "\twith ESMTPS id 4Xy1; Tue, 15 Sep 2026 06:00:13 +0200\r\n"
)


def _alert(*, sender: str, host: str, message_id: str) -> bytes:
    """A NetServer alert as an attacker writes it (headers from here on are the attacker's)."""
    link = f"https://{host}/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-1ffff000000-0000000000000001"
    return netserver_alert(sender=sender, message_id=message_id, link=link)


def _forged(claim: str, *, message_id: str = "<forged@tender24.de>") -> bytes:
    """The server's own fail on top; the attacker's forged pass in the mail, below the Received: field."""
    forged = f"Authentication-Results: {claim}; dkim=pass header.d=tender24.de header.i=@tender24.de\r\n"
    return (
        SERVER_SAYS_FAIL.encode()
        + forged.encode()
        + _alert(sender="noreply@tender24.de", host="www.tender24.de", message_id=message_id)
    )


def _verdict(raw: bytes, trust: MailTrust = TRUST):
    return mail_provenance(parse_alert_mail(raw), trust=trust)


# --- F2: only the receiving server's own header counts -------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [RECEIVING_SERVER, f"{RECEIVING_SERVER} 1", f"(x) {RECEIVING_SERVER} (y)"],
    ids=["plain", "with-version", "with-comments"],
)
def test_a_forged_pass_below_the_received_field_is_refused(claim):
    verdict = _verdict(_forged(claim))
    assert (verdict.verified, verdict.reason) == (False, AUTHENTICATION_FORGED)
    assert "below a Received: field" in verdict.detail


def test_two_headers_of_the_servers_id_are_refused_even_above_the_received_field():
    raw = (
        f"Authentication-Results: {RECEIVING_SERVER}; dkim=pass header.d=tender24.de\r\n".encode()
        + SERVER_SAYS_FAIL.encode()
        + _alert(sender="noreply@tender24.de", host="www.tender24.de", message_id="<twice@tender24.de>")
    )
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.reason) == (False, AUTHENTICATION_FORGED)
    assert "2 Authentication-Results headers" in verdict.detail
    # Also where the tenant said its server writes several: these two contradict each other.
    several = _verdict(raw, MailTrust(authserv_id=RECEIVING_SERVER, several_headers=True))
    assert (several.verified, several.reason) == (False, AUTHENTICATION_FORGED)
    assert "contradict each other on dkim" in several.detail


# What a Postfix with OpenDKIM and OpenDMARC milters writes, delivered by Dovecot LMTP (which adds its own
# Received: on top by default, lmtp_add_received_header): constructed from those programs' documented formats.
LMTP_HOP = f"Received: from {RECEIVING_SERVER} by imap.alpha-bau.example with LMTPS id 7Hq2; Tue, 15 Sep 2026 06:00:14 +0200\r\n"
DMARC_HEADER = f"Authentication-Results: {RECEIVING_SERVER}; dmarc=pass (p=reject dis=none) header.from=tender24.de\r\n"
DKIM_HEADER = f"Authentication-Results: {RECEIVING_SERVER};\r\n\tdkim=pass (2048-bit key) header.d=tender24.de header.i=@tender24.de\r\n"
MILTER_HEADERS = DMARC_HEADER + DKIM_HEADER
POSTFIX_HOP = (
    f"Received: from mail.tender24.de (mail.tender24.de [198.51.100.4]) by {RECEIVING_SERVER} (Postfix)\r\n"
    "\twith ESMTPS id 4Xy1; Tue, 15 Sep 2026 06:00:13 +0200\r\n"
)


def test_the_lmtp_delivery_hop_is_the_receiving_servers_own():
    raw = (LMTP_HOP + DMARC_HEADER + POSTFIX_HOP).encode() + _alert(
        sender="noreply@tender24.de", host="www.tender24.de", message_id="<lmtp@tender24.de>"
    )
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.via) == (True, "dmarc")


def test_several_headers_of_the_servers_id_are_refused_unless_the_mailbox_says_its_server_writes_several():
    """OpenDKIM and OpenDMARC each write a header of the id: by default one of two is taken as someone else's."""
    raw = (LMTP_HOP + MILTER_HEADERS + POSTFIX_HOP).encode() + _alert(
        sender="noreply@tender24.de", host="www.tender24.de", message_id="<milters@tender24.de>"
    )
    strict = _verdict(raw)
    assert (strict.verified, strict.reason) == (False, AUTHENTICATION_FORGED)
    assert "2 Authentication-Results headers" in strict.detail and "several headers" in strict.detail

    several = _verdict(raw, MailTrust(authserv_id=RECEIVING_SERVER, several_headers=True))
    assert several.verified and several.via in {"dkim", "dmarc"}


def test_a_forged_lmtp_hop_inside_the_mail_does_not_lift_a_forged_pass_above_the_receiving_server():
    forged = (
        "Received: from evil.example by imap.alpha-bau.example with LMTP id 1; Tue, 15 Sep 2026 06:00:00 +0200\r\n"
        f"Authentication-Results: {RECEIVING_SERVER}; dkim=pass header.d=tender24.de\r\n"
    )
    raw = (LMTP_HOP + SERVER_SAYS_FAIL + forged).encode() + _alert(
        sender="noreply@tender24.de", host="www.tender24.de", message_id="<lifted@tender24.de>"
    )
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.reason) == (False, AUTHENTICATION_FORGED)
    assert "below a Received: field" in verdict.detail


def test_the_servers_own_pass_on_top_still_verifies_whatever_other_servers_wrote_below():
    own_pass = f"Authentication-Results: {RECEIVING_SERVER}; dkim=pass header.d=tender24.de\r\n"
    raw = (
        own_pass.encode()
        + b"Received: from mail.tender24.de by mx.alpha-bau.example; Tue, 15 Sep 2026 06:00:13 +0200\r\n"
        + b"Authentication-Results: mx.tender24.de; dkim=fail header.d=tender24.de\r\n"
        + _alert(sender="noreply@tender24.de", host="www.tender24.de", message_id="<genuine@tender24.de>")
    )
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.via) == (True, "dkim")


# --- F3: the pass must be for exactly the From domain, an exact host of the family --------------


def test_a_pass_for_another_host_of_the_same_organisation_does_not_verify():
    police = f"Authentication-Results: {RECEIVING_SERVER}; dkim=pass header.d=polizei.hessen.de\r\n".encode()
    raw = police + _alert(sender="noreply@vergabe.hessen.de", host="vergabe.hessen.de", message_id="<p@hessen.de>")
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.reason, verdict.family) == (False, SENDER_UNVERIFIED, "netserver")
    assert "is for polizei.hessen.de, not for the sender domain vergabe.hessen.de" in verdict.detail


def test_an_spf_pass_of_any_employee_of_the_city_does_not_verify_its_portal():
    spf = f"Authentication-Results: {RECEIVING_SERVER}; spf=pass smtp.mailfrom=m.mustermann@muenchen.de\r\n"
    raw = spf.encode() + _alert(
        sender="noreply@vergabe.muenchen.de", host="vergabe.muenchen.de", message_id="<m@muenchen.de>"
    )
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.reason) == (False, SENDER_UNVERIFIED)


def test_a_subdomain_of_a_shared_hosting_domain_is_no_known_sender():
    # Anyone with a site at <name>.vmstart.de can sign for it; only the portals' own hosts are senders.
    own = f"Authentication-Results: {RECEIVING_SERVER}; dkim=pass header.d=firma.vmstart.de\r\n".encode()
    raw = own + _alert(sender="noreply@firma.vmstart.de", host="vergabe.vmstart.de", message_id="<v@vmstart.de>")
    verdict = _verdict(raw)
    assert (verdict.verified, verdict.reason, verdict.family) == (False, SENDER_UNVERIFIED, "")


# --- F1 c: forwarding rules are operator-approved, per family --------------------------------------


def test_a_tenant_cannot_type_a_forwarding_rule_and_spoofed_mail_stays_quarantined(
    alpha, alpha_admin_client, imap_server
):
    user_name, password = imap_server.add_user(alpha.tenant.schema_name)
    form = {
        "host": imap_server.host,
        "port": str(imap_server.ssl_port),
        "use_ssl": "on",
        "username": user_name,
        "password": password,
        "folder": "INBOX",
        "is_active": "on",
        "authserv_id": RECEIVING_SERVER,
    }
    # The old free-text field is gone: what a tenant types is ignored; an unapproved pick is refused.
    assert (
        alpha_admin_client.post("/einstellungen/postfach/", {**form, "forwarded_domains": "tender24.de"}).status_code
        == 302
    )
    refused = alpha_admin_client.post("/einstellungen/postfach/", {**form, "forwarders": ["netserver:tender24.de"]})
    assert refused.status_code == 400
    with schema_context(alpha.schema_name):
        assert MailboxSettings.objects.get().forwarders == []
    spoof = _alert(sender="noreply@tender24.de", host="www.tender24.de", message_id="<unauthenticated@tender24.de>")
    imap_server.append(user_name, spoof)
    with schema_context(alpha.schema_name):
        mailbox_check(ssl_context=imap_server.ssl_context(), timeout=10)
    mail = InboundMail.objects.get(tenant_schema="alpha", message_id="<unauthenticated@tender24.de>")
    assert (mail.status, mail.quarantine_reason) == ("quarantined", "sender")


def test_forged_results_are_quarantined_through_the_real_mailbox_and_shown_in_german(
    alpha, imap_server, alpha_admin_client, public_client
):
    user_name, password = imap_server.add_user(alpha.tenant.schema_name)
    with schema_context(alpha.schema_name):
        MailboxSettings.objects.create(
            host=imap_server.host,
            port=imap_server.ssl_port,
            username=user_name,
            password=password,
            authserv_id=RECEIVING_SERVER,
        )
    imap_server.append(user_name, _forged(f"{RECEIVING_SERVER} 1", message_id="<forged-imap@tender24.de>"))
    with schema_context(alpha.schema_name):
        mailbox_check(ssl_context=imap_server.ssl_context(), timeout=10)
    mail = InboundMail.objects.get(tenant_schema="alpha", message_id="<forged-imap@tender24.de>")
    assert (mail.status, mail.quarantine_reason) == ("quarantined", AUTHENTICATION_FORGED)
    assert "below a Received: field" in mail.reason
    page = alpha_admin_client.get("/einstellungen/postfach/").content.decode()
    assert "Gefälschte Absenderprüfung (Authentication-Results)" in page
    operator_sign_in(public_client)
    console = public_client.get("/admin/sources/inboundmail/?quarantine_reason__exact=authres").content.decode()
    assert "Gefälschte Absenderprüfung (Authentication-Results)" in console and "alpha" in console


def test_an_approved_forwarder_counts_only_for_its_family_and_only_while_approved(alpha):
    from notifications.inbox.selectors import mailbox_trust

    entry = ApprovedForwarder.objects.create(
        family="netserver", sender_domain="tender24.de", approved_by="operator@example.org", approved_at=timezone.now()
    )
    mailbox = MailboxSettings(authserv_id=RECEIVING_SERVER, forwarders=["netserver:tender24.de", "dtad:gmail.com"])
    trust = mailbox_trust(mailbox=mailbox)
    assert trust.forwarders == (ApprovedSender(family="netserver", domain="tender24.de"),)
    forwarded = _alert(sender="noreply@tender24.de", host="www.tender24.de", message_id="<fwd@tender24.de>")
    assert _verdict(forwarded, trust).via == "forwarding rule"
    entry.delete()  # withdrawn by the operator: gone from every mailbox at the next check
    assert _verdict(forwarded, mailbox_trust(mailbox=mailbox)).verified is False


def test_the_console_refuses_to_approve_a_shared_hosting_domain(public_client):
    operator_sign_in(public_client)
    add = "/admin/sources/approvedforwarder/add/"
    refused = public_client.post(add, {"family": "netserver", "sender_domain": "vmstart.de", "note": "alle Portale"})
    assert refused.status_code == 200
    assert "gemeinsame Domain vieler Portale" in refused.content.decode()
    assert not ApprovedForwarder.objects.exists()
    approved = public_client.post(add, {"family": "netserver", "sender_domain": " Tender24.DE. ", "note": "Ticket 12"})
    assert approved.status_code == 302
    entry = ApprovedForwarder.objects.get()
    assert (entry.sender_domain, entry.approved_by, entry.key) == (
        "tender24.de",
        "operator@example.org",
        "netserver:tender24.de",
    )
