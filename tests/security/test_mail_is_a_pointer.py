"""A mail is a pointer, the portal is the source: no alert mail - however well authenticated - writes
shared tender data; what it names is read from the portal itself, what only the mail says stays with
the tenant whose mailbox received it.

The attacks replay through a real Dovecot mailbox and the real mailbox check. The tenant controls
its mailbox and so its "receiving server": here alpha's mailbox settings name the authserv-id the
attack mail carries, which is exactly what a customer pointing its mailbox at its own IMAP server
can do. The portal is a local pytest-httpserver serving the constructed NetServer pages
(tests/data/portals/netserver) under the base_url of the tender24 Source.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from django_tenants.utils import schema_context
from werkzeug import Response

from kernel.network import Fetcher
from kernel.records import NoticeRecord
from notifications.alerts.services import delta_process
from notifications.inbox.quarantine import inbound_mail_release
from notifications.models import Delivery, TenderMatch
from sources.models import FetchRun, InboundMail, PortalPageRequest, Source
from sources.tender_pages import portal_page_request_fetch, portal_page_requests_record, portal_page_requests_sweep
from tenders.models import Tender, TenderDelta, TenderSource, TenderVersion
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.fixtures.mail import as_received, mailbox_check_now, mailbox_configure
from tests.notifications.alerts.helpers import saved_search, user
from tests.sources.adapters.test_netserver import MICADO, NetServerSite

NEW_CX = "CXZZ9QWERT7"  # no tender has it


def _alert(*, sender: str, message_id: str, title: str, buyer: str, deadline: str, link: str) -> bytes:
    return (
        f"From: Vergabeportal <{sender}>\r\n"
        "To: ausschreibungen@alpha-bau.example\r\n"
        'Subject: Neue Veröffentlichungen zu Ihrem Suchprofil "IT"\r\n'
        "Date: Tue, 15 Sep 2026 06:00:12 +0200\r\n"
        f"Message-ID: {message_id}\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        f"1) {title}\r\n"
        f"   Vergabestelle: {buyer}\r\n"
        f"   Angebotsfrist: {deadline}\r\n"
        f"   {link}\r\n"
    ).encode()


def _shared_tables() -> tuple[int, int, int, int]:
    return (
        Tender.objects.count(),
        TenderSource.objects.count(),
        TenderVersion.objects.count(),
        TenderDelta.objects.count(),
    )


def _beta_matching(beta) -> tuple[int, int]:
    """Run beta's real matching over every tender there is (what the hand-off would trigger)."""
    with schema_context(beta.schema_name):
        delta_process(created=list(Tender.objects.values_list("pk", flat=True)), changed={})
        return TenderMatch.objects.count(), Delivery.objects.count()


def _fetch(request_id: int) -> PortalPageRequest:
    portal_page_request_fetch(
        request_id=request_id, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)
    )
    return PortalPageRequest.objects.get(pk=request_id)


@pytest.fixture
def site(httpserver) -> NetServerSite:
    return NetServerSite(httpserver)


@pytest.fixture
def portal(db, site) -> Source:
    """tender24 as the platform reads it: its base_url on the local portal, no politeness wait."""
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.politeness_seconds = 0
    source.save()
    return source


def _portal_link(site: NetServerSite, oid: str) -> str:
    return f"{site.base_url}TenderingProcedureDetails?function=_Details&TenderOID={oid}"


