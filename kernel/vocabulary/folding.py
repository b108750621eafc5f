"""What people type into a picker, folded so that umlauts, their "ae/oe/ue" spellings and none match alike.

"München", "Muenchen" and "munchen" all fold to "munchen"; "Büroreinigung" to "buroreinigung". The CPV
search and the Kreis suggestions compare folded words, so both pickers forgive the same spellings.
"""

from __future__ import annotations

import unicodedata


def typed_fold(text: str) -> str:
    text = text.casefold().replace("ß", "ss").replace("ae", "a").replace("oe", "o").replace("ue", "u")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
