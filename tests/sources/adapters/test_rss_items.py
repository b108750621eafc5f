"""RSS items as German buyers write them: the constructed Vergabeplattform Berlin feeds (see tests/data/portals/rss/README.md)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.rss import RssAdapter, decode_feed, parse_feed
from sources.adapters.rss.identity import notice_id, without_tracking
from sources.models import FetchRun, Source
from sources.run_summary import run_summary_text
from sources.services import source_ingest_files

RSS = Path(__file__).resolve().parents[2] / "data" / "portals" / "rss"
BEKANNTMACHUNGEN = RSS / "berlin_bekanntmachungen_constructed.xml"


def parse(path: Path, **reading):
    return parse_feed(decode_feed(path.read_bytes())[0].text, source="berlin", **reading)


def by_title(parsed):
    return {record.title: record for record in parsed.records}


def test_all_fourteen_items_are_read_with_every_field_they_state():
    parsed = parse(BEKANNTMACHUNGEN)
    assert (parsed.items, len(parsed.records), parsed.problems, parsed.field_problems) == (14, 14, (), ())
    records = parsed.records
    assert all(r.published_at for r in records) and all(r.postal_code and r.bundesland == "Berlin" for r in records)
    assert all(r.legal_basis for r in records) and all(r.procedure_type for r in records)
    assert all(r.kind == NoticeKind.CONTRACT_NOTICE and r.origin == "feed" for r in records)
    # Three items state only the Eröffnungstermin: stored as such, never as the deadline.
    openings = [r for r in records if [d.kind for d in r.deadlines] == ["eroeffnungstermin"]]
    assert len(openings) == 3 and all(r.submission_deadline is None for r in openings)
    assert sum(1 for r in records if r.submission_deadline) == 11


def test_labels_with_and_without_der_dates_without_zone_and_online_seit():
    records = by_title(parse(BEKANNTMACHUNGEN))
    pankow = records["Reinigungsleistungen Rathaus Pankow"]
    assert pankow.submission_deadline == datetime(2026, 10, 14, 11, 0, tzinfo=BERLIN)  # "Ablauf Angebotsfrist"
    assert pankow.published_at == datetime(2026, 9, 13, 10, 33, 29, tzinfo=BERLIN)  # pubDate without a zone
    assert (pankow.postal_code, pankow.town, pankow.bundesland) == ("13187", "Berlin", "Berlin")  # "13187, Berlin"
    assert (pankow.procedure_type, pankow.legal_basis, pankow.above_eu_threshold) == ("open", "vgv", True)
    tegel = records["Objektplanung Feuerwache Tegel"]
    assert [(d.kind, d.at) for d in tegel.deadlines] == [
        ("teilnahmefrist", datetime(2026, 10, 5, 10, 0, tzinfo=BERLIN))
    ]
    assert tegel.submission_deadline == datetime(2026, 10, 5, 10, 0, tzinfo=BERLIN)
    kita = records["Malerarbeiten Kita Lichtenberg"]
    assert [(d.kind, d.at) for d in kita.deadlines] == [
        ("eroeffnungstermin", datetime(2026, 10, 1, 10, 0, tzinfo=BERLIN))
    ]
    assert (kita.legal_basis, kita.procedure_type, kita.above_eu_threshold) == ("vob-a", "public_tender", False)
    assert records["Sanierung Schulgebäude Friedrichshain"].legal_basis == "vob-a-eu"
    assert records["Gleisbauarbeiten Straßenbahn"].legal_basis == "sektvo"
    assert records["Lieferung Büromaterial Bezirksamt Mitte"].legal_basis == "uvgo"


def test_online_seit_is_the_publication_date_when_pubdate_is_missing():
    text = BEKANNTMACHUNGEN.read_text(encoding="utf-8").replace("<pubDate>Sun, 13 Sep 2026 10:33:29</pubDate>", "")
    pankow = by_title(parse_feed(text, source="berlin"))["Reinigungsleistungen Rathaus Pankow"]
    assert pankow.published_at == datetime(2026, 9, 13, 0, 0, tzinfo=BERLIN)


def test_notice_kind_comes_from_the_feed_title_and_awards_name_the_supplier():
    prior = parse(RSS / "berlin_vorinformationen_constructed.xml")
    assert [r.kind for r in prior.records] == [NoticeKind.PRIOR_INFORMATION]
    # "Ablauf Angebotsfrist: entfällt" states no date: no problem.
    assert prior.field_problems == ()
    award = parse(RSS / "berlin_vergebene_auftraege_constructed.xml").records[0]
    assert (award.kind, award.suppliers) == (NoticeKind.AWARD, ("Glanz & Klar GmbH",))
    assert (award.contract_start, award.contract_end) == (date(2027, 1, 1), date(2027, 12, 31))


def test_what_an_item_states_but_cannot_be_read_is_a_named_field_problem():
    text = (
        BEKANNTMACHUNGEN.read_text(encoding="utf-8")
        .replace("Ablauf Angebotsfrist: 14.10.2026, 11:00 Uhr", "Letzter Abgabetermin: 14.10.2026, 11:00 Uhr")
        .replace("Verfahrensart: Offenes Verfahren (VOB/A EU)", "Verfahrensart: Sonderverfahren XY")
    )
    parsed = parse_feed(text, source="berlin")
    problems = {(p.field, p.item.split(" ")[1]) for p in parsed.field_problems}
    assert problems == {("date", "1"), ("procedure", "2")}
    assert "Letzter Abgabetermin" in parsed.field_problems[0].detail
    # The feed's own label vocabulary (a Source setting) reads it.
    parsed = parse_feed(text, source="berlin", labels={"deadline": ("letzter abgabetermin",)})
    assert by_title(parsed)["Reinigungsleistungen Rathaus Pankow"].submission_deadline == datetime(
        2026, 10, 14, 11, 0, tzinfo=BERLIN
    )


def test_a_retitled_item_whose_guid_is_its_title_stays_the_same_tender():
    link = "https://www.berlin.de/vergabe/123?utm_source=rss&utm_medium=feed&id=7#track=feed"
    first = notice_id(link=without_tracking(link), guid="Reinigung", title="Reinigung")
    second = notice_id(link=without_tracking(link), guid="Reinigung Rathaus", title="Reinigung Rathaus")
    assert first == second == "https://www.berlin.de/vergabe/123?id=7"
    # A guid that is no title keeps being the id; a known link form wins over both.
    assert notice_id(link="https://x.example/a", guid="urn:x:42", title="T") == "urn:x:42"
    rib = "https://www.meinauftrag.rib.de/public/DetailsByPlatformIdAndTenderId/platformId/2/tenderId/210101"
    assert notice_id(link=rib, guid="T", title="T") == "rib:2-210101"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"portal_family": "xyz"}, "portal_family muss eines von"),
        ({"labels": {"frist_xy": ["Abgabe"]}}, "unbekannte(s) Feld(er) frist_xy"),
        ({"labels": {"deadline": ["Abgabe:"]}}, "ist keine Bezeichnung"),
    ],
)
def test_generic_feed_settings_are_validated(settings, message):
    from django.core.exceptions import ValidationError

    base = {"feed_url": "https://www.berlin.de/feed.rss", "allowed_hosts": ["www.berlin.de"]}
    with pytest.raises(ValidationError) as error:
        RssAdapter.validate_settings({**base, **settings})
    assert message in " ".join(error.value.messages)


def test_an_operator_adds_a_land_feed_and_the_run_counts_tenders_apart_from_field_problems(db):
    settings = {
        "feed_url": "https://www.berlin.de/vergabeplattform/veroeffentlichungen/bekanntmachungen/feed.rss",
        "allowed_hosts": ["www.berlin.de"],
        "portal_family": "rib",
        "labels": {"deadline": ["Letzter Abgabetermin"]},
    }
    source = Source(key="berlin", name="Vergabeplattform Berlin", adapter="rss", settings=settings)
    source.full_clean()
    source.save()
    run = source_ingest_files(source_key="berlin", paths=[BEKANNTMACHUNGEN]).run
    run = FetchRun.objects.get(pk=run.pk)
    assert (run.status, run.fetched, run.new, run.refused, run.failed, run.field_problems) == (
        "succeeded",
        14,
        14,
        0,
        0,
        {},
    )
    assert run_summary_text(run) == "neu 14, geändert 0, unverändert 0, abgelehnt 0"


def test_the_summary_names_field_problems_by_field():
    run = FetchRun(new=14, changed=0, unchanged=0, refused=0, field_problems={"published": 14, "deadline": 10})
    assert run_summary_text(run) == (
        "neu 14, geändert 0, unverändert 0, abgelehnt 0; 14 Veröffentlichungsdaten nicht lesbar, 10 Fristen nicht lesbar"
    )


def _item_feed(description: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Bekanntmachungen</title>'
        "<item><title>Malerarbeiten</title><link>https://vergabe.example/1</link>"
        f"<description><![CDATA[{description}]]></description></item></channel></rss>"
    )


@pytest.mark.parametrize(
    ("subject", "place"),
    [
        ("Goethe-Gymnasium, 12205 Berlin", ("12205", "Berlin")),
        ("Brunnenstraße 188-190, 10119 Berlin - Grundinstandsetzung", ("10119", "Berlin")),
        ("Gymnasium - Erich-Kästner-Straße 52, 12619 Berlin -", ("12619", "Berlin")),
        ("Salzburger Straße 21 - 25 in 10825 Berlin Schöneberg. Die Gerüste sind …", ("10825", "Berlin Schöneberg")),
        ("Rathaus, 66386 St. Ingbert", ("66386", "St. Ingbert")),
        ("Schumannstr. 11-14 A - Lastenaufzug FN 11162", ("", "")),
    ],
)
def test_a_place_is_read_from_the_subject_when_the_item_has_no_place_field(subject, place):
    parsed = parse_feed(_item_feed(f"Auftragsgegenstand: {subject}<br>Vergabestelle: Bezirksamt"), source="berlin")
    [record] = parsed.records
    assert (record.postal_code, record.town) == place


def test_a_place_field_wins_over_the_subject():
    description = "Auftragsgegenstand: Schule, 12205 Berlin<br>Ausführungsort: 14467 Potsdam"
    [record] = parse_feed(_item_feed(description), source="berlin").records
    assert (record.postal_code, record.town, record.bundesland) == ("14467", "Potsdam", "Brandenburg")


@pytest.mark.parametrize(
    ("nature", "code", "problem"),
    [
        ("Bauleistung", "works", False),
        ("Dienstleistungen", "services", False),
        ("Malerarbeiten", "", False),  # a trade: what the work is, not a nature left unread
        ("Architekt_Objektplanung", "", False),
        ("Bau- und Dienstleistungen", "", True),  # worded as a nature, and not one the vocabulary reads
        ("Lieferung und Montage", "", True),
    ],
)
def test_art_der_leistung_is_a_problem_only_when_worded_as_a_nature(nature, code, problem):
    parsed = parse_feed(_item_feed(f"Art der Leistung: {nature}<br>Vergabestelle: Bezirksamt"), source="berlin")
    [record] = parsed.records
    assert record.contract_nature == code
    assert [p.field for p in parsed.field_problems] == (["nature"] if problem else [])
