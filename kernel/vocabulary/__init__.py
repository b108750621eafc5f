"""Shared vocabulary: code lists, German labels and pure look-ups (no Django, no ORM, no app).

The one home of each word ``sources`` and ``tenders`` (and ``notifications``) share;
``tests/kernel/vocabulary/test_one_home.py`` fails on a second definition or an old import path.

- ``time_zone``: ``BERLIN``, the zone of every date a German portal writes without offset;
- ``statuses``: ``TenderStatus`` (records carry it, ``Tender.status`` stores its values);
- ``procedures``: canonical procedure types with German labels, every spelling of them, eForms-DE codes;
- ``regions``: the Bundesländer by NUTS code and abbreviation, NUTS normalisation;
- ``nuts``: the names of NUTS codes (every German code, foreign countries; eForms SDK, see ``data/README.md``);
- ``postcodes``: German postcode -> Bundesland (from GeoNames, see ``data/README.md``);
- ``folding``: ``typed_fold``, what a picker compares (umlauts, "ae/oe/ue" and none alike);
- ``cpv``: CPV codes without check digit, the CPV 2008 vocabulary (9,454 codes, labels, hierarchy, search);
- ``legal_basis``: Vergaberechtsgrundlage (VgV, VOB/A-EU, UVgO …) and the EU-threshold flag;
- ``contract_nature``: Bauleistung / Lieferleistung / Dienstleistung;
- ``deadlines``: kinds of deadline (Angebotsfrist, Teilnahmefrist, Fragenfrist);
- ``provenance``: platform source or alert mail (mail records only fill gaps when merging);
- ``compounds``: German compound splitting (called by ``search_words`` only);
- ``search_words``: the one place text becomes search words (index, keyword query, highlighting);
- ``synonyms``: the procurement thesaurus file (``data/synonyms.txt``) and its rules.
"""
