"""Every record the parsers make of the fixtures in tests/data, as exact JSON: the reference a faster parser must match.

Why: a parser rewritten for speed must not lose or change one field. The field tests assert what
matters per field; this snapshot pins *everything* (types included: a ``str`` is not a
``StrEnum``, ``Decimal("1E+3")`` is not ``Decimal("1000")``, a tuple is not a list, a datetime
carries its zone) for every eForms, OCDS and TED fixture and for the joined DÖE export.

Regenerate only when a parser's output is meant to change (and say why in the commit), from the
repository root: ``DJANGO_SETTINGS_MODULE=config.settings.test python -m tests.sources.parsers.records_snapshot``.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "data"
SNAPSHOT = DATA / "parser_records_snapshot.json"


def encoded(value: Any) -> Any:
    """``value`` as JSON that tells every type apart (see module docstring)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encoded(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"@": type(value).__name__, **fields}
    if isinstance(value, Enum):
        return {"enum": f"{type(value).__name__}.{value.name}"}
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return {"float": repr(value)}
    if type(value) is Decimal:
        return {"Decimal": str(value)}
    if type(value) is datetime:
        return {"datetime": value.isoformat(), "tz": str(value.tzinfo)}
    if type(value) is date:
        return {"date": value.isoformat()}
    if type(value) is tuple:
        return {"tuple": [encoded(item) for item in value]}
    if type(value) is list:
        return [encoded(item) for item in value]
    if type(value) is dict:
        return {"dict": [[encoded(k), encoded(v)] for k, v in value.items()]}
    raise TypeError(f"no snapshot encoding for {type(value).__name__}")


def _parsed(parse, data: bytes) -> list:
    try:
        return [encoded(record) for record in parse(data)]
    except Exception as exc:  # a fixture the parser refuses is pinned too, by its error
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def current_records() -> dict[str, list]:
    """Fixture label -> the encoded records the parsers make of it now."""
    from sources.adapters.doe import ZipLimits
    from sources.adapters.doe.stream import BatchLimits, ExportStream
    from sources.parsers.eforms import parse_eforms
    from sources.parsers.ocds import parse_ocds_package
    from sources.parsers.ted_json import parse_ted_search_response

    found: dict[str, list] = {}
    for path in sorted([*DATA.glob("doe/*.xml"), *DATA.glob("ted/*.xml")]):
        data = path.read_bytes()
        found[f"eforms:{path.relative_to(DATA)}"] = _parsed(lambda raw: [parse_eforms(raw, source="doe")], data)
    # Real DÖE packages, then the OCDS standard's documentation examples (tests/data/ocds/README.md).
    for path in sorted(DATA.glob("doe/ocds_*.json")) + sorted(DATA.glob("ocds/*example*.json")):
        data = path.read_bytes()
        found[f"ocds:{path.relative_to(DATA)}"] = _parsed(lambda raw: parse_ocds_package(raw, source="doe"), data)
    for path in sorted(
        [*DATA.glob("ted/ted_v3_*.json"), *DATA.glob("ted/api/page*.json"), *DATA.glob("ted/market/*.json")]
    ):
        data = path.read_bytes()
        found[f"ted:{path.relative_to(DATA)}"] = _parsed(lambda raw: parse_ted_search_response(raw)[0], data)
    exports = sorted((DATA / "doe" / "exports").glob("*.zip"))
    stream = ExportStream(archives=[(p.name, p) for p in exports], limits=ZipLimits(), batch=BatchLimits(), workers=1)
    batches = list(stream.batches(scope="snapshot"))
    found["doe-export:doe/exports"] = [encoded(record) for batch in batches for record in batch.records]
    found["doe-export-problems:doe/exports"] = sorted(problem for batch in batches for problem in batch.problems)
    return found


def main() -> None:
    import django

    django.setup()
    SNAPSHOT.write_text(json.dumps(current_records(), ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    main()
