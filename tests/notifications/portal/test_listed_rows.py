"""A relevance page's rows (``notifications.portal.listed_rows``): one statement compiled once per process, the
rows of the ids in their order with the same columns as the ORM query it stands for, the triage of the signed-in
user and of the request's tenant only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Triage
from notifications.portal.listed_rows import _compiled, listed_rows
from notifications.portal.selectors import RESULT_FIELDS, SNIPPET_SOURCE_CHARS, result_rows
from notifications.portal.services import triage_set
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory
from tests.notifications.portal.conftest import user_of


@pytest.fixture
def tender_ids(db) -> list[int]:
    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"listed-{n}",
            title=f"Fensterreinigung Los {n}",
            description="Reinigung " * (n * 300),  # from nothing to well past the snippet's source length
            published_at=now - timedelta(hours=n),
            submission_deadline=now + timedelta(days=n + 1),
        )
        for n in range(40)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    return list(Tender.objects.order_by("id").values_list("id", flat=True))


def _as_the_orm_reads_them(user, ids):
    mine = Triage.objects.filter(user=user, tender=OuterRef("pk")).values("status")[:1]
    rows = result_rows(Tender.objects.filter(pk__in=ids).annotate(my_triage=Subquery(mine)).only(*RESULT_FIELDS))
    by_id = {row.pk: row for row in rows}
    return [by_id[pk] for pk in ids if pk in by_id]


def _shown(rows):
    return [
        (row.pk, *(getattr(row, name) for name in RESULT_FIELDS), row.description_head, row.my_triage) for row in rows
    ]


def test_the_rows_come_in_the_ids_order_as_the_orm_query_reads_them(alpha, tender_ids):
    member = user_of(alpha, alpha.member_email)
    ids = [tender_ids[n] for n in (7, 2, 30, 0, 19)]
    with schema_context(alpha.schema_name):
        triage_set(user=member, tender_id=ids[2], status="interessant")
        rows = listed_rows(user=member, ids=ids)
        assert [row.pk for row in rows] == ids
        assert _shown(rows) == _shown(_as_the_orm_reads_them(member, ids))
    assert rows[2].my_triage == "interessant" and rows[0].my_triage is None
    assert len(rows[1].description_head) == SNIPPET_SOURCE_CHARS  # the head of a long description only
    assert rows[3].description_head == ""


def test_only_the_signed_in_users_triage_is_read(alpha, tender_ids):
    admin, member = user_of(alpha, alpha.admin_email), user_of(alpha, alpha.member_email)
    with schema_context(alpha.schema_name):
        triage_set(user=admin, tender_id=tender_ids[0], status="abgelehnt")
        assert listed_rows(user=member, ids=tender_ids[:1])[0].my_triage is None
        assert listed_rows(user=admin, ids=tender_ids[:1])[0].my_triage == "abgelehnt"


def test_one_statement_compiled_once_for_every_page_size_up_to_32(alpha, tender_ids, django_assert_num_queries):
    member = user_of(alpha, alpha.member_email)
    with schema_context(alpha.schema_name):
        listed_rows(user=member, ids=tender_ids[:3])
        compiled = _compiled.cache_info().currsize
        for size in (1, 25, 26, 32):
            with django_assert_num_queries(1):
                assert [row.pk for row in listed_rows(user=member, ids=tender_ids[:size])] == tender_ids[:size]
        assert _compiled.cache_info().currsize == compiled
        assert [row.pk for row in listed_rows(user=member, ids=tender_ids[::-1])] == tender_ids[::-1]  # 40 ids
        assert listed_rows(user=member, ids=[]) == []


def test_an_id_gone_since_it_was_read_is_left_out(alpha, tender_ids):
    member = user_of(alpha, alpha.member_email)
    gone = max(tender_ids) + 1000
    with schema_context(alpha.schema_name):
        rows = listed_rows(user=member, ids=[tender_ids[0], gone, tender_ids[2]])
    assert [row.pk for row in rows] == [tender_ids[0], tender_ids[2]]


def test_the_statement_read_first_in_one_tenant_reads_the_other_tenants_own_triage(alpha, beta, tender_ids):
    # Compiled once per process, it names no schema: each tenant's search path finds that tenant's triage.
    alpha_member, beta_member = user_of(alpha, alpha.member_email), user_of(beta, beta.member_email)
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=tender_ids[0], status="interessant")
        assert listed_rows(user=alpha_member, ids=tender_ids[:1])[0].my_triage == "interessant"
    with schema_context(beta.schema_name):
        assert listed_rows(user=beta_member, ids=tender_ids[:1])[0].my_triage is None
        triage_set(user=beta_member, tender_id=tender_ids[0], status="abgelehnt")
        assert listed_rows(user=beta_member, ids=tender_ids[:1])[0].my_triage == "abgelehnt"
    with schema_context(alpha.schema_name):
        assert listed_rows(user=alpha_member, ids=tender_ids[:1])[0].my_triage == "interessant"
    connection.set_schema_to_public()
