"""The operator's correction of a wrong merge: one source (with its versions) becomes a tender of its own."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from kernel.errors import ApplicationError
from tenders.merging import compile_tender, record_from_json
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services.ingest import lock_ingest
from tenders.services.ingest_reads import records_of_tenders
from tenders.services.rows import state_row


def tender_split_source(*, tender_source_id: int, now: datetime | None = None) -> Tender:
    """Move one wrongly merged source (with all its versions) into a tender of its own.

    The moved source keeps its (source, notice id), so later versions of it
    follow it to the new tender instead of merging back.
    """
    now = now or timezone.now()
    with transaction.atomic():
        lock_ingest()
        moved = TenderSource.objects.select_for_update().get(pk=tender_source_id)
        old_tender_id = moved.tender_id
        if not TenderSource.objects.filter(tender_id=old_tender_id).exclude(pk=moved.pk).exists():
            raise ApplicationError(
                "Diese Quelle ist die einzige der Ausschreibung; es gibt nichts abzutrennen.", code="only_source"
            )
        records = [record_from_json(r) for r in moved.versions.values_list("record", flat=True)]
        state = compile_tender(records, now=now)
        new_tender = Tender.objects.create(**state_row(state=state), first_seen_at=moved.first_seen_at, changed_at=now)
        moved.versions.update(tender=new_tender)
        TenderSource.objects.filter(pk=moved.pk).update(tender=new_tender, merge_rule=MergeRule.SPLIT)
        remaining = records_of_tenders(tender_ids=[old_tender_id])[old_tender_id]
        old_state = compile_tender(remaining, now=now)
        Tender.objects.filter(pk=old_tender_id).update(**state_row(state=old_state), changed_at=now)
    return new_tender
