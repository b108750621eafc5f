"""One-click triage from a mail: the links a match's mail carries, their confirmation page (GET changes nothing),
the move through the board's service (POST), sign-in and back, and every way a token is refused."""

from __future__ import annotations

import re
import time
from urllib.parse import unquote, urlsplit

import pytest
from django.core import signing
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.services import delta_process
from notifications.bid_links import DISMISS, REVIEW, SALT, triage_token
from notifications.models import BidCard, BidDecision, CardEvent, Delivery, DeliveryKind
from tests.fixtures.tenants import TENANT_PASSWORD
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def _matched_by_mail(tenant, *, title: str = "Fassadensanierung Rathaus"):
    """A new tender matched by the member's instant-alert profile; returns (tender id, the mail's plain text)."""
    delta = ingest(notice(title=title))
    connection.set_tenant(tenant.tenant)
    saved_search(user(tenant.member_email), name="Fassaden", q="Fassadensanierung", instant_alert=True)
    delta_process(created=delta.created, changed={}, now=timezone.now())
    [mail] = Delivery.objects.filter(kind=DeliveryKind.INSTANT)
    connection.set_schema_to_public()
    return delta.created[0], mail.text_body


def _link(text: str, label: str) -> str:
    return urlsplit(re.search(rf"^  {label}: (\S+)$", text, re.M).group(1)).path


def _card(tenant, tender_id: int) -> BidCard:
    with schema_context(tenant.schema_name):
        return BidCard.objects.select_related("stage", "decision_reason").get(tender_id=tender_id)


def _events(tenant) -> int:
    with schema_context(tenant.schema_name):
        return CardEvent.objects.count()


def _token(tenant, tender_id: int, action: str = REVIEW, *, email: str | None = None) -> str:
    with schema_context(tenant.schema_name):
        person = user(email or tenant.member_email)
    return triage_token(user_id=person.pk, tender_id=tender_id, action=action, schema_name=tenant.schema_name)


def test_the_mail_row_carries_the_facts_and_its_review_link_moves_the_card_only_after_the_button(alpha, alpha_client):
    tender_id, text = _matched_by_mail(alpha)
    row = text[text.index("* Fassadensanierung Rathaus") :]
    assert re.search(r"Frist: \d\d\.\d\d\.\d{4}, \d\d:\d\d Uhr \((noch \d+ Tage|morgen|heute)\)", row)
    assert "Vergabestelle: " in row and "Ort: " in row and "Status: laufend" in row
    review, dismiss = _link(text, "prüfen"), _link(text, "nicht relevant")
    assert review.startswith("/angebote/mail/") and dismiss.startswith("/angebote/mail/") and review != dismiss
    assert _card(alpha, tender_id).stage.name == "neu"  # the match landed on the board
    events = _events(alpha)

    page = alpha_client.get(review)
    assert page.status_code == 200
    assert (
        'data-testid="mail-triage-title"' in page.content.decode() and "Ausschreibung prüfen?" in page.content.decode()
    )
    assert _card(alpha, tender_id).stage.name == "neu" and _events(alpha) == events  # a GET changes nothing

    answer = alpha_client.post(review)
    card = _card(alpha, tender_id)
    assert answer.status_code == 302 and answer["Location"] == f"/angebote/karte/{card.pk}/"
    assert card.stage.name == "prüfen"
    with schema_context(alpha.schema_name):
        event = CardEvent.objects.filter(card=card).order_by("-id").first()
        assert (event.kind, event.actor.email, event.data["to"]) == ("stage", alpha.member_email, "prüfen")


def test_not_relevant_from_the_mail_decides_no_bid_with_that_reason(alpha, alpha_client):
    tender_id, text = _matched_by_mail(alpha)
    link = _link(text, "nicht relevant")
    assert "Als „nicht relevant“ ablegen?" in alpha_client.get(link).content.decode()
    assert alpha_client.post(link).status_code == 302
    card = _card(alpha, tender_id)
    assert (card.stage.name, card.decision, card.decision_reason.label) == (
        "nicht angeboten",
        BidDecision.NO_BID,
        "nicht relevant",
    )


def test_signed_out_the_link_asks_to_sign_in_and_comes_back(alpha):
    tender_id, text = _matched_by_mail(alpha)
    link = _link(text, "prüfen")
    client = Client(HTTP_HOST=alpha.host)
    answer = client.get(link)
    assert answer.status_code == 302 and unquote(answer["Location"]) == f"/konto/anmelden/?next={link}"
    signed_in = client.post(
        "/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD, "next": link}
    )
    assert signed_in.status_code == 302 and signed_in["Location"] == link
    assert client.get(link).status_code == 200
    assert client.post(link).status_code == 302
    assert _card(alpha, tender_id).stage.name == "prüfen"


def test_an_altered_token_or_another_tenants_is_not_found_and_changes_nothing(alpha, beta, alpha_client):
    tender_id, _text = _matched_by_mail(alpha)
    good = _token(alpha, tender_id)
    payload, stamp, signature = good.rsplit(":", 2)
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    events = _events(alpha)
    for token in (
        f"{payload}:{stamp}:{flipped}",  # signature altered
        _token(alpha, tender_id, DISMISS)[: len(payload)] + good[len(payload) :],  # another action, same signature
        "kaputt",
        _token(beta, tender_id),  # beta's own link (same ids can exist there) opened on alpha's host
    ):
        assert alpha_client.get(f"/angebote/mail/{token}/").status_code == 404
        assert alpha_client.post(f"/angebote/mail/{token}/").status_code == 404
    assert _card(alpha, tender_id).stage.name == "neu" and _events(alpha) == events


def test_an_expired_token_says_so_and_another_persons_is_refused(alpha, alpha_client):
    tender_id, _text = _matched_by_mail(alpha)
    with schema_context(alpha.schema_name):
        member_id = user(alpha.member_email).pk

    class FifteenDaysAgo(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - 15 * 86400)

    old = FifteenDaysAgo(salt=SALT).sign_object([member_id, tender_id, REVIEW, alpha.schema_name], compress=True)
    for method in (alpha_client.get, alpha_client.post):
        expired = method(f"/angebote/mail/{old}/")
        assert expired.status_code == 410 and "Link abgelaufen" in expired.content.decode()
    admins = _token(alpha, tender_id, email=alpha.admin_email)
    refused = alpha_client.post(f"/angebote/mail/{admins}/")
    assert refused.status_code == 403 and "Link einer anderen Person" in refused.content.decode()
    assert _card(alpha, tender_id).stage.name == "neu"


def test_a_link_to_a_tender_that_is_gone_is_not_found(alpha, alpha_client):
    token = _token(alpha, 987_654_321)
    assert alpha_client.get(f"/angebote/mail/{token}/").status_code == 404
