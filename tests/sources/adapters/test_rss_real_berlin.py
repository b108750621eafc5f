"""Real items of Vergabeplattform Berlin's feeds, field by field against labels made by hand from the raw items.

The feeds (provenance in tests/data/portals/rss/real/berlin_vergabeplattform/README.md): "Bekanntmachungen" (50 calls
for competition) and "Vorinformationen" (3 prior information notices) as served on 2026-09-13. Each call states its
procedure with the legal basis in brackets, "PLZ, Ort", one dated line (Angebotsfrist, Teilnahmefrist or only the
Eröffnungstermin), "Online seit" and a pubDate without a zone.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.rss import decode_feed, parse_feed
from sources.models import FetchRun, Source
from sources.run_summary import run_summary_text
from sources.services import source_ingest_files

REAL = Path(__file__).resolve().parents[2] / "data" / "portals" / "rss" / "real" / "berlin_vergabeplattform"
BEKANNTMACHUNGEN = REAL / "bekanntmachungen_2026-09-13.rss"
VORINFORMATIONEN = REAL / "vorinformationen_2026-09-13.rss"
KINDS = {"A": "angebotsfrist", "T": "teilnahmefrist", "E": "eroeffnungstermin"}
PROCEDURES = {"OV": "open", "OA": "public_tender", "VT": "negotiated_with_call"}

# Hand labels in feed order: tenderId | dated line (A = Ablauf (der) Angebotsfrist, T = Ablauf der Teilnahmefrist,
# E = Eröffnungstermin) and its time | pubDate (day of September and time) | PLZ, Ort | legal basis from the bracket
# ("" = none stated) | Verfahrensart (OV Offenes Verfahren, OA Öffentliche Ausschreibung, VT Verhandlungsverfahren
# mit Teilnahmewettbewerb).
LABELS = """
210057|A 14.10.2026 11:00|13 10:33:29|13187|Berlin|vgv|OV
209998|T 23.11.2026 10:00|12 17:21:31|10365|Berlin||VT
209890|A 13.10.2026 09:10|12 15:47:24|10783|Berlin|vob-a-eu|OV
208329|A 13.10.2026 09:00|12 15:45:58|10783|Berlin|vob-a-eu|OV
207580|A 12.10.2026 11:00|11 00:00:00|13349|Berlin|vob-a-eu|OV
208718|A 02.10.2026 10:00|11 00:00:00|10179|Berlin|uvgo|OA
209710|T 09.12.2026 11:00|11 00:00:00|13465|Berlin||VT
209951|A 06.10.2026 10:00|11 00:00:00|13355|Berlin|uvgo|OA
210000|A 21.10.2026 10:00|11 00:00:00|14163|Berlin|vgv|OV
210034|T 30.11.2026 10:00|11 00:00:00|14197|Berlin||VT
210120|E 06.10.2026 11:00|11 00:00:00|13355|Berlin|vob-a|OA
210265|A 02.10.2026 10:00|11 00:00:00|12101|Berlin|uvgo|OA
210280|E 29.09.2026 11:10|11 00:00:00|10825|Berlin|vob-a|OA
210292|A 30.09.2026 09:00|11 00:00:00|10559|Berlin|uvgo|OA
210295|A 28.09.2026 10:00|11 00:00:00|10969|Berlin Kreuzberg|uvgo|OA
210296|E 06.10.2026 13:10|11 00:00:00|10557|Berlin|vob-a|OA
207896|E 24.09.2026 09:00|10 00:00:00|13437|Berlin|vob-a|OA
208458|E 22.10.2026 10:00|10 00:00:00|10559|Berlin|vob-a|OA
208461|E 20.10.2026 10:00|10 00:00:00|10559|Berlin|vob-a|OA
208462|E 15.10.2026 10:00|10 00:00:00|10559|Berlin|vob-a|OA
209642|A 25.09.2026 10:00|10 00:00:00|10551|Berlin|uvgo|OA
209682|A 19.10.2026 10:00|10 00:00:00|10785|Berlin|vgv|OV
209892|A 12.10.2026 11:00|10 00:00:00|10115|Berlin|vgv|OV
210107|A 01.10.2026 10:00|10 00:00:00|13597|Berlin|uvgo|OA
210165|A 13.10.2026 09:10|10 00:00:00||Berlin|vob-a-eu|OV
210212|A 13.10.2026 09:30|10 00:00:00|10963|Berlin|vob-a-eu|OV
210232|E 08.10.2026 09:30|10 00:00:00|10249|Berlin|vob-a|OA
210240|A 22.09.2026 10:00|10 00:00:00|12101|Berlin|uvgo|OA
205632|E 24.09.2026 09:30|09 00:00:00|13351|Berlin|vob-a|OA
209514|A 29.09.2026 10:00|09 00:00:00|13353|Berlin|haushaltsrecht|OA
209615|E 25.09.2026 10:15|09 00:00:00|12627|Berlin|vob-a|OA
209734|A 07.10.2026 10:00|09 00:00:00|10117|Berlin|vgv|OV
209757|A 09.10.2026 10:00|09 00:00:00|13359|Berlin|vob-a|OV
209820|E 28.09.2026 09:00|09 00:00:00|13465|Berlin|vob-a|OA
210050|A 09.10.2026 10:00|09 00:00:00|10999|Berlin|vgv|OV
210079|T 15.12.2026 08:50|09 00:00:00|10179|Berlin||VT
210083|A 09.10.2026 10:01|09 00:00:00|10713|Berlin|vgv|OV
210193|A 23.09.2026 08:00|09 00:00:00|13627|Berlin|uvgo|OA
210194|E 15.10.2026 08:50|09 00:00:00|10249|Berlin|vob-a|OA
210196|E 23.09.2026 12:00|09 00:00:00|12619|Berlin|vob-a|OA
210197|E 08.10.2026 08:50|09 00:00:00|12277|Berlin|vob-a|OA
210209|E 06.10.2026 11:30|09 00:00:00|10969|Berlin|vob-a|OA
210213|A 22.09.2026 10:00|09 00:00:00|10247|Berlin Friedrichshain|uvgo|OA
206883|A 22.09.2026 10:00|08 00:00:00|10315|Berlin|uvgo|OA
209501|E 06.10.2026 10:00|08 00:00:00|10115|Berlin|vob-a|OA
209960|A 18.09.2026 08:00|08 00:00:00|12105|Berlin|uvgo|OA
210054|A 08.10.2026 08:30|08 00:00:00|10963|Berlin|vob-a-eu|OV
210116|E 30.09.2026 10:30|08 00:00:00|10117|Berlin|vob-a|OA
210154|E 29.09.2026 10:00|08 00:00:00|13189|Berlin|vob-a|OA
210159|E 08.10.2026 09:05|08 00:00:00|10245|Berlin Friedrichshain|vob-a|OA
"""


def labels():
    for line in LABELS.strip().splitlines():
        tender, dated, published, postal_code, town, legal_basis, procedure = line.split("|")
        letter, day, clock = dated.split(" ")
        at = datetime.strptime(f"{day} {clock}", "%d.%m.%Y %H:%M").replace(tzinfo=BERLIN)
        sept_day, time_of_day = published.split(" ")
        at_published = datetime.strptime(f"2026-09-{sept_day} {time_of_day}", "%Y-%m-%d %H:%M:%S")
        yield tender, KINDS[letter], at, at_published.replace(tzinfo=BERLIN), postal_code, town, legal_basis, procedure


def parse(path: Path | None = None, text: str | None = None):
    if text is None:
        decoded, problems = decode_feed(path.read_bytes())
        assert problems == []
        text = decoded.text
    return parse_feed(text, source="berlin")


def test_every_call_for_competition_reads_as_labelled_by_hand():
    parsed = parse(BEKANNTMACHUNGEN)
    assert (parsed.items, len(parsed.records), parsed.refused, parsed.problems) == (50, 50, 0, ())
    for record, label in zip(parsed.records, labels(), strict=True):
        tender, kind, at, published, postal_code, town, legal_basis, procedure = label
        assert record.source_notice_id == f"rib:2-{tender}"
        assert [(d.kind, d.at) for d in record.deadlines] == [(kind, at)], tender
        # The Eröffnungstermin is when the tenders are opened, never the deadline.
        assert record.submission_deadline == (None if kind == "eroeffnungstermin" else at), tender
        assert record.published_at == published, tender
        assert (record.postal_code, record.town, record.bundesland) == (postal_code, town, "Berlin"), tender
        assert (record.legal_basis, record.procedure_type) == (legal_basis, PROCEDURES[procedure]), tender
        assert record.kind == NoticeKind.CONTRACT_NOTICE
    # Everything each item states is read: nothing is left for a field problem.
    assert parsed.field_problems == ()


def test_spellings_the_constructed_feeds_did_not_have():
    records = {r.source_notice_id: r for r in parse(BEKANNTMACHUNGEN).records}
    # "(LHO)": a tender under the Landeshaushaltsordnung, budget law below the EU thresholds.
    assert (records["rib:2-209514"].legal_basis, records["rib:2-209514"].above_eu_threshold) == (
        "haushaltsrecht",
        False,
    )
    # "(VOB-EU)", "(VOB/EU)", "(VOB/A-EU)" are one rule; "(VOB)" and "(VOB / A)" the national VOB/A.
    assert {records[f"rib:2-{n}"].legal_basis for n in ("209890", "207580", "210212")} == {"vob-a-eu"}
    assert {records[f"rib:2-{n}"].legal_basis for n in ("210120", "209757", "209501")} == {"vob-a"}
    # "Ausführungsort: , Berlin": the postcode left empty, the town still stated.
    assert (records["rib:2-210165"].postal_code, records["rib:2-210165"].town) == ("", "Berlin")


@pytest.mark.parametrize(
    ("bracket", "problems"),
    [
        (
            "(AVB)",
            [("legal_basis", "Rechtsgrundlage 'AVB' ('Öffentliche Ausschreibung (AVB)') is not in the vocabulary")],
        ),
        ("(mit Losen)", []),  # a remark, no rule
        ("(ÖA)", []),  # the procedure's own initials
        ("(TNW)", []),  # its stage, the participation competition
    ],
)
def test_a_bracketed_rule_the_vocabulary_cannot_read_is_a_named_field_problem(bracket, problems):
    text = BEKANNTMACHUNGEN.read_text(encoding="utf-8").replace("(LHO)", bracket)
    parsed = parse(text=text)
    found = [(p.field, p.detail.split(";")[0]) for p in parsed.field_problems]
    assert found == problems
    assert all(p.item.startswith("item 30 'Machbarkeitsstudie Wiesenstraße'") for p in parsed.field_problems)
    record = next(r for r in parsed.records if r.source_notice_id == "rib:2-209514")
    assert (record.legal_basis, record.procedure_type) == ("", "public_tender")


def test_prior_information_items_read_their_period_and_kind():
    parsed = parse(VORINFORMATIONEN)
    assert (parsed.items, parsed.problems, parsed.field_problems) == (3, (), ())
    base = "https://www.berlin.de/vergabeplattform/veroeffentlichungen/vorinformationen/"
    assert [
        (r.source_notice_id, r.kind, r.contract_start, r.contract_end, r.published_at.date()) for r in parsed.records
    ] == [
        (base + "813", NoticeKind.PRIOR_INFORMATION, date(2028, 1, 1), date(2031, 12, 31), date(2026, 8, 3)),
        (base + "821", NoticeKind.PRIOR_INFORMATION, date(2026, 10, 1), date(2027, 9, 30), date(2026, 8, 18)),
        (base + "826", NoticeKind.PRIOR_INFORMATION, date(2026, 9, 13), date(2026, 9, 13), date(2026, 8, 31)),
    ]
    # Not stated: no deadline, no place, no legal basis.
    for record in parsed.records:
        assert (record.deadlines, record.postal_code, record.town, record.legal_basis) == ((), "", "", "")


def _berlin_source() -> Source:
    settings = {
        "feed_url": "https://www.berlin.de/vergabeplattform/veroeffentlichungen/bekanntmachungen/feed.rss",
        "allowed_hosts": ["www.berlin.de"],
        "portal_family": "rib",
    }
    source = Source(key="berlin", name="Vergabeplattform Berlin", adapter="rss", settings=settings)
    source.full_clean()
    source.save()
    return source


def test_the_calls_and_prior_information_are_ingested_whole_without_a_field_problem(db):
    _berlin_source()
    run = FetchRun.objects.get(
        pk=source_ingest_files(source_key="berlin", paths=[BEKANNTMACHUNGEN, VORINFORMATIONEN]).run.pk
    )
    assert (run.status, run.fetched, run.new, run.refused, run.failed, run.field_problems) == (
        "succeeded",
        53,
        53,
        0,
        0,
        {},
    )


def test_a_stated_rule_that_cannot_be_read_is_counted_on_the_run(db, tmp_path):
    _berlin_source()
    feed = tmp_path / "bekanntmachungen.rss"
    feed.write_text(BEKANNTMACHUNGEN.read_text(encoding="utf-8").replace("(LHO)", "(AVB)"), encoding="utf-8")
    run = FetchRun.objects.get(pk=source_ingest_files(source_key="berlin", paths=[feed]).run.pk)
    # Stored all the same; the run is partial because one item states what nothing reads.
    assert (run.status, run.new, run.field_problems) == ("partial", 50, {"legal_basis": 1})
    assert any("'AVB'" in problem and "Machbarkeitsstudie" in problem for problem in run.problems)
    assert run_summary_text(run).endswith("; 1 Rechtsgrundlagen nicht lesbar")
