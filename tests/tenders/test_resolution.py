"""Merge keys of one record (pure, no database)."""

from __future__ import annotations

from tenders.resolution import keys_of
from tests.factories.records import NoticeRecordFactory

UUID = "0f7c2f3e-8c1d-4b7a-9e2f-1a2b3c4d5e6f"


def test_referenced_notices_are_canonical_deduplicated_and_never_the_notice_itself():
    record = NoticeRecordFactory(
        source_notice_id=UUID,
        referenced_notice_ids=("00615938-2024", "615938-2024", "2024/S 123-615938", f"{UUID}-01", "", "other-1"),
    )
    assert keys_of(record).references == ("615938-2024", "other-1")


def test_a_record_without_references_has_none():
    assert keys_of(NoticeRecordFactory(referenced_notice_ids=())).references == ()


def _pairwise_fingerprint_groups(records, keys) -> list[int]:
    """The batch rule stated plainly: each record joins the first earlier, compatible record of another source."""
    from tenders.merging import fingerprint_compatible

    parent = list(range(len(records)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(records)):
        for j in range(i):
            same_fingerprint = keys[i].fingerprint and keys[i].fingerprint == keys[j].fingerprint
            other_source = records[j].source != records[i].source
            if same_fingerprint and other_source and fingerprint_compatible(keys[i].traits, keys[j].traits):
                parent[find(i)] = find(j)
                break
    return [find(i) for i in range(len(records))]


def _partition(groups: list[int]) -> set[frozenset[int]]:
    by_group: dict[int, set[int]] = {}
    for index, group in enumerate(groups):
        by_group.setdefault(group, set()).add(index)
    return {frozenset(members) for members in by_group.values()}


def test_records_of_one_batch_join_by_fingerprint_only_across_sources_first_compatible_first() -> None:
    import random
    from datetime import timedelta

    from tenders.resolution import Lookups, resolve

    rng = random.Random(5)
    base = NoticeRecordFactory.build()
    records = [
        NoticeRecordFactory.build(
            source=rng.choice(["doe", "ted", "tender24"]),
            title="Unterhaltsreinigung der Schulen",  # one reused title and buyer: one fingerprint
            buyer_name="Stadt Musterhausen",
            cpv_codes=(rng.choice(["90911200", "45261210"]),),
            submission_deadline=base.submission_deadline + timedelta(days=rng.choice([0, 0, 7])),
        )
        for _ in range(120)
    ]
    keys = [keys_of(record) for record in records]
    assert len({k.fingerprint for k in keys}) == 1
    assignments = resolve(records, Lookups(), use_fingerprint=True, keys=keys)
    groups = _partition([a.group for a in assignments])
    assert groups == _partition(_pairwise_fingerprint_groups(records, keys))
    assert 1 < len(groups) < len(records)  # some records joined, not all
    one_source = [r.replace(source="doe") for r in records]
    alone = resolve(one_source, Lookups(), use_fingerprint=True)
    assert len({a.group for a in alone}) == len(one_source)  # a portal never publishes one tender twice
