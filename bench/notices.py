"""Synthetic notices shaped like the real DÖE/TED fixtures (same field mix, German text, CPV, NUTS)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from decimal import Decimal

from kernel.records import Lot, NoticeKind, NoticeRecord
from kernel.vocabulary.regions import BUNDESLAENDER
from kernel.vocabulary.time_zone import BERLIN

_WORKS = [
    ("Dacharbeiten", "45261210"),
    ("Fensterbauarbeiten", "45421132"),
    ("Straßenbauarbeiten", "45233140"),
    ("Reinigung von Büroräumen", "90919200"),
    ("Lieferung von Feuerwehrfahrzeugen", "34144210"),
    ("IT-Beratung und Softwareentwicklung", "72000000"),
    ("Winterdienst", "90620000"),
    ("Lieferung von Laborgeräten", "38000000"),
    ("Catering für Schulen", "55524000"),
    ("Planungsleistungen Technische Gebäudeausrüstung", "71321000"),
    ("Elektroinstallationsarbeiten", "45310000"),
    ("Grünpflege", "77310000"),
]
_PLACES = ["Grundschule", "Rathaus", "Kita", "Gymnasium", "Feuerwache", "Klärwerk", "Bürgerhaus", "Sporthalle"]
_BUYERS = ["Stadt", "Landkreis", "Gemeinde", "Amt", "Zweckverband", "Universität"]
_TOWNS = ["Musterstadt", "Neustadt", "Bergheim", "Waldkirch", "Seeburg", "Hafenstedt", "Lindau", "Rosenfeld"]
_PROCEDURES = ["open", "restricted", "negotiated_with_call", "public_tender", "limited_tender"]


def synthetic_notices(n: int, *, seed: int = 42, source: str = "doe") -> list[NoticeRecord]:
    rng = random.Random(seed)
    nuts_prefixes = list(BUNDESLAENDER)
    base = datetime(2026, 9, 1, 8, 0, tzinfo=BERLIN)
    records = []
    for i in range(n):
        work, cpv = rng.choice(_WORKS)
        town = rng.choice(_TOWNS)
        nuts = rng.choice(nuts_prefixes) + rng.choice("123456789ABC") + str(rng.randint(1, 9))
        published = base + timedelta(minutes=rng.randint(0, 60 * 24 * 60))
        uuid = f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-8{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"
        lots = tuple(
            Lot(
                lot_id=f"LOT-{k:04d}",
                title=f"Los {k}: {work}",
                cpv_codes=(cpv,),
                estimated_value=Decimal(rng.randint(5, 500) * 1000),
            )
            for k in range(1, rng.randint(1, 3) + 1)
        )
        records.append(
            NoticeRecord(
                source=source,
                source_notice_id=uuid,
                version="01",
                kind=NoticeKind.CONTRACT_NOTICE,
                ocid=f"ocds-mnwr74-{uuid}",
                procedure_id=uuid,
                title=f"{work} {rng.choice(_PLACES)} {town} {i}",
                description=f"{work} für das Objekt in {town}. Ausführung nach VOB/B, Leistungsbeschreibung siehe Vergabeunterlagen. Los {i % 7}.",
                buyer_name=f"{rng.choice(_BUYERS)} {town}",
                buyer_id=f"DE{rng.randint(100000000, 999999999)}",
                procedure_type=rng.choice(_PROCEDURES),
                cpv_codes=(cpv,),
                nuts_codes=(nuts,),
                bundesland=BUNDESLAENDER[nuts[:3]],
                postal_code=f"{rng.randint(1000, 99999):05d}",
                town=town,
                country="DEU",
                estimated_value=Decimal(rng.randint(10, 5000) * 1000),
                currency="EUR",
                published_at=published,
                submission_deadline=published + timedelta(days=rng.randint(10, 60), hours=rng.randint(0, 8)),
                lots=lots,
                documents_url=f"https://www.subreport.de/E{rng.randint(10**7, 10**8)}",
                url=f"https://oeffentlichevergabe.de/ui/de/search/details?noticeId={uuid}",
            )
        )
    return records
