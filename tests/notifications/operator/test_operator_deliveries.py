"""The operator console lists open deliveries of every tenant, read-only."""

from __future__ import annotations

import pytest

from notifications.operator.selectors import deliveries_across_tenants, delivery_counts_across_tenants
from tests.notifications.outbox_rows import delivery_in, webhook_event_in

pytestmark = pytest.mark.django_db

PAGE = "/admin/zustellungen/"


@pytest.fixture
def operator_client(public_client):
    from tests.fixtures.tenants import operator_sign_in

    return operator_sign_in(public_client)


def test_open_rows_of_every_tenant_with_state_tenant_age_and_last_error(alpha, beta, operator_client):
    delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email, last_error="Versand unterbrochen")
    delivery_in(alpha.schema_name, status="sent", email=alpha.member_email)
    delivery_in(beta.schema_name, status="failed", email=beta.member_email, last_error="550 Postfach voll")
    webhook_event_in(beta.schema_name, status="uncertain", email=beta.admin_email, last_error="abgebrochen")

    rows = deliveries_across_tenants()
    assert sorted((r.tenant_schema, r.channel, r.status) for r in rows) == [
        ("alpha", "mail", "uncertain"),
        ("beta", "mail", "failed"),
        ("beta", "webhook", "uncertain"),
    ]
    assert delivery_counts_across_tenants() == {"alpha": {"uncertain": 1}, "beta": {"failed": 1, "uncertain": 1}}

    page = operator_client.get(PAGE).content.decode()
    assert page.count('data-status="') == 3
    for text in ("Alpha Bau GmbH", "Beta IT AG", "Versand unterbrochen", "550 Postfach voll", "unklar – bitte prüfen"):
        assert text in page
    assert "3\xa0Tage" in page or "3 Tage" in page  # the age
    counts = page.split('data-testid="operator-delivery-counts"')[1].split("</table>")[0]
    assert "<td>Alpha Bau GmbH " in counts and "<td>Beta IT AG " in counts  # companies, not schema names
    listing = page.split('data-testid="operator-deliveries"')[1]
    assert "<form" not in listing  # read-only
    assert "E-Mail · Sofortmeldung" in listing and "· instant" not in listing  # the kind in German
    assert "style=" not in page.split('id="content"')[1]  # the Content-Security-Policy drops style attributes

    failed_only = operator_client.get(PAGE, {"status": "failed"}).content.decode()
    assert failed_only.count('data-status="') == 1 and "550 Postfach voll" in failed_only
    assert '<a href="?status=failed" class="selected-filter" aria-current="page">' in failed_only


def test_the_admin_index_links_to_it(operator_client):
    assert PAGE in operator_client.get("/admin/").content.decode()


def test_only_operators_see_it(alpha, public_client):
    response = public_client.get(PAGE)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_page_reads_the_tenant_table_once(alpha, beta, operator_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    delivery_in(beta.schema_name, status="failed", email=beta.member_email, last_error="550 Postfach voll")
    with CaptureQueriesContext(connection) as queries:
        assert operator_client.get(PAGE).status_code == 200
    tenant_reads = [
        q["sql"] for q in queries if 'FROM "accounts_tenant"' in q["sql"] and "accounts_domain" not in q["sql"]
    ]
    assert len(tenant_reads) == 1, tenant_reads