def test_a_forged_pass_from_the_tenants_own_server_writes_no_shared_row_and_alerts_no_other_tenant(
    alpha, beta, imap_server
):
    # Attack (a): alpha points its mailbox at a server it controls, whose authserv-id it configured
    # itself, and drops a mail with a "dkim=pass" for dtvp.de, From noreply@dtvp.de and a dtvp.de link.
    with schema_context(beta.schema_name):
        saved_search(user(beta.member_email), name="Rechenzentrum", q="Rechenzentrum", instant_alert=True)
    mailbox = mailbox_configure(imap_server, alpha.tenant, authserv_id="mx.alpha-owned.example")
    raw = _alert(
        sender="noreply@dtvp.de",
        message_id="<forged-pass-1@dtvp.de>",
        title="Rechenzentrum Betrieb und Wartung",
        buyer="Bundesamt für Beispiele",
        deadline="20.10.2026 12:00",
        link=f"https://www.dtvp.de/Satellite/notice/{NEW_CX}",
    )
    imap_server.append(mailbox, as_received(raw, dkim="dtvp.de", authserv_id="mx.alpha-owned.example"))
    before = _shared_tables()

    outcome = mailbox_check_now(alpha.tenant, imap_server)

    # However well "authenticated", the mail only points: no row of the shared tender tables.
    assert (outcome.error, outcome.parsed, outcome.leads) == ("", 1, 1)
    assert _shared_tables() == before
    assert not Tender.objects.filter(title__contains="Rechenzentrum").exists()
    assert _beta_matching(beta) == (0, 0)
    # What the mail says stays alpha's lead; the page it names is requested from the portal itself.
    mail = InboundMail.objects.get(tenant_schema="alpha")
    assert mail.status == "parsed" and "Rechenzentrum Betrieb" in str(mail.held_notices)
    (request,) = PortalPageRequest.objects.all()
    assert (request.source.key, request.portal_reference, request.status) == ("dtvp", f"cosinex:{NEW_CX}", "pending")
    assert request.url.startswith("https://www.dtvp.de/")


def test_a_mail_naming_a_real_tender_with_a_fake_deadline_changes_nothing_of_that_tender(alpha, imap_server):
    # Attack (b): a real DÖE tender without deadline; the mail names its title and buyer with a deadline.
    real = eforms_record(LEGACY_EFORMS).replace(submission_deadline=None)
    (tender_id,) = notices_ingest(records=[real], use_fingerprint=False).created
    tender_before = Tender.objects.values().get(pk=tender_id)
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    raw = _alert(
        sender="noreply@dtvp.de",
        message_id="<fake-deadline-1@dtvp.de>",
        title=real.title,
        buyer=real.buyer_name,
        deadline="01.10.2026 10:00",
        link=f"https://www.dtvp.de/Satellite/notice/{NEW_CX}",
    )
    imap_server.append(mailbox, as_received(raw, dkim="dtvp.de"))
    before = _shared_tables()

    outcome = mailbox_check_now(alpha.tenant, imap_server)

    assert (outcome.error, outcome.parsed) == ("", 1)
    assert Tender.objects.values().get(pk=tender_id) == tender_before
    assert Tender.objects.get(pk=tender_id).submission_deadline is None
    assert _shared_tables() == before


def test_a_mail_naming_a_portal_tender_gets_its_page_read_from_the_portal_and_ingested_from_the_page(
    alpha, imap_server, portal, site, alpha_admin_client
):
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    raw = _alert(
        sender="noreply@tender24.de",
        message_id="<pointer-1@tender24.de>",
        title="Was die Mail behauptet",
        buyer="Irgendwer",
        deadline="01.01.2030 10:00",
        link=_portal_link(site, MICADO),
    )
    imap_server.append(mailbox, as_received(raw, dkim="tender24.de"))
    before = _shared_tables()

    outcome = mailbox_check_now(alpha.tenant, imap_server)

    assert _shared_tables() == before  # the mail itself wrote nothing
    (request_id,) = outcome.page_requests
    html = alpha_admin_client.get(reverse("settings:mailbox")).content.decode()
    assert "nur aus Ihrer Alert-Mail" in html and 'data-state="requested"' in html

    request = _fetch(request_id)

    assert (request.status, request.reason, request.run.trigger, request.run.scope) == (
        "fetched",
        "",
        "portal_page",
        f"netserver:{MICADO}",
    )
    assert site.requested("detail") == [MICADO]
    source = TenderSource.objects.get(source="tender24", source_notice_id=MICADO)
    tender = source.tender
    # The tender is what the portal's page says, not what the mail claimed.
    assert tender.title != "Was die Mail behauptet" and "Irgendwer" not in tender.buyer_name
    assert tender.submission_deadline is None or tender.submission_deadline.year != 2030
    # The page's ingest hands off to matching like a crawl: the delta names the new tender.
    assert TenderDelta.objects.filter(created_ids__contains=[tender.pk]).exists()
    html = alpha_admin_client.get(reverse("settings:mailbox")).content.decode()
    assert 'data-state="confirmed"' in html
    assert reverse("portal:tender", args=[tender.pk]) in html
    # A redelivered task finds the request done and fetches nothing.
    assert _fetch(request_id).status == "fetched" and site.requested("detail") == [MICADO]


