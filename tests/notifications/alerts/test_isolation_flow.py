"""End to end: a poisoned saved search through the real worker and SMTP server; the others still hear of tenders."""

from __future__ import annotations

import pytest
from django_tenants.utils import schema_context

from notifications.models import Delivery, DeliveryStatus, SavedSearch
from tests.notifications.alerts.helpers import ingest, notice, saved_search, settle, smtp_to, user, wait_for

pytestmark = pytest.mark.usefixtures("celery_worker")


def test_a_poisoned_profile_leaves_every_other_profile_matched_and_notified(committed_tenants, smtp_server):
    alpha, beta = committed_tenants
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        member, admin = user(alpha.member_email), user(alpha.admin_email)
        poisoned = saved_search(member, name="vergiftet", q="Dach", instant_alert=True)
        # What the portal and the API used to accept, stored directly: this made the tenant's one
        # matching statement fail with "numeric field overflow" on every batch.
        SavedSearch.objects.filter(pk=poisoned.pk).update(filters={"value_min": "1e131072", "q": "Dach"})
        saved_search(member, name="Dach", q="Dach", instant_alert=True)
        saved_search(admin, name="Dach Admin", q="Dach", instant_alert=True)
    with schema_context(beta.schema_name):
        smtp_to(smtp_server)
        saved_search(user(beta.member_email), name="Dach Beta", q="Dach", instant_alert=True)

    ingest(notice(title="Dach Feuerwehrhaus"), hand_off=True)
    wait_for(lambda: len(smtp_server.messages) == 3, what="three instant mails")
    settle(alpha.schema_name, beta.schema_name)

    assert sorted(m["Subject"] for m in smtp_server.messages) == [
        "[Dach Admin] Neue Ausschreibung: Dach Feuerwehrhaus",
        "[Dach Beta] Neue Ausschreibung: Dach Feuerwehrhaus",
        "[Dach] Neue Ausschreibung: Dach Feuerwehrhaus",
    ]
    with schema_context(alpha.schema_name):
        assert set(Delivery.objects.values_list("status", flat=True)) == {DeliveryStatus.SENT}
        poisoned.refresh_from_db()
        assert poisoned.failing_since is not None
        assert "Betrag bis höchstens" in poisoned.failing_reason
