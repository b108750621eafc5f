import pytest
from django.utils import timezone

from sources.models import InboundMail
from tests.fixtures.tenants import operator_sign_in


@pytest.mark.django_db
def test_operator_sees_unparsed_alert_mails_escaped(public_client):
    mail = InboundMail.objects.create(
        tenant_schema="alpha",
        message_id="<x1@portal.example>",
        subject="Neue Ausschreibungen <script>alert(1)</script>",
        status="unparsed",
        reason="kein bekanntes Portal-Format",
        processed_at=timezone.now(),
        raw=b"Subject: test\r\n\r\n<script>alert(2)</script>",
    )
    operator_sign_in(public_client)
    listing = public_client.get("/admin/sources/inboundmail/?status__exact=unparsed")
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "kein bekanntes Portal-Format" in body and "<script>alert(1)" not in body
    detail = public_client.get(f"/admin/sources/inboundmail/{mail.pk}/change/").content.decode()
    assert "&lt;script&gt;alert(2)" in detail and "<script>alert(2)" not in detail


@pytest.mark.django_db
def test_operator_sees_portal_page_requests_and_why_one_could_not_be_read(public_client):
    from sources.models import PortalPageRequest, Source

    source = Source.objects.filter(adapter="netserver").first()
    PortalPageRequest.objects.create(
        source=source,
        url="https://www.tender24.de/NetServer/PublicationControllerServlet?function=Detail&TOID=x",
        portal_reference="netserver:54321-Tender-1",
        status="blocked",
        reason="login wall <b>",
        requested_at=timezone.now(),
    )
    operator_sign_in(public_client)
    listing = public_client.get("/admin/sources/portalpagerequest/?status__exact=blocked")
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "netserver:54321-Tender-1" in body and "login wall &lt;b&gt;" in body
    assert public_client.get("/admin/sources/portalpagerequest/add/").status_code == 403
