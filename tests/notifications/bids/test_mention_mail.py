"""An @mention reaches the mentioned person once, through the tenant's own SMTP server (real worker, aiosmtpd)."""

from __future__ import annotations

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.deliveries import deliveries_send_due
from notifications.bids import services
from notifications.models import Delivery, DeliveryKind, DeliveryStatus
from tests.notifications.alerts.helpers import ingest, notice, settle, smtp_to, user, wait_for

pytestmark = pytest.mark.usefixtures("celery_worker")


def test_a_mention_is_mailed_once_through_the_tenants_route(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    delta = ingest(notice(title="Sanierung Turnhalle", submission_deadline=timezone.now() + timezone.timedelta(days=8)))
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        card = services.bid_card_ensure(tender_id=delta.created[0])
        comment = services.card_comment_add(
            card_id=card.pk, author=user(alpha.admin_email), text="@member Referenzen da? @member"
        )
    wait_for(lambda: len(smtp_server.messages) == 1, what="the mention mail")
    settle(alpha.schema_name)

    with schema_context(alpha.schema_name):
        # The same comment told again (a retry, a second sender run) finds its row: nothing more leaves.
        services._mention_mail(
            comment=comment,
            card=card,
            tender_title="Sanierung Turnhalle",
            recipient=user(alpha.member_email),
            author=user(alpha.admin_email),
            base_url="https://alpha.localhost",
        )
        assert deliveries_send_due().sent == 0
        delivery = Delivery.objects.get(kind=DeliveryKind.MENTION)
        assert delivery.status == DeliveryStatus.SENT
    settle(alpha.schema_name)
    assert len(smtp_server.messages) == 1
    message = smtp_server.messages[0]
    assert message["To"] == alpha.member_email and message["From"] == "radar@alpha.example"
    assert "Sanierung Turnhalle" in message["Subject"]
    body = message.get_body(("plain",)).get_content()
    assert "Referenzen da?" in body and f"/angebote/karte/{card.pk}/" in body
