"""Relevance of the keyword search on a fixed corpus: recall@10, precision@10 and MRR, now and before.

The corpus and the labelled queries are ``bench.relevance_set``. "Current" is the
portal's own search (``tenders.search.tender_search``, order=relevance); "previous"
is the index and query of the project before compound splitting, rebuilt here in
SQL on the same rows: title (A), buyer and CPV division labels (B), description
(C), one ``websearch_to_tsquery`` over the umlaut-expanded text, ``ts_rank`` order.
"Without thesaurus" is the current search with the synonym table emptied (in a
transaction rolled back), so the thesaurus's own share is visible.

- recall@10: relevant tenders in the first ten / min(relevant, 10), averaged over queries;
- precision@10: relevant tenders among those shown in the first ten (up to ten),
  averaged over the queries that show anything (an empty list is a recall failure,
  not an imprecise one);
- MRR: 1 / rank of the first relevant tender (0 if none in the first ten);
- negatives shown: tenders among a query's first ten that its negative cases (``NEGATIVES``) say must
  never be there; the precision guard (tests/tenders/test_relevance_guard.py) wants none.
"""
# ruff: noqa: S608  (the SQL here is built from our own constants)

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from bench.relevance_set import CONSTRUCTED, FIXTURES, NEGATIVES, QUERIES, REAL_NOTICES
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.search_words import websearch_text
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import STATUSES, TenderFilters
from tenders.models import SynonymGroup, TenderSource
from tenders.search import tender_search
from tenders.services import notices_ingest
from tenders.suggestions import search_vocabulary_refresh

TOP = 10

