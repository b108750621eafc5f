"""Shared vocabulary: code lists, German labels and pure look-ups (no Django, no ORM).

- ``legal_basis``: Vergaberechtsgrundlage (VgV, VOB/A-EU, UVgO …) and the EU-threshold flag;
- ``contract_nature``: Bauleistung / Lieferleistung / Dienstleistung;
- ``deadlines``: kinds of deadline (Angebotsfrist, Teilnahmefrist, Fragenfrist);
- ``procedures``: the German national procedure codes of eForms-DE;
- ``postcodes``: German postcode -> Bundesland (from GeoNames, see ``data/README.md``);
- ``provenance``: platform source or alert mail (mail records only fill gaps when merging);
- ``cpv``: the CPV 2008 vocabulary (9,454 codes, labels, hierarchy, search; see ``data/README.md``);
- ``compounds``: German compound splitting for the search index;
- ``synonyms``: the procurement thesaurus file (``data/synonyms.txt``) and its rules.
"""
