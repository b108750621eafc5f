"""The tender's compound-part columns: one pass, the same parts as splitting every text as one (pure)."""

from __future__ import annotations

import random

from kernel.records import Lot
from kernel.vocabulary.cpv import cpv_code_labels, cpv_labels_for
from kernel.vocabulary.search_words import text_compound_parts
from tenders.merging import compiling
from tenders.merging.compiling import PARTS_LIMIT, compound_columns

WORDS = (  # noqa: SIM905  (a word list reads better as text)
    "Gebäudereinigung Unterhaltsreinigung Glasreinigung Büroreinigung Reinigung Schlegelmäher Brückensanierung "
    "Fahrbahnerneuerung Dachabdichtung Winterdienst Straßenbauarbeiten Grundschule Klärwerk Rathaus Feuerwehr "
    "Leistungsbeschreibung Vergabeunterlagen Sicherheitsdienst Objektschutz Hausmeisterdienste 2026 VOB/B Los"
).split()


def _as_one_text(*, title: str, description: str, lots, code_labels: str, limit: int = PARTS_LIMIT) -> tuple[str, str]:
    """How the columns were defined: lot titles, labels and description split as one sequence of texts."""
    in_title = text_compound_parts([title], limit=limit)
    rest = text_compound_parts([*(lot.title or "" for lot in lots), code_labels, description], limit=limit)
    return " ".join(in_title), " ".join(part for part in rest if part not in set(in_title))


def test_same_parts_in_the_same_order_as_splitting_every_text_as_one():
    rng = random.Random(15)
    for _ in range(300):
        title = " ".join(rng.choices(WORDS, k=rng.randint(0, 6)))
        description = " ".join(rng.choices(WORDS, k=rng.randint(0, 40)))
        lots = [Lot(lot_id=str(i), title=" ".join(rng.choices(WORDS, k=3))) for i in range(rng.randint(0, 3))]
        labels = cpv_code_labels(
            tuple(
                rng.choice(["90911200", "79713000", "45233141", "34144210", "77211000"])
                for _ in range(rng.randint(0, 2))
            )
        )
        columns = compound_columns(title=title, description=description, lots=lots, code_labels=labels)
        assert columns == _as_one_text(title=title, description=description, lots=lots, code_labels=labels)


def test_a_description_with_more_parts_than_the_limit_is_cut_as_before(monkeypatch):
    # Made-up compounds of known words give 50 distinct parts; a limit of 20 stands in for a pasted tender
    # document with more than PARTS_LIMIT.
    monkeypatch.setattr(compiling, "PARTS_LIMIT", 20)
    stems = ["Reinigung", "Sanierung", "Brücke", "Schule", "Garten", "Straße", "Wasser", "Kanal", "Fenster", "Dach"]
    heads = [
        "arbeiten",
        "dienst",
        "planung",
        "prüfung",
        "anlage",
        "technik",
        "leitung",
        "bericht",
        "material",
        "fläche",
    ]
    compounds = [f"{a}{b.lower()}{c}" for a in stems for b in stems for c in heads]
    description = " ".join(compounds)
    assert len(text_compound_parts([description], limit=10_000)) > 20
    labels = cpv_code_labels(("90911200",))
    for lots in ([], [Lot(lot_id="1", title="Unterhaltsreinigung Grundschule")]):
        columns = compound_columns(title="Gebäudereinigung", description=description, lots=lots, code_labels=labels)
        expected = _as_one_text(
            title="Gebäudereinigung", description=description, lots=lots, code_labels=labels, limit=20
        )
        assert columns == expected
        assert len(columns[1].split()) <= 20


def test_the_parts_are_those_of_the_codes_own_labels_not_of_their_groups_and_classes():
    # 50334400 "Wartung von Kommunikationssystemen" sits under 50300000 "Reparatur, Wartung … in Verbindung mit
    # Personalcomputern, Büromaschinen …": that class lists other trades; its parts made a telephone system a
    # "Computer" hit (issue 30). 30213000 "Personalcomputer" is the thing bought: its parts count.
    assert "Personalcomputern" in cpv_labels_for(("50334400",))
    _title_parts, telephone = compound_columns(
        title="Wartung der Telefonanlage", description="", lots=(), code_labels=cpv_code_labels(("50334400",))
    )
    assert "computern" not in telephone.split() and "kommunikation" in telephone.split()
    _title_parts, computers = compound_columns(
        title="Arbeitsplatzrechner", description="", lots=(), code_labels=cpv_code_labels(("30213000", "50334400"))
    )
    assert {"personal", "computer", "kommunikation"} <= set(computers.split())
    assert cpv_code_labels(("30213000", "30213000", "", "99999999")) == "Personalcomputer"