def test_a_page_behind_a_wall_leaves_the_lead_private_with_its_reason(
    alpha, imap_server, portal, site, alpha_admin_client
):
    site.answer("detail", MICADO, lambda request: Response(status=302, headers={"Location": f"{site.base_url}login"}))
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    raw = _alert(
        sender="noreply@tender24.de",
        message_id="<walled-1@tender24.de>",
        title="Hinter der Anmeldung",
        buyer="Stadt Beispiel",
        deadline="01.01.2030 10:00",
        link=_portal_link(site, MICADO),
    )
    imap_server.append(mailbox, as_received(raw, dkim="tender24.de"))
    (request_id,) = mailbox_check_now(alpha.tenant, imap_server).page_requests
    before = _shared_tables()

    request = _fetch(request_id)

    assert request.status == "blocked" and "login" in request.reason
    assert _shared_tables() == before
    html = alpha_admin_client.get(reverse("settings:mailbox")).content.decode()
    assert 'data-state="unavailable"' in html and "Portalseite nicht abrufbar: " in html
    assert "Hinter der Anmeldung" in html  # the lead stays on alpha's page


def test_a_released_mail_only_gets_its_references_fetched(alpha, imap_server, portal, site):
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    raw = _alert(
        sender="noreply@tender24.de",
        message_id="<unsigned-1@tender24.de>",
        title="Was die Mail behauptet",
        buyer="Irgendwer",
        deadline="01.01.2030 10:00",
        link=_portal_link(site, MICADO),
    )
    imap_server.append(mailbox, raw)  # no authentication at all: quarantined
    outcome = mailbox_check_now(alpha.tenant, imap_server)
    assert outcome.quarantined == 1 and outcome.page_requests == ()
    assert not PortalPageRequest.objects.exists()
    mail = InboundMail.objects.get(tenant_schema="alpha")
    before = _shared_tables()

    with schema_context(alpha.schema_name):
        inbound_mail_release(mail_id=mail.pk, released_by=alpha.admin_email)

    assert _shared_tables() == before
    (request,) = PortalPageRequest.objects.all()
    assert request.portal_reference == f"netserver:{MICADO}"
    assert _fetch(request.pk).status == "fetched"
    assert not Tender.objects.filter(title="Was die Mail behauptet").exists()
    assert TenderSource.objects.filter(source="tender24", source_notice_id=MICADO).exists()


def test_a_spoof_that_took_the_genuine_alerts_message_id_first_does_not_suppress_it(alpha, imap_server, portal, site):
    # F8: dedup by Message-ID alone let a spoof delivered first hide the genuine alert for ever.
    mailbox = mailbox_configure(imap_server, alpha.tenant)
    genuine = _alert(
        sender="noreply@tender24.de",
        message_id="<alert-4711@tender24.de>",
        title="Sanierung Sporthalle",
        buyer="Stadt Beispiel",
        deadline="01.01.2030 10:00",
        link=_portal_link(site, MICADO),
    )
    spoof = genuine.replace(b"Sanierung Sporthalle", b"Nichts Wichtiges")
    imap_server.append(mailbox, spoof)  # unauthenticated: quarantined
    first = mailbox_check_now(alpha.tenant, imap_server)
    assert (first.quarantined, first.parsed) == (1, 0)

    imap_server.append(mailbox, as_received(genuine, dkim="tender24.de"))
    second = mailbox_check_now(alpha.tenant, imap_server)

    assert (second.parsed, second.quarantined, second.reused_message_ids) == (1, 0, 1)
    rows = InboundMail.objects.filter(tenant_schema="alpha").order_by("pk")
    assert [(row.status, row.message_id_reused) for row in rows] == [("quarantined", True), ("parsed", True)]
    assert len(second.page_requests) == 1
    # A third check reads both again and records neither again.
    third = mailbox_check_now(alpha.tenant, imap_server)
    assert (third.new_mails, InboundMail.objects.filter(tenant_schema="alpha").count()) == (0, 2)


