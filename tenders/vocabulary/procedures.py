"""German national procedure codes of eForms-DE (below the EU thresholds) -> canonical procedure types.

eForms-DE extends the EU ``procurement-procedure-type`` list with ``de-``-prefixed codes for the
UVgO/VOB/A procedures; without them these notices fell to "other". Mapping:
Öffentliche Ausschreibung -> ``public_tender``, Beschränkte Ausschreibung (with or without
Teilnahmewettbewerb) -> ``limited_tender``, Verhandlungsvergabe (with or without) -> ``negotiated_award``.
"""

from __future__ import annotations

EFORMS_DE_PROCEDURE_CODES: dict[str, str] = {
    "de-open": "public_tender",
    "de-restricted-w-call": "limited_tender",
    "de-restricted-wo-call": "limited_tender",
    "de-restricted": "limited_tender",
    "de-comp-w-call": "negotiated_award",
    "de-comp-wo-call": "negotiated_award",
    "de-comp": "negotiated_award",
    "de-neg-w-call": "negotiated_award",
    "de-neg-wo-call": "negotiated_award",
}
