"""Real award and intended-limited-tender items of Vergabeplattform Berlin, against labels made by hand from the raw items.

Provenance in tests/data/portals/rss/real/berlin_vergabeplattform/README.md. "Vergebene Aufträge" (50 awards) state
"Auftragsgegenstand", "Vergabestelle", "Beauftragtes Unternehmen", "Online seit" and a zone-less pubDate; "Beabsichtigte
Beschränkte Ausschreibungen" (50 notices under § 20 Abs. 4 VOB/A, announced before a limited tender) state
"Auftragsgegenstand", "Art der Leistung" (a trade such as "Malerarbeiten"), "Vergabestelle" and "Online seit". Neither
states a deadline, a place field or a legal basis; some subjects end in the place ("…, 12205 Berlin"), which is read.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.rss import decode_feed, parse_feed
from sources.models import FetchRun, Source
from sources.services import source_ingest_files

REAL = Path(__file__).resolve().parents[2] / "data" / "portals" / "rss" / "real" / "berlin_vergabeplattform"
AWARDS = REAL / "vergebene_auftraege_2026-09-13.rss"
INTENDED = REAL / "beabsichtigte_beschraenkte_ausschreibungen_2026-09-13.rss"
BUYERS = {
    "SIL": "Land Berlin (Sondervermögen Immobilien des Landes Berlin)",
    "LI": "Land Berlin vertreten durch Bezirksamt Lichtenberg von Berlin",
    "NK": "Bezirksamt Neukölln von Berlin",
    "CW": "Bezirksamt Charlottenburg-Wilmersdorf von Berlin",
    "MH": "Bezirksamt Marzahn - Hellersdorf von Berlin",
    "TS": "Bezirksamt Tempelhof-Schöneberg von Berlin",
    "MVKU": "Land Berlin, Senatsverwaltung für Mobilität, Verkehr, Klimaschutz und Umwelt",
    "BJF": "Land Berlin, vertreten durch die Senatsverwaltung für Bildung, Jugend und Familie (SenBJF)",
    "SZ": "Bezirksamt Steglitz-Zehlendorf, Abt. Immobilien, Umwelt und Tiefbau",
    "PK": "Bezirksamt Pankow von Berlin",
    "WBM": "WBM Wohnungsbaugesellschaft Berlin-Mitte mbH",
    "RD": "Bezirksamt Reinickendorf von Berlin",
    "TK": "Bezirksamt Treptow-Köpenick von Berlin",
}

# Awards in feed order: link path | Vergabestelle | Beauftragtes Unternehmen | pubDate (day of September, time).
AWARD_LABELS = """
aut/647587|LI|Aqua Service Schwerin|11 12:38:57
aut/645515|SIL|Gierke Baugesellschaft mbH|11 12:35:01
aut/642586|SIL|INDIGO PROJEKT GmbH|11 12:02:21
aut/645139|NK|SafeKeep GmbH|11 11:27:08
aut/645868|SIL|plarewa - Ingnieurgesellschaft mbH|11 09:53:01
aut/645890|SIL|Heinemeyer Ingenieurrueckbau GmbH|11 09:29:48
aut/644411|CW|Jahn, Mack & Partner|11 09:26:53
aut/646972|LI|Eckhard Garbe GmbH|11 08:57:58
aut/648442|NK|Grohmann Logistik GmbH|10 11:51:54
aut/647286|MH|Eric Blok Tief- und Straßenbau GmbH|10 11:48:36
aut/649536|NK|araneaCONSULT GmbH|10 11:48:11
aut/647285|MH|Eric Blok Tief- und Straßenbau GmbH|10 11:46:57
aut/646907|TS|Uzun & Co. Garten- und Landschaftsbau GmbH|10 10:44:06
aut/647139|Bezirksamt Reinickendorf von Berlin|KWS Technische Dienstleistungen e.K.|10 10:42:13
man/27835|Bezirksamt Spandau von Berlin|Reinhold Fehmer GmbH|09 12:23:13
aut/647141|Land Berlin, vertr. durch das Bezirksamt Treptow-Köpenick von Berlin|Jakob Leonhards Söhne GmbH & Co|09 10:56:34
aut/641792|TS|KTF-Berlin GmbH|09 09:49:04
aut/645507|SIL|Heinz Seibel GmbH & Co Gerüstbau KG|09 09:42:24
aut/647953|Land Berlin vertreten durch das, Landesamt für Gesundheit und Soziales Berlin|Elektro-Kohn GmbH|09 08:35:05
aut/640961|Bezirksamt Pankow von Berlin|Burck, Bau und Verwaltung e.K.|09 08:14:01
aut/641227|MVKU|BAH Büro für Angewandte Hydrologie|08 13:13:24
aut/647438|LI|Systema GmbH|08 11:38:38
aut/647675|SIL|Kunkel Großküchentechnik GmbH|08 11:25:49
aut/646771|LI|Sandmaster GmbH|08 11:18:40
aut/646770|LI|Sandmaster GmbH|08 11:18:34
aut/647784|CW|Wahl Elektrotechnik GmbH|08 11:02:39
aut/647349|MVKU|aedvice - ÖbVI Dipl.-Ing. Marcel Schmoi|08 11:01:23
aut/648104|Land Berlin, vertreten durch Senatsverwaltung für Inneres und Sport|Würdig-Pumpentechnik GmbH & Co. KG|08 10:45:18
aut/647412|Land Berlin vertr. durch BA Mitte v. Berlin|Markert GaLaBau GmbH|08 10:22:33
aut/644773|SIL|BAU-FA-TEC Bau- und Fassadensanierungstechnik GmbH|08 10:07:11
aut/645681|MH|Rene George. Klaviere|08 10:03:57
aut/646046|CW|Wahl Elektrotechnik GmbH|08 08:32:45
aut/645590|CW|Lutze Garten-, Landschafts- und Sportplatzbau GmbH|08 07:42:30
aut/647492|SIL|certo Tischlerei GmbH & Co. KG|07 16:27:33
aut/647070|SIL|Wenzel Innenausbau GmbH|07 15:43:14
aut/647899|CW|HTF - Hoch-Tiefbau in Friedrichshain GmbH|07 13:45:44
aut/648330|SIL|Dö & Ka Metallbau GmbH|07 13:05:06
aut/642947|Senatsverwaltung für Stadtentwicklung, Bauen und Wohnen|KESG mbH|07 10:58:08
aut/647229|Land Berlin, vertr. durch das Bezirksamt Treptow-Köpenick von Berlin|Kunkel Großküchentechnik GmbH|07 09:56:42
aut/645781|NK|Hauptstadt Baumdienst Garten-Landschaftsbau|04 15:39:05
aut/647136|NK|valovo GmbH|04 14:00:01
aut/648126|Polizei Berlin|Cellebrite GmbH|04 11:45:17
aut/644683|SIL|Opera Gebäudeservice GmbH|04 09:37:59
aut/647023|NK|Korkmaz Garten- und Landschaftsbau GmbH|04 09:13:04
aut/646983|SIL|D. Teschner Malermeister GmbH|04 07:39:59
aut/646976|SIL|BTS Bautischlerei Seeger GmbH|04 06:27:22
aut/647359|MH|Markert GaLaBau GmbH|03 11:51:45
aut/644370|BJF|HiSolutions AG|03 10:09:52
aut/644369|BJF|HiSolutions AG|03 10:09:11
aut/644362|BJF|Pacemaker Initiative EDUCATION Y|03 10:08:14
"""

# Intended limited tenders in feed order: RIB tenderId | Vergabestelle | day of September | Art der Leistung.
INTENDED_LABELS = """
210252|SZ|11|Malerarbeiten
210277|SIL|11|Maler- und Lackierarbeiten
210300|SIL|11|Abbruch- und Rückbauarbeiten, Rückbau und Schadstoffentfernung Sportboden
209363|MH|10|Baumpflanzungen auf dem Spielplatz und der umliegenden Grünanlage in der Wernerstraße in 12619 Berlin
210231|PK|10|Trockenbauarbeiten - Akustikdecken
210233|PK|10|Bodenbelagsarbeiten
210247|SIL|10|Schumannstr. 11-14 A - Deutsches Theater - Teilmodernisierung Lastenaufzug FN 11162
210254|SIL|10|Lindentunnel - Elektrische Anlagen
210256|WBM|10|Austausch Kälteanlage Spandauer Str. 2 Ladys Company
210261|SIL|10|Bodenbelagsarbeiten, Erneuerung Sporthallenboden
209967|RD|09|Grundhafte Erneuerung der Fahrbahn Alt-Hermsdorf zw. nördl. Wendekehre und Almutstraße in 13467 Berlin
209969|TK|09|Einbau Kabelringleitung 2. BA
210146|Grün Berlin GmbH|09|Baumpflanzung Erweiterungsfläche Süd
210149|PK|09|Abbau Spielgeräte auf Schulhöfen in Berlin-Pankow
210207|SZ|09|Landschaftsgärtnerische Arbeiten
210222|SIL|09|Mauerarbeiten HB6 - Pilot-Fassaden
208876|Senatsverwaltung für Stadtentwicklung, Bauen und Wohnen|08|300.05 Baustellensicherung
209793|Bezirksamt Tempelhof-Schöneberg von Berlin|08|Trockenbauarbeiten nach DIN 18365
209895|RD|08|Sanierung EPDM-Belag der Hochsprunganlage im Stadion Finsterwalder Straße - Landschaftsbauarbeiten
210161|SIL|08|Erweiterte Bauhaupt- und Klempnerarbeiten
210162|WBM|08|Bauhaupt Treppenhaus- und Dachbodenarbeiten
210181|SIL|08|Dachdeckungs- und Dachabdichtungsarbeiten Dachdeckerarbeiten
210185|SIL|08|Förderanlagen, Aufzugsanlagen, Fahrtreppen und Fahrsteige
209345|MH|07|Wegedeckensanierung für wassergebundene Wege und Kriegsgräberflächen auf dem Parkfriedhof Marzahn
209995|TK|07|Trockenbauarbeiten Unterdecken Sport- und Speiseraum
210117|SIL|07|Metallbauarbeiten_Erneuerung Schachttüten F90
210118|SIL|07|Dachdeckungs- und Dachabdichtungsarbeiten_HS33 -Sanierung Dach
210119|Bezirksamt Friedrichshain-Kreuzberg von Berlin|07|Estricharbeiten
210132|WBM|07|Gerüstbauarbeiten
210134|SIL|07|Elektrische Kabel- und Leitungsanlagen in Gebäuden, Erweiterung bestehender Brandmeldeanlagen
210135|WBM|07|Fassade WDVS
210138|WBM|07|Malerarbeiten, Dachgeschossdämmung und Entsorgung
210143|WBM|07|Neue Fenster und Hauseingangstüren
209368|TK|04|Lufttechnische Anlagen, Speisesaal
209698|SIL|04|Ingenieur_Technische Gebäudeausrüstung_Fachplanung TA
209724|SIL|04|Architekt_Objektplanung
210052|SIL|04|Dachdeckungs- und Dachabdichtungsarbeiten_Buschallee 23 A
210090|SIL|04|Maler- und Lackierarbeiten, Malerarbeiten
209990|Bezirksamt Lichtenberg von Berlin|03|Instantsetzung Kunststoffflächen von Schulen in Lichtenberg Landschaftsbauarbeiten
210003|PK|03|Dachsanierung
210010|SIL|03|Mauerarbeiten, Rohbauarbeiten
210012|SIL|03|Alt-Moabit 59-61 - Abwasser- Wasser- und Gasanlagen
210016|Kindergärten NordOst|03|Tischlerarbeiten - Möbel
210020|SZ|03|Abbrucharbeiten DIN 18459
210023|SIL|03|Malerarbeiten - Friesenstr. 16
210028|SIL|03|Trockenbauarbeiten, Innenausbau
210037|SIL|03|Gerüstarbeiten_Buschallee 23 A
209771|STADT UND LAND Wohnbauten-Gesellschaft mbH|02|DV26_WE 5251_ Gas auf Fernwärme
209941|PK|02|Erweiterte Rohbauarbeiten
209981|SIL|02|Putz- und Stuckarbeiten, Fassadensanierung
"""


# Items whose "Auftragsgegenstand" ends in a German "PLZ Ort" (read off the raw items): item number -> (PLZ, town).
AWARD_PLACES = {
    4: ("12355", "Berlin"),
    18: ("10825", "Berlin Schöneberg"),  # "… in 10825 Berlin\nSchöneberg. Die Gerüste sind …"
    31: ("12619", "Berlin"),
    47: ("12689", "Berlin Marzahn"),
}
INTENDED_PLACES = {
    1: ("12205", "Berlin"),
    2: ("10961", "Berlin"),
    8: ("10117", "Berlin"),
    12: ("12459", "Berlin"),
    16: ("10119", "Berlin"),
    22: ("10963", "Berlin"),
    35: ("10115", "Berlin"),
    36: ("10115", "Berlin"),
    38: ("12101", "Berlin"),
    50: ("12043", "Berlin"),
}


def parse(path: Path):
    decoded, problems = decode_feed(path.read_bytes())
    assert problems == []
    return parse_feed(decoded.text, source="berlin")


def test_every_award_reads_as_labelled_by_hand():
    parsed = parse(AWARDS)
    assert (parsed.items, len(parsed.records), parsed.refused, parsed.problems) == (50, 50, 0, ())
    base = "https://www.berlin.de/vergabeplattform/veroeffentlichungen/info-19-20/"
    rows = [line.split("|") for line in AWARD_LABELS.strip().splitlines()]
    for number, (record, (path, buyer, supplier, published)) in enumerate(zip(parsed.records, rows, strict=True), 1):
        assert record.source_notice_id == base + path
        assert (record.kind, record.buyer_name, record.suppliers) == (
            NoticeKind.AWARD,
            BUYERS.get(buyer, buyer),
            (supplier,),
        ), path
        day, clock = published.split(" ")
        assert record.published_at == datetime.strptime(f"2026-09-{day} {clock}", "%Y-%m-%d %H:%M:%S").replace(
            tzinfo=BERLIN
        )
        # Not stated: no deadline, no legal basis, no procedure; a place only where the subject ends in one.
        assert (record.deadlines, record.legal_basis, record.procedure_type) == ((), "", ""), path
        postal_code, town = AWARD_PLACES.get(number, ("", ""))
        assert (record.postal_code, record.town, record.bundesland) == (
            postal_code,
            town,
            "Berlin" if postal_code else "",
        ), path
    assert parsed.field_problems == ()


def test_every_intended_limited_tender_reads_as_labelled_and_its_trade_is_no_nature():
    parsed = parse(INTENDED)
    assert (parsed.items, len(parsed.records), parsed.refused, parsed.problems) == (50, 50, 0, ())
    rows = [line.split("|") for line in INTENDED_LABELS.strip().splitlines()]
    for number, (record, (tender, buyer, day, trade)) in enumerate(zip(parsed.records, rows, strict=True), start=1):
        assert record.source_notice_id == f"rib:2-{tender}"
        # Announced ahead of a limited tender: prior information, by the feed's title.
        assert (record.kind, record.buyer_name) == (NoticeKind.PRIOR_INFORMATION, BUYERS.get(buyer, buyer)), tender
        assert record.published_at == datetime(2026, 9, int(day), tzinfo=BERLIN)
        assert (record.deadlines, record.legal_basis, record.contract_nature) == ((), "", ""), tender
        postal_code, town = INTENDED_PLACES.get(number, ("", ""))
        assert (record.postal_code, record.town) == (postal_code, town), tender
        # "Art der Leistung" names the trade here ("Malerarbeiten", "Architekt_Objektplanung"): what the work is, in
        # the item's text, and no nature (works/supplies/services) left unread, so no field problem.
        assert trade in record.description
    assert parsed.field_problems == ()


def test_all_four_real_feeds_in_one_run_succeed_without_field_problems(db):
    settings = {
        "feed_url": "https://www.berlin.de/vergabeplattform/veroeffentlichungen/info-19/feed.rss",
        "allowed_hosts": ["www.berlin.de"],
        "portal_family": "rib",
    }
    source = Source(key="berlin", name="Vergabeplattform Berlin", adapter="rss", settings=settings)
    source.full_clean()
    source.save()
    run = FetchRun.objects.get(pk=source_ingest_files(source_key="berlin", paths=[REAL]).run.pk)
    assert (run.status, run.fetched, run.new, run.refused, run.failed, run.field_problems) == (
        "succeeded",
        153,
        153,
        0,
        0,
        {},
    )
