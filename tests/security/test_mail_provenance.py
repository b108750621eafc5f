"""Attack: anyone can mail a tenant's alert mailbox; a mail that looks like a portal alert must not
create or change the tenders every tenant shares, nor reach another tenant's alerts.

Replayed through a real Dovecot mailbox and the real mailbox check. The attack mails are
constructed here (no real spoofed mail is at hand); the genuine alerts are the constructed
portal fixtures (tests/data/portals/mail/README.md) delivered the way a receiving server that
checks DKIM/SPF delivers them (``tests.fixtures.mail.as_received``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.services import delta_process
from notifications.models import Delivery, TenderMatch
from sources.models import ApprovedForwarder, InboundMail, PortalPageRequest
from tenders.models import Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.fixtures.mail import as_received, mailbox_check_now, mailbox_configure, netserver_alert
from tests.notifications.alerts.helpers import saved_search, user

MAIL = Path(__file__).resolve().parents[1] / "data" / "portals" / "mail"
TENDER24 = MAIL / "tender24_daily_alert_iso-8859-1_qp.eml"
REAL_CX = "CXP4Y9PRGS5"  # a real cosinex id (DÖE legacy eForms fixture)

# DTAD wording switches the parser into "any link is the notice link" mode; the second link names a real
# cosinex project, so the fake notice would also attach itself to that real tender.
FAKE_DTAD = (
    "From: DTAD Suchprofil <suchprofil@dtad-alerts.example>\r\n"
    "To: einkauf@alpha-bau.example\r\n"
    "Subject: Suchprofilergebnisse: Kanalsanierung NRW (1 Treffer)\r\n"
    "Date: Tue, 15 Sep 2026 07:30:00 +0200\r\n"
    "Message-ID: <fake-dtad-1@dtad-alerts.example>\r\n"
    "MIME-Version: 1.0\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "Suchprofilergebnisse\r\n"
    "\r\n"
    "Treffer bei: Notfall-Kanalsanierung Sammler West (Eilvergabe)\r\n"
    "Frist: 20.09.2026\r\n"
    "Projektstand: Ausschreibung\r\n"
    "Vergabestelle: Stadtentwaesserung Musterstadt\r\n"
    "https://angebote-abgeben.example/ausschreibung/9988776655\r\n"
    f"https://www.dtvp.de/Satellite/notice/{REAL_CX}\r\n"
).encode()


FORGED_RESULTS = b"Authentication-Results: mx.angebote-abgeben.example; dkim=pass header.d=tender24.de\r\n"
OWN_LINK = "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-1ffff000000-0000000000000001"
FOREIGN_LINK = "https://angebote-abgeben.example/NetServer/TenderingProcedureDetails?TenderOID=54321-Tender-1ffff000000-0000000000000002"

ATTACKS = {
    # (a) no portal sender at all
    "<fake-dtad-1@dtad-alerts.example>": (FAKE_DTAD, "sender"),
    # (b) a portal's From, but the tenant's server saw no DKIM/SPF pass; the attacker's own header is ignored
    "<spoof-1@tender24.de>": (
        as_received(FORGED_RESULTS + netserver_alert(message_id="<spoof-1@tender24.de>", link=OWN_LINK)).replace(
            b"none", b"dkim=fail header.d=tender24.de;\r\n\tspf=softfail smtp.mailfrom=tender24.de", 1
        ),
        "sender",
    ),
    # (c) a genuine, DKIM-signed portal mail whose notice link points elsewhere
    "<spoof-2@tender24.de>": (
        as_received(netserver_alert(message_id="<spoof-2@tender24.de>", link=FOREIGN_LINK), dkim="tender24.de"),
        "link",
    ),
}


def _beta_listens_for_everything(beta):
    """beta's member has an instant alert on exactly what the attack is about."""
    with schema_context(beta.schema_name):
        saved_search(user(beta.member_email), name="Kanal", q="Kanalsanierung", instant_alert=True)


def _beta_matching(beta) -> tuple[int, int]:
    """Run beta's real matching over every tender there is (what the hand-off would trigger)."""
    with schema_context(beta.schema_name):
        delta_process(created=list(Tender.objects.values_list("pk", flat=True)), changed={})
        return TenderMatch.objects.count(), Delivery.objects.count()


@pytest.fixture
def real_cosinex_tender(db) -> Tender:
    (tender_id,) = notices_ingest(records=[eforms_record(LEGACY_EFORMS)], use_fingerprint=False).created
    return Tender.objects.get(pk=tender_id)


