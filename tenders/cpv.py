"""German labels of the CPV divisions (first two digits), for full-text search and display.

The full CPV vocabulary (9,454 codes) is not shipped; division labels give the
search vector the words people actually type ("Bauarbeiten", "IT-Dienste").
"""

from __future__ import annotations

from collections.abc import Iterable

CPV_DIVISIONS: dict[str, str] = {
    "03": "Landwirtschaftliche Erzeugnisse, Forstwirtschaft, Fischerei",
    "09": "Erdöl, Brennstoffe, Elektrizität und andere Energiequellen",
    "14": "Bergbau, Grundmetalle",
    "15": "Nahrungsmittel, Getränke, Tabak",
    "16": "Landwirtschaftliche Maschinen",
    "18": "Bekleidung, Schuhe, Gepäck, Zubehör",
    "19": "Leder, Textilien, Kunststoff, Gummi",
    "22": "Drucksachen und Druckerzeugnisse",
    "24": "Chemische Erzeugnisse",
    "30": "Büromaschinen, Computer, Büroausstattung",
    "31": "Elektrische Maschinen, Geräte, Beleuchtung",
    "32": "Funk, Fernsehen, Kommunikation, Nachrichtentechnik",
    "33": "Medizinische Geräte, Arzneimittel, Körperpflege",
    "34": "Transportmittel, Fahrzeuge",
    "35": "Sicherheitsausrüstung, Feuerwehr, Polizei, Verteidigung",
    "37": "Musikinstrumente, Sportartikel, Spiele, Spielzeug",
    "38": "Laborgeräte, optische Geräte, Präzisionsgeräte",
    "39": "Möbel, Einrichtung, Haushaltsgeräte, Reinigungsmittel",
    "41": "Wasser",
    "42": "Industriemaschinen",
    "43": "Bergbaumaschinen, Baumaschinen",
    "44": "Baukonstruktionen, Baustoffe",
    "45": "Bauarbeiten",
    "48": "Softwarepakete und Informationssysteme",
    "50": "Reparatur und Wartung",
    "51": "Installation",
    "55": "Gaststätten, Beherbergung, Catering",
    "60": "Transportdienste",
    "63": "Transport, Logistik, Reisebüro",
    "64": "Post und Telekommunikation",
    "65": "Versorgungsdienste, Energieversorgung",
    "66": "Finanzdienstleistungen, Versicherungen",
    "70": "Immobiliendienste",
    "71": "Architektur, Ingenieurbüro, Planung, Prüfung",
    "72": "IT-Dienste, Beratung, Softwareentwicklung, Internet",
    "73": "Forschung und Entwicklung",
    "75": "Öffentliche Verwaltung, Verteidigung, Sozialversicherung",
    "76": "Dienstleistungen für die Erdöl- und Gasindustrie",
    "77": "Land- und Forstwirtschaft, Gartenbau, Grünpflege",
    "79": "Unternehmensdienstleistungen, Recht, Marketing, Beratung, Personal",
    "80": "Allgemeine und berufliche Bildung, Schulung",
    "85": "Gesundheits- und Sozialwesen",
    "90": "Abwasser, Abfall, Reinigung, Umweltschutz",
    "92": "Erholung, Kultur, Sport",
    "98": "Sonstige gemeinschaftliche, soziale und persönliche Dienste",
}


def cpv_labels_for(codes: Iterable[str]) -> str:
    divisions = dict.fromkeys(code[:2] for code in codes if code)
    return " ".join(label for label in (CPV_DIVISIONS.get(d, "") for d in divisions) if label)