def test_requests_left_pending_are_swept_by_a_beat_schedule(portal, django_capture_on_commit_callbacks):
    call_command("setup_schedules")
    sweep = PeriodicTask.objects.get(task="sources.sweep_portal_page_requests")
    assert sweep.enabled and sweep.queue == "ingest"
    now = timezone.now()
    waited = PortalPageRequest.objects.create(
        source=portal, url="u1", portal_reference=f"netserver:{MICADO}", requested_at=now - timedelta(minutes=10)
    )
    PortalPageRequest.objects.create(source=portal, url="u2", portal_reference="netserver:x", requested_at=now)
    with django_capture_on_commit_callbacks() as callbacks:
        assert portal_page_requests_sweep(now=now) == 1  # the fresh one still has its own task on the way
    assert len(callbacks) == 1 and waited.status == "pending"


def test_a_source_that_is_crawling_keeps_the_request_pending_for_the_sweep(portal, site):
    FetchRun.objects.create(source=portal, started_at=timezone.now(), trigger="schedule")
    request = PortalPageRequest.objects.create(
        source=portal,
        url=f"{site.base_url}PublicationControllerServlet?function=Detail&TOID={MICADO}&Category=InvitationToTender",
        portal_reference=f"netserver:{MICADO}",
        requested_at=timezone.now(),
    )
    assert _fetch(request.pk).status == "pending"
    assert site.requested("detail") == [] and not FetchRun.objects.filter(trigger="portal_page").exists()


COSINEX_PROJECT = Path(__file__).resolve().parents[1] / "data" / "portals" / "cosinex" / "project_CXS7YY6YTM1SY43C.html"


@pytest.mark.parametrize(("named", "status"), [("CXS7YY6YTM1SY43C", "fetched"), ("CXAAAAAAAAAA", "failed")])
def test_a_cosinex_reference_is_read_from_the_project_page_and_a_page_of_another_project_is_refused(
    db, httpserver, named, status
):
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    # Whatever project the URL names, this portal serves the one page: only the page that names the
    # referenced project may become its tender.
    httpserver.expect_request(re.compile(r"^/Satellite/notice/CX[0-9A-Z]+$")).respond_with_data(
        COSINEX_PROJECT.read_bytes(), content_type="text/html; charset=utf-8"
    )
    base_url = httpserver.url_for("/Satellite")
    dtvp = Source.objects.get(key="dtvp")
    dtvp.settings = {"base_url": base_url, "allowed_hosts": ["localhost", "127.0.0.1"]}
    dtvp.politeness_seconds = 0
    dtvp.save()
    lead = NoticeRecord(
        source="dtvp",
        source_notice_id=named,
        portal_references=(f"cosinex:{named}",),
        title="Was die Mail behauptet",
        url=f"{base_url}/notice/{named}?utm=alert",
    )

    (request,) = portal_page_requests_record(records=[lead], now=timezone.now())
    assert request.url == f"{base_url}/notice/{named}"  # built on the Source, the mail's query dropped

    done = _fetch(request.pk)

    assert done.status == status
    stored = TenderSource.objects.filter(source="dtvp", source_notice_id="CXS7YY6YTM1SY43C").first()
    if status == "fetched":
        assert stored is not None and stored.tender.title != "Was die Mail behauptet"
    else:
        assert stored is None and "not the project page of CXAAAAAAAAAA" in done.reason
        assert not Tender.objects.exists()