def test_spoofed_alert_mails_are_quarantined_and_never_reach_shared_tenders_or_other_tenants(
    alpha, beta, imap_server, real_cosinex_tender
):
    _beta_listens_for_everything(beta)
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    for raw, _reason in ATTACKS.values():
        imap_server.append(mailbox, raw)
    tenders_before, sources_before = Tender.objects.count(), TenderSource.objects.count()
    real_before = Tender.objects.values().get(pk=real_cosinex_tender.pk)

    outcome = mailbox_check_now(alpha.tenant, imap_server)

    assert (outcome.error, outcome.new_mails, outcome.quarantined, outcome.parsed) == ("", 3, 3, 0)
    assert (outcome.leads, outcome.page_requests) == (3, ())  # kept for alpha; quarantined mails point at nothing
    assert (Tender.objects.count(), TenderSource.objects.count()) == (tenders_before, sources_before)
    assert not Tender.objects.filter(title__contains="Sammler West").exists()
    assert Tender.objects.values().get(pk=real_cosinex_tender.pk) == real_before
    mails = {mail.message_id: mail for mail in InboundMail.objects.filter(tenant_schema="alpha")}
    for message_id, (_raw, reason) in ATTACKS.items():
        mail = mails[message_id]
        assert (mail.status, mail.quarantine_reason) == ("quarantined", reason), mail.reason
        assert len(mail.held_notices) == 1 and "Sammler West" in str(mail.held_notices)  # kept for the tenant
    assert "mx.angebote-abgeben.example" not in mails["<spoof-1@tender24.de>"].reason
    assert "angebote-abgeben.example" in mails["<spoof-2@tender24.de>"].reason
    assert _beta_matching(beta) == (0, 0)


def test_the_mailbox_page_shows_each_quarantined_mail_with_its_reason(alpha, imap_server, alpha_admin_client):
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    for raw, _reason in ATTACKS.values():
        imap_server.append(mailbox, raw)
    mailbox_check_now(alpha.tenant, imap_server)
    html = alpha_admin_client.get(reverse("settings:mailbox")).content.decode()
    assert html.count('data-status="quarantined"') == 3
    assert html.count("Absender nicht verifiziert") == 2 and html.count("Link auf fremden Server") == 1
    # A held notice's link is not clickable until the admin releases the mail.
    assert "angebote-abgeben.example/ausschreibung" not in html and "(angebote-abgeben.example)" in html


def test_a_properly_authenticated_alert_is_accepted_by_an_spf_pass_for_exactly_its_domain(alpha, imap_server):
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    imap_server.append(mailbox, as_received(TENDER24.read_bytes(), spf="tender24.de"))
    outcome = mailbox_check_now(alpha.tenant, imap_server)
    assert (outcome.parsed, outcome.quarantined, outcome.leads, len(outcome.page_requests)) == (1, 0, 3, 3)
    mail = InboundMail.objects.get(tenant_schema="alpha")
    assert mail.status == "parsed" and mail.reason.startswith("verified netserver sender (spf)")
    # Verified, and still only a pointer: the tender24 pages are requested, nothing is ingested from the mail.
    assert not TenderSource.objects.filter(source="tender24").exists()
    assert set(PortalPageRequest.objects.values_list("source__key", flat=True)) == {"tender24", "vergabe-hessen"}


def test_an_approved_forwarding_sender_accepts_its_domain_without_authentication(alpha, imap_server):
    ApprovedForwarder.objects.create(
        family="netserver", sender_domain="tender24.de", approved_by="operator@example.org", approved_at=timezone.now()
    )
    mailbox = mailbox_configure(imap_server, alpha.tenant, forwarders=["netserver:tender24.de"])
    imap_server.append(mailbox, TENDER24.read_bytes())  # forwarded: no authentication survived the hop
    imap_server.append(mailbox, FAKE_DTAD)  # the rule covers tender24.de only
    outcome = mailbox_check_now(alpha.tenant, imap_server)
    assert (outcome.parsed, outcome.quarantined) == (1, 1)


def test_release_holds_for_that_tenant_only(alpha, beta, imap_server, alpha_admin_client, beta_admin_client):
    _beta_listens_for_everything(beta)
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    imap_server.append(mailbox, FAKE_DTAD)
    mailbox_check_now(alpha.tenant, imap_server)
    mail = InboundMail.objects.get(tenant_schema="alpha")
    release = reverse("settings:mailbox-release", args=[mail.pk])
    tenders_before = Tender.objects.count()

    # Another tenant's admin cannot release (or even see) alpha's mail; members cannot release at all.
    assert beta_admin_client.post(release).status_code == 404
    assert "Sammler West" not in beta_admin_client.get(reverse("settings:mailbox")).content.decode()
    mail.refresh_from_db()
    assert mail.status == "quarantined"

    response = alpha_admin_client.post(release)
    assert response.status_code == 302
    mail.refresh_from_db()
    assert (mail.status, mail.released_by) == ("released", alpha.admin_email)
    html = alpha_admin_client.get(reverse("settings:mailbox")).content.decode()
    assert 'href="https://angebote-abgeben.example/ausschreibung/9988776655"' in html

    # Released for alpha only: the shared tables and every other tenant are untouched.
    assert Tender.objects.count() == tenders_before
    assert not TenderSource.objects.filter(source_notice_id__contains="9988776655").exists()
    # Released, it points like a verified mail - at nothing here: its notice link is on a host no portal
    # Source reads (the DTVP link beside it is no link of this notice's page).
    assert not PortalPageRequest.objects.exists()
    assert _beta_matching(beta) == (0, 0)
    assert alpha_admin_client.post(release).status_code == 302  # twice is harmless


def test_members_cannot_release(alpha, imap_server, alpha_client):
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    imap_server.append(mailbox, FAKE_DTAD)
    mailbox_check_now(alpha.tenant, imap_server)
    mail = InboundMail.objects.get(tenant_schema="alpha")
    assert alpha_client.post(reverse("settings:mailbox-release", args=[mail.pk])).status_code == 403
    mail.refresh_from_db()
    assert mail.status == "quarantined"
