import json
from datetime import datetime

import pytest
from django.core.management import call_command

from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender


@pytest.mark.django_db
def test_export_tenders_writes_the_public_representation(capsys):
    call_command("load_demo_notices")
    capsys.readouterr()
    call_command("export_tenders", "--format", "jsonl")
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == Tender.objects.count() == 11
    required = {
        "id",
        "ocid",
        "title",
        "buyer_name",
        "cpv_codes",
        "deadline",
        "estimated_value",
        "currency",
        "procedure_type",
        "status",
        "nuts",
        "bundesland",
        "sources",
        "versions",
    }
    assert all(required <= row.keys() for row in rows)
    mpi = next(row for row in rows if row["deadline"] and row["deadline"].startswith("2026-10-20"))
    assert mpi["deadline"] == "2026-10-20T12:00:00+02:00"
    assert datetime.fromisoformat(mpi["deadline"]) == datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN)
    assert mpi["sources"][0].keys() >= {"portal", "notice_id", "url", "merge_rule"}
    assert mpi["versions"][0].keys() >= {"source", "notice_id", "version", "published_at"}
    statuses = {row["status"] for row in rows}
    assert {"awarded", "cancelled"} <= statuses


@pytest.mark.django_db
def test_export_since_filters_and_rejects_bad_dates(capsys):
    from django.core.management.base import CommandError

    call_command("load_demo_notices")
    capsys.readouterr()
    call_command("export_tenders", "--since", "2999-01-01")
    assert capsys.readouterr().out == ""
    with pytest.raises(CommandError):
        call_command("export_tenders", "--since", "gestern")


@pytest.mark.django_db
def test_demo_notices_load_idempotently(capsys):
    call_command("load_demo_notices")
    first = Tender.objects.count()
    call_command("load_demo_notices")
    assert Tender.objects.count() == first == 11
    assert "0 new, 6 unchanged" in capsys.readouterr().out
