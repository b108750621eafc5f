"""RSS items of real German procurement feeds, field by field against labels made by hand from the raw items.

The feeds (provenance in tests/data/portals/rss/README.md, section "Real feeds"): two captures of DTVP's public
search turned into RSS by a public scraper, 2023-09-06 and 2023-09-07, 20 items each. Each item states its
title, "Typ: <legal basis> <stage>, Veröffentlicher: <buyer>", a pubDate the scraper wrote as "Invalid Date",
and (2023-09-06 only) a link that is DTVP's popup script around the project page. No item states a deadline,
a place or a procedure: those stay empty without a problem, and the unreadable pubDate is a problem on each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.provenance import Origin
from sources.adapters.rss import decode_feed, parse_feed

DATA = Path(__file__).resolve().parents[2] / "data" / "portals"
DTVP_2023_09_06 = DATA / "rss" / "real" / "dtvp_search_scraped_to_rss_2023-09-06.xml"
DTVP_2023_09_07 = DATA / "dtvp_search_scraped_to_rss_2023-09-07.xml"
FORWARD = "https://www.dtvp.de/Center/public/company/projectForwarding.do?pid="

# Hand labels, item by item in feed order: (legal basis from "Typ", buyer from "Veröffentlicher", DTVP pid or "").
LABELS_2023_09_06 = [
    ("uvgo", "Land Niedersachsen vertreten durch IT.Niedersachsen FG 24 - Zentrale Vergabestelle IT", "1806545"),
    ("vob-a", "Baugesellschaft UMG mbH", "1806541"),
    ("vob-a", "Robert-Bosch-Krankenhaus GmbH", "1806539"),
    ("vob-a", "Gemeinde Möhnesee", "1806538"),
    ("vob-a", "Robert-Bosch-Krankenhaus GmbH", "1806535"),
    ("vob-a", "Robert-Bosch-Krankenhaus GmbH", "1806534"),
    (
        "uvgo",
        "Technische Universität Braunschweig - Abteilung 22 - Vergaberecht und Beschaffung, Zentrale Vergabestelle",
        "1806529",
    ),
    ("uvgo", "Niedersächsische Landesforsten, Forstliches Bildungszentrum", "1806526"),
    ("vol-a", "Medizinischer Dienst Rheinland-Pfalz", "1806525"),
    ("vgv", "Gemeinde Helgoland", "1806524"),  # "VgV TNW"
    ("vob-a", "WISTA Management GmbH", "1806523"),
    ("vob-a", "WISTA Management GmbH", "1806520"),
    ("vob-a", "WISTA Management GmbH", "1806519"),
    ("vob-a", "WISTA Management GmbH", "1806518"),
    ("vgv", "Stiftung Jugend forscht e. V.", "1806517"),  # "VgV TNW"
    ("uvgo", "Logistik Zentrum Niedersachsen Landesbetrieb - Außenstelle Hannover", "1806510"),
    ("uvgo", "Kulturveranstaltungen des Bundes in Berlin GmbH (KBB GmbH)", "1806509"),
    ("uvgo", "Hochschule Darmstadt", "1806507"),
    ("vgv", "Stadt Hildesheim", "1806505"),
    ("uvgo", "IKT-Ost AöR", "1806503"),
]
LABELS_2023_09_07 = [
    ("vob-a", "Stadt Flensburg - Zentrale Vergabestelle", ""),
    ("uvgo", "NBank", ""),
    ("sektvo", "Halberstadtwerke GmbH", ""),  # "SektVO TNW"
    ("uvgo", "Städtisches Krankenhaus Pirmasens", ""),
    ("vgv", "Deutsche Gesellschaft für Internationale Zusammenarbeit (GIZ) GmbH", ""),  # "VgV TNW"
    ("vob-a", "RKH Krankenhaus Bietigheim-Vaihingen", ""),
    ("vgv", "Verwaltungs-Berufsgenossenschaft (VBG) - Hauptverwaltung Hamburg", ""),
    ("vob-a", "Staatliches Baumanagement Weser-Leine", ""),
    ("uvgo", "Kassenärztliche Vereinigung Bayerns", ""),
    ("vob-a", "Bundesrepublik Deutschland vertreten durch das Staatliche Baumanagement Niedersachsen", ""),
    ("uvgo", "St. Dominikus Krankenhaus und Jugendhilfe gGmbH", ""),
    ("uvgo", "Kassenärztliche Vereinigung Bayerns", ""),
    ("vob-a", "Vivantes - Netzwerk für Gesundheit GmbH", ""),
    ("vgv", "BG Klinikum Murnau gGmbH", ""),
    ("vgv", "KENFO - Fonds zur Finanzierung der kerntechnischen Entsorgung St.d.ö.R.", ""),  # "VgV TNW"
    ("uvgo", "Logistik Zentrum Niedersachsen Landesbetrieb - Außenstelle Hannover", ""),
    ("vob-a", "Klinikum Gütersloh gemeinnützige GmbH", ""),
    ("vgv", "Niedersächsische Landesbehörde für Straßenbau und Verkehr - Geschäftsbereich Aurich", ""),
    ("vob-a", "Landkreis Göttingen", ""),
    ("vob-a", "AOK - Die Gesundheitskasse für Niedersachsen", ""),
]


def parse(path: Path):
    decoded, problems = decode_feed(path.read_bytes())
    assert problems == []
    return parse_feed(decoded.text, source="dtvp-feed")


@pytest.mark.parametrize(
    ("path", "labels"), [(DTVP_2023_09_06, LABELS_2023_09_06), (DTVP_2023_09_07, LABELS_2023_09_07)]
)
def test_every_item_reads_as_labelled_by_hand(path, labels):
    parsed = parse(path)
    assert (parsed.items, len(parsed.records), parsed.refused, parsed.problems) == (20, 20, 0, ())
    for record, (legal_basis, buyer, pid) in zip(parsed.records, labels, strict=True):
        assert (record.legal_basis, record.buyer_name) == (legal_basis, buyer), record.title
        # "Ausschreibung" and "TNW" are stages of a call for competition: a contract notice, no procedure named.
        assert (record.kind, record.procedure_type, record.origin) == (NoticeKind.CONTRACT_NOTICE, "", Origin.FEED)
        # Not stated: no deadline, no place.
        assert (record.submission_deadline, record.deadlines) == (None, ())
        assert (record.postal_code, record.town, record.bundesland) == ("", "", "")
        assert record.published_at is None  # "Invalid Date"
        if pid:
            # The popup script's target is the link and the id; the script itself is no link.
            assert (record.url, record.source_notice_id) == (FORWARD + pid, FORWARD + pid)
        else:
            assert (record.url, record.source_notice_id) == ("", record.title)  # guid = title, no link


@pytest.mark.parametrize("path", [DTVP_2023_09_06, DTVP_2023_09_07])
def test_the_one_stated_field_that_cannot_be_read_is_named_per_item_and_nothing_else(path):
    parsed = parse(path)
    assert [(p.field, p.detail) for p in parsed.field_problems] == [
        ("published", "publication date 'Invalid Date' is no date; left empty")
    ] * 20
    assert [p.item.split(" ")[1] for p in parsed.field_problems] == [str(n) for n in range(1, 21)]
