"""Builds the CONSTRUCTED Vergabeplattform-Berlin-style feeds from the label forms reported in
../shared/fixtures/portals/README.md (no real capture was available); run from the repository root."""

from pathlib import Path

# One notice a line, as the feed lists them.
# fmt: off
items = [
    # title, tenderId, procedure, place, deadline label, deadline, online, pubDate
    ("Reinigungsleistungen Rathaus Pankow", 210101, "Offenes Verfahren (VgV)", "13187, Berlin", "Ablauf Angebotsfrist", "14.10.2026, 11:00 Uhr", "13.09.2026", "Sun, 13 Sep 2026 10:33:29"),
    ("Sanierung Schulgebäude Friedrichshain", 210102, "Offenes Verfahren (VOB/A EU)", "10247 Berlin", "Ablauf der Angebotsfrist", "15.10.2026, 12:00 Uhr", "13.09.2026", "Sun, 13 Sep 2026 09:12:04"),
    ("Objektplanung Feuerwache Tegel", 210103, "Verhandlungsverfahren mit Teilnahmewettbewerb (VgV)", "13405, Berlin", "Ablauf der Teilnahmefrist", "05.10.2026, 10:00 Uhr", "12.09.2026", "Sat, 12 Sep 2026 16:40:00"),
    ("Malerarbeiten Kita Lichtenberg", 210104, "Öffentliche Ausschreibung (VOB/A)", "10365, Berlin", "Eröffnungstermin", "01.10.2026, 10:00 Uhr", "12.09.2026", "Sat, 12 Sep 2026 11:02:51"),
    ("Lieferung Büromaterial Bezirksamt Mitte", 210105, "Öffentliche Ausschreibung (UVgO)", "10115 Berlin", "Ablauf Angebotsfrist", "30.09.2026, 23:59 Uhr", "11.09.2026", "Fri, 11 Sep 2026 08:00:00"),
    ("Wartung Aufzugsanlagen BIM", 210106, "Offenes Verfahren (VgV)", "10179, Berlin", "Ablauf Angebotsfrist", "20.10.2026, 10:00 Uhr", "11.09.2026", "Fri, 11 Sep 2026 14:25:10"),
    ("Straßenbeleuchtung Marzahn, 2. BA", 210107, "Öffentliche Ausschreibung (VOB/A)", "12679, Berlin", "Eröffnungstermin", "06.10.2026, 09:30 Uhr", "10.09.2026", "Thu, 10 Sep 2026 12:00:00"),
    ("IT-Dienstleistungen Senatsverwaltung", 210108, "Verhandlungsvergabe mit Teilnahmewettbewerb (UVgO)", "10969, Berlin", "Ablauf der Teilnahmefrist", "28.09.2026, 12:00 Uhr", "10.09.2026", "Thu, 10 Sep 2026 09:45:33"),
    ("Energieberatung Sanierungsfahrplan Schulen", 210109, "Offenes Verfahren (VgV)", "10707 Berlin", "Ablauf der Angebotsfrist", "19.10.2026, 11:00 Uhr", "09.09.2026", "Wed, 09 Sep 2026 15:10:00"),
    ("Gleisbauarbeiten Straßenbahn", 210110, "Offenes Verfahren (SektVO)", "10365, Berlin", "Ablauf Angebotsfrist", "22.10.2026, 10:00 Uhr", "09.09.2026", "Wed, 09 Sep 2026 10:05:00"),
    ("Dachabdichtung Sporthalle Spandau", 210111, "Beschränkte Ausschreibung (VOB/A)", "13597, Berlin", "Eröffnungstermin", "29.09.2026, 10:00 Uhr", "08.09.2026", "Tue, 08 Sep 2026 13:30:00"),
    ("Catering Veranstaltungen Abgeordnetenhaus", 210112, "Öffentliche Ausschreibung (UVgO)", "10117, Berlin", "Ablauf Angebotsfrist", "02.10.2026, 12:00 Uhr", "08.09.2026", "Tue, 08 Sep 2026 08:20:00"),
    ("Projektsteuerung Gebäude L", 210113, "Verhandlungsverfahren mit Teilnahmewettbewerb (VgV)", "13405 Berlin", "Ablauf der Teilnahmefrist", "03.11.2026, 12:00 Uhr", "07.09.2026", "Mon, 07 Sep 2026 17:00:00"),
    ("Winterdienst Grünanlagen Neukölln", 210114, "Öffentliche Ausschreibung (UVgO)", "12043, Berlin", "Ablauf Angebotsfrist", "25.09.2026, 10:00 Uhr", "07.09.2026", "Mon, 07 Sep 2026 07:55:00"),
]
# fmt: on
RIB = "https://www.meinauftrag.rib.de/public/DetailsByPlatformIdAndTenderId/platformId/2/tenderId/{}"


