"""A small corpus for search tests: real fixture notices plus factory notices worded for German search rules.

Dates are relative to ``now`` so the same corpus serves tests with a fixed
clock (selectors) and with the real clock (views, browser).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from kernel.records import NoticeRecord
from tenders.models import TenderSource
from tenders.services import notices_ingest
from tests.factories.records import (
    MPI_EFORMS,
    OCDS_3LOTS,
    OCDS_AUFHEBUNG,
    OCDS_AWARD,
    OCDS_NO_CPV,
    NoticeRecordFactory,
    eforms_record,
    ocds_records,
)


def _factory(key: str, now: datetime, *, deadline_days: int | None, published_days_ago: int, **fields) -> NoticeRecord:
    return NoticeRecordFactory(
        source_notice_id=f"corpus-{key}",
        published_at=now - timedelta(days=published_days_ago),
        submission_deadline=(now + timedelta(days=deadline_days)) if deadline_days is not None else None,
        **fields,
    )


def corpus_records(now: datetime) -> dict[str, NoticeRecord]:
    """Named records; keys are what tests talk about."""
    return {
        # Real notices (absolute dates from the fixtures).
        "mpi": eforms_record(MPI_EFORMS),  # Bayern, 85748 Garching, CPV 38433000, deadline 2026-10-20 12:00
        "hlf": ocds_records(OCDS_3LOTS)[0],  # Schleswig-Holstein, 24792, CPV 34144210, 500 000 EUR
        "digitalcheck": ocds_records(OCDS_AWARD)[0],  # Berlin, award
        "aufhebung": ocds_records(OCDS_AUFHEBUNG)[0],  # Bayern, award notice of a cancelled procedure
        "maeher": ocds_records(OCDS_NO_CPV)[0],  # Landkreis Harz, no CPV
        # Worded for the German search rules.
        "bauarbeit": _factory(
            "bauarbeit",
            now,
            deadline_days=5,
            published_days_ago=3,
            title="Bauarbeit an der Straße Am Anger",
            description="Erneuerung von Gehwegen und Entwässerung.",
            buyer_name="Gemeinde Anger",
            cpv_codes=("45233120",),
            bundesland="Bayern",
            postal_code="80331",
            town="München",
            estimated_value=Decimal("250000"),
        ),
        "muell": _factory(
            "muell",
            now,
            deadline_days=40,
            published_days_ago=2,
            title="Abholung von Müll und Wertstoffen",
            description="Sammlung und Transport von Siedlungsabfällen.",
            buyer_name="Stadt Köln",
            cpv_codes=("90511000",),
            nuts_codes=("DEA23",),
            bundesland="Nordrhein-Westfalen",
            postal_code="50667",
            town="Köln",
            estimated_value=Decimal("1200000"),
            source="dtvp",
        ),
        "winterdienst": _factory(
            "winterdienst",
            now,
            deadline_days=10,
            published_days_ago=6,
            title="Reinigung Strasse und Gehweg – Los 1 Winterdienst",
            description="Räumen und Streuen im Stadtgebiet.",
            buyer_name="Stadt Frankfurt am Main",
            cpv_codes=("90610000",),
            nuts_codes=("DE712",),
            bundesland="Hessen",
            postal_code="60311",
            town="Frankfurt am Main",
            estimated_value=Decimal("80000"),
        ),
        "streugut": _factory(
            "streugut",
            now,
            deadline_days=12,
            published_days_ago=8,
            title="Lieferung von Streugut, Los 1 und Los 2",
            description="Streusalz für den Winterdienst der Gemeinde.",
            buyer_name="Gemeinde Musterdorf",
            cpv_codes=("34927100",),
            nuts_codes=("DE926",),
            bundesland="Niedersachsen",
            postal_code="30159",
            town="Hannover",
            estimated_value=None,
        ),
        "planung": _factory(
            "planung",
            now,
            deadline_days=20,
            published_days_ago=10,
            title="Planung Straßenbau Ortsumgehung",
            description="Objektplanung Verkehrsanlagen.",
            buyer_name="Staatliches Bauamt Nürnberg",
            cpv_codes=("71300000",),
            bundesland="Bayern",
            postal_code="90402",
            town="Nürnberg",
            estimated_value=Decimal("400000"),
        ),
        "ortsdurchfahrt": _factory(
            "ortsdurchfahrt",
            now,
            deadline_days=3,
            published_days_ago=1,
            title="Straßenbau Ortsdurchfahrt B 12",
            description="Vollausbau der Fahrbahn.",
            buyer_name="Staatliches Bauamt Passau",
            cpv_codes=("45233120",),
            bundesland="Bayern",
            postal_code="94032",
            town="Passau",
            estimated_value=Decimal("2000000"),
        ),
    }


def ingest_corpus(now: datetime) -> dict[str, int]:
    """Ingest the corpus (first seen at ``now``); returns tender id by record key."""
    records = corpus_records(now)
    notices_ingest(records=list(records.values()), now=now, use_fingerprint=False)
    ids = dict(
        ((source, notice_id), tender_id)
        for source, notice_id, tender_id in TenderSource.objects.values_list("source", "source_notice_id", "tender_id")
    )
    return {key: ids[(record.source, record.source_notice_id)] for key, record in records.items()}