# The division labels the search vector carried before the full vocabulary (tenders/cpv.py until then).
PREVIOUS_DIVISION_LABELS: dict[str, str] = {
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


def _real_records() -> dict[str, NoticeRecord]:
    from sources.parsers.eforms import parse_eforms
    from sources.parsers.ocds import parse_ocds_package
    from sources.parsers.ted_json import parse_ted_search_response

    records = {}
    for key, parser, path, index in REAL_NOTICES:
        data = (FIXTURES / path).read_bytes()
        if parser == "eforms":
            parsed = [parse_eforms(data, source="doe")]
        elif parser == "ocds":
            parsed = parse_ocds_package(data, source="doe")
        else:
            parsed = parse_ted_search_response(data)[0]
        records[key] = parsed[index]
    return records


def _constructed_records(now: datetime) -> dict[str, NoticeRecord]:
    return {
        key: NoticeRecord(
            source="constructed",
            source_notice_id=f"relevance-{key}",
            version="01",
            kind=NoticeKind.CONTRACT_NOTICE,
            title=title,
            description=description,
            buyer_name="Stadt Musterstadt",
            cpv_codes=codes,
            country="DEU",
            published_at=now,
            url="",
        )
        for key, title, description, codes in CONSTRUCTED
    }


def load_corpus(now: datetime) -> dict[str, int]:
    """Ingest the corpus through the real ingest; tender id by key."""
    records = {**_real_records(), **_constructed_records(now)}
    notices_ingest(records=list(records.values()), now=now, use_fingerprint=False)
    search_vocabulary_refresh()  # the title words a compound's head is searched in (tenders.title_forms.HeadQuery)
    ids = {
        (source, notice): tender_id
        for source, notice, tender_id in TenderSource.objects.values_list("source", "source_notice_id", "tender_id")
    }
    return {key: ids[(record.source, record.source_notice_id)] for key, record in records.items()}


def current_top(q: str, *, now: datetime) -> list[int]:
    # Every status: the set measures the words, and most real notices have expired or been awarded since
    # (without a status the search shows open tenders only, tenders.filters.effective_filters).
    filters = TenderFilters(q=q, status=STATUSES)
    return list(tender_search(filters=filters, order="relevance", now=now).values_list("id", flat=True)[:TOP])


def _add_previous_index() -> None:
    cases = " ".join(f"WHEN '{code}' THEN '{label}'" for code, label in PREVIOUS_DIVISION_LABELS.items())
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE tenders_tender ADD COLUMN IF NOT EXISTS previous_vector tsvector")
        cursor.execute(
            f"""
            UPDATE tenders_tender t SET previous_vector =
                setweight(to_tsvector('german', t.title), 'A')
                || setweight(to_tsvector('german', t.buyer_name), 'B')
                || setweight(to_tsvector('german', coalesce((
                       SELECT string_agg(DISTINCT CASE left(code, 2) {cases} END, ' ')
                       FROM unnest(t.cpv_codes) AS code), '')), 'B')
                || setweight(to_tsvector('german', t.description), 'C')
            """
        )


def previous_top(q: str) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT id FROM tenders_tender, websearch_to_tsquery('german', %s) AS query
            WHERE previous_vector @@ query
            ORDER BY ts_rank(previous_vector, query) DESC, submission_deadline ASC NULLS LAST, id DESC
            LIMIT %s
            """,
            [websearch_text(q), TOP],
        )
        return [row[0] for row in cursor.fetchall()]


class _RollBack(Exception):
    pass


def without_thesaurus_top(queries: list[str], *, now: datetime) -> dict[str, list[int]]:
    results: dict[str, list[int]] = {}
    try:
        with transaction.atomic():
            SynonymGroup.objects.all().delete()
            results = {q: current_top(q, now=now) for q in queries}
            raise _RollBack
    except _RollBack:
        pass
    return results


def scores(results: dict[str, list[int]], relevant: dict[str, set[int]]) -> dict[str, float]:
    recall, precision, reciprocal = [], [], []
    for q, shown in results.items():
        wanted = relevant[q]
        hits = [tender_id in wanted for tender_id in shown]
        recall.append(sum(hits) / min(len(wanted), TOP))
        if shown:
            precision.append(sum(hits) / len(shown))
        reciprocal.append(next((1 / rank for rank, hit in enumerate(hits, 1) if hit), 0.0))
    return {
        "recall10": sum(recall) / len(recall),
        "precision10": sum(precision) / len(precision) if precision else 0.0,
        "mrr": sum(reciprocal) / len(reciprocal),
    }


def negatives_shown(results: dict[str, list[int]], ids: dict[str, int]) -> list[tuple[str, str]]:
    """(query, key) of each negative case found among its query's first ten."""
    key_of = {tender_id: key for key, tender_id in ids.items()}
    return [(q, key_of[t]) for q, keys in NEGATIVES for t in results[q] if key_of[t] in keys]


def run(*, n: int | None) -> None:
    now = timezone.now().astimezone(BERLIN).replace(microsecond=0)
    ids = load_corpus(now)
    key_of = {tender_id: key for key, tender_id in ids.items()}
    _add_previous_index()
    relevant = {q: {ids[key] for key in keys} for q, keys in QUERIES}
    current = {q: current_top(q, now=now) for q, _keys in QUERIES}
    previous = {q: previous_top(q) for q, _keys in QUERIES}
    plain = without_thesaurus_top([q for q, _keys in QUERIES], now=now)
    print(f"corpus: {len(ids)} tenders ({len(REAL_NOTICES)} real notices, {len(CONSTRUCTED)} constructed)")
    print(f"queries: {len(QUERIES)}\n")
    print(
        f"{'query':24} {'prev R@10':>9} {'no thes.':>9} {'now R@10':>9}  missed now / shown but not labelled relevant"
    )
    for q, _keys in QUERIES:
        wanted = relevant[q]
        before = sum(t in wanted for t in previous[q]) / min(len(wanted), TOP)
        after = sum(t in wanted for t in current[q]) / min(len(wanted), TOP)
        middle = sum(t in wanted for t in plain[q]) / min(len(wanted), TOP)
        missed = sorted(key_of[t] for t in wanted - set(current[q]))
        extra = [key_of[t] for t in current[q] if t not in wanted]
        print(f"{q[:24]:24} {before:9.2f} {middle:9.2f} {after:9.2f}  {missed or ''} {extra or ''}")
    before, after = scores(previous, relevant), scores(current, relevant)
    middle = scores(plain, relevant)
    wrong = negatives_shown(current, ids)
    print(
        f"\nnegative cases: {sum(len(keys) for _q, keys in NEGATIVES)} in {len(NEGATIVES)} queries; shown: {wrong or 'none'}"
    )
    print()
    for name in ("recall10", "precision10", "mrr"):
        print(f"{name:12} previous {before[name]:.3f}  without thesaurus {middle[name]:.3f}  current {after[name]:.3f}")
    print(
        f"RESULT relevance recall10={after['recall10']:.3f} precision10={after['precision10']:.3f} "
        f"mrr={after['mrr']:.3f} previous_recall10={before['recall10']:.3f} "
        f"previous_precision10={before['precision10']:.3f} previous_mrr={before['mrr']:.3f} "
        f"no_thesaurus_recall10={middle['recall10']:.3f} no_thesaurus_precision10={middle['precision10']:.3f} "
        f"no_thesaurus_mrr={middle['mrr']:.3f} negatives_shown={len(wrong)}"
    )