def item(title, tid, proc, place, label, deadline, online, pub, extra=""):
    return f"""    <item>
      <title>{title}</title>
      <link>{RIB.format(tid)}</link>
      <description><![CDATA[Verfahrensart: {proc}<br>Ausführungsort: {place}<br>{label}: {deadline}<br>{extra}Online seit: {online}]]></description>
      <guid isPermaLink="false">{title}</guid>
      <pubDate>{pub}</pubDate>
    </item>
"""


def feed(title, body):
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- CONSTRUCTED test feed (not a capture). Shapes from the reports in ../shared/fixtures/portals/README.md,
     "RSS feeds of German buyer platforms (not only service.bund.de)": the Vergabeplattform Berlin feeds
     (https://www.berlin.de/vergabeplattform/veroeffentlichungen/…/feed.rss) print "Verfahrensart:", "Ausführungsort:",
     "Ablauf (der) Angebotsfrist:", "Ablauf der Teilnahmefrist:", "Eröffnungstermin:", "Online seit:" lines, RFC-822
     pubDate without a zone, the guid = the title, and link to the RIB tender page. Titles, ids and dates are invented. -->
<rss version="2.0">
  <channel>
    <title>{title}</title>
    <link>https://www.berlin.de/vergabeplattform/veroeffentlichungen/</link>
    <description>Vergabeplattform Berlin</description>
{body}  </channel>
</rss>
"""


Path("tests/data/portals/rss/berlin_bekanntmachungen_constructed.xml").write_text(
    encoding="utf-8", data=feed("Bekanntmachungen", "".join(item(*i) for i in items))
)
vor = [
    item(
        "Markterkundung Rahmenvertrag Reinigungsmittel",
        210201,
        "Vorinformation (UVgO)",
        "10178, Berlin",
        "Ablauf Angebotsfrist",
        "entfällt",
        "13.09.2026",
        "Sun, 13 Sep 2026 10:00:00",
    )
]
Path("tests/data/portals/rss/berlin_vorinformationen_constructed.xml").write_text(
    encoding="utf-8", data=feed("Vorinformationen / Markterkundungen", "".join(vor))
)
award = """    <item>
      <title>Fensterreinigung Bezirksamt Pankow</title>
      <link>https://www.meinauftrag.rib.de/public/DetailsByPlatformIdAndTenderId/platformId/2/tenderId/209001</link>
      <description><![CDATA[Verfahrensart: Öffentliche Ausschreibung (UVgO)<br>Vergabestelle: Bezirksamt Pankow von Berlin<br>Beauftragtes Unternehmen: Glanz &amp; Klar GmbH<br>Voraussichtliche Ausführungsfrist: 01.01.2027 - 31.12.2027<br>Online seit: 13.09.2026]]></description>
      <guid isPermaLink="false">Fensterreinigung Bezirksamt Pankow</guid>
      <pubDate>Sun, 13 Sep 2026 10:15:00</pubDate>
    </item>
"""
Path("tests/data/portals/rss/berlin_vergebene_auftraege_constructed.xml").write_text(
    encoding="utf-8", data=feed("Vergebene Aufträge", award)
)
