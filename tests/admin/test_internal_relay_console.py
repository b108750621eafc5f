"""The console's list of internal mail servers: operators add, edit and delete; every change is on record, read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from accounts.models import InternalRelay, InternalRelayChange

LIST = "/admin/accounts/internalrelay/"
RECORD = "/admin/accounts/internalrelaychange/"


def test_add_edit_delete_are_recorded_with_the_operators_name(operator_client):
    response = operator_client.post(
        f"{LIST}add/", {"target": "Relay.Intern.Example", "protocol": "smtp", "port": "25", "note": "Relay im RZ"}
    )
    assert response.status_code == 302
    relay = InternalRelay.objects.get()
    assert (relay.target, relay.protocol, relay.port) == ("relay.intern.example", "smtp", 25)

    response = operator_client.post(
        f"{LIST}{relay.pk}/change/", {"target": "10.20.0.0/16", "protocol": "both", "port": "", "note": "Relay im RZ"}
    )
    assert response.status_code == 302
    response = operator_client.post(f"{LIST}{relay.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not InternalRelay.objects.exists()

    changes = list(InternalRelayChange.objects.order_by("pk"))
    assert [(c.action, c.operator, c.relay_id) for c in changes] == [
        ("added", "operator@example.org", relay.pk),
        ("changed", "operator@example.org", relay.pk),
        ("deleted", "operator@example.org", relay.pk),
    ]
    assert changes[1].before["target"] == "relay.intern.example" and changes[1].after["target"] == "10.20.0.0/16"

    page = operator_client.get(RECORD).content.decode()
    assert "operator@example.org" in page
    assert "Host oder Netz: relay.intern.example → 10.20.0.0/16" in page
    assert "Port: 25 → —" in page
    assert "Protokoll: SMTP (Versand) → SMTP und IMAP" in page


@pytest.mark.parametrize(
    ("entry", "shown"),
    [
        ({"target": "10.0.0.1/8", "port": ""}, "Netz (10.20.0.0/16)"),
        ({"target": "relay.intern.example", "port": "70000"}, "Ports liegen zwischen 1 und 65535."),
    ],
)
def test_a_bad_entry_is_shown_as_a_form_error_and_not_recorded(operator_client, entry, shown):
    response = operator_client.post(f"{LIST}add/", {"protocol": "smtp", "note": "", **entry})
    assert response.status_code == 200
    assert shown in response.content.decode()
    assert not InternalRelay.objects.exists() and not InternalRelayChange.objects.exists()


def test_the_record_cannot_be_written_from_the_console(operator_client):
    operator_client.post(f"{LIST}add/", {"target": "10.0.0.0/8", "protocol": "imap", "port": "", "note": ""})
    change = InternalRelayChange.objects.get()
    assert operator_client.get(f"{RECORD}add/").status_code == 403
    assert operator_client.post(f"{RECORD}{change.pk}/change/", {"operator": "someone else"}).status_code == 403
    assert operator_client.post(f"{RECORD}{change.pk}/delete/", {"post": "yes"}).status_code == 403
    change.refresh_from_db()
    assert change.operator == "operator@example.org"
    page = operator_client.get(f"{RECORD}{change.pk}/change/").content.decode()  # viewable, not editable
    assert "10.0.0.0/8" in page and 'name="operator"' not in page


def test_a_tenant_has_no_way_to_the_list(alpha, alpha_admin_client):
    for path in (LIST, f"{LIST}add/", RECORD):
        assert alpha_admin_client.get(path).status_code == 404
    response = alpha_admin_client.post(f"{LIST}add/", {"target": "10.0.0.0/8", "protocol": "both", "port": ""})
    assert response.status_code == 404
    # A tenant's own user is no operator on the public host either: no session there, no sign-in with it.
    public = Client(HTTP_HOST="localhost")
    assert public.get(LIST).status_code == 302
    connection.set_schema_to_public()
    assert not get_user_model().objects.filter(username=alpha.admin_email).exists()
    assert not InternalRelay.objects.exists()
