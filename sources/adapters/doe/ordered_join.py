"""The join of a DÖE export whose groups arrive in key order (``sources.adapters.doe.stream``).

Records in key order, the first rendition of a duplicate kept, each
broken file a problem naming it. A file whose notice id differs from its name (a hand-named
file) is joined with its partner only if that partner has not been written yet; otherwise it is
reported ("already joined from …") and not used. Files without a version in their name come last.
"""

from __future__ import annotations

from collections.abc import Iterable

from kernel.records import NoticeRecord

from .join import Key, join_doe_records, member_kind, stem_key
from .reading import Joined, ParsedMember


class StreamJoiner:
    """The join rules for groups that arrive in key order (see the module docstring)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        self._written: dict[str, dict[Key, str]] = {"eforms": {}, "ocds": {}}  # key -> label, for duplicate messages
        self._astray: dict[str, dict[Key, ParsedMember]] = {"eforms": {}, "ocds": {}}  # id differs from file name
        self._astray_records: dict[tuple[str, Key], NoticeRecord] = {}

    def group(self, stem: Key | None, parsed: Iterable[ParsedMember]) -> list[NoticeRecord]:
        local: dict[str, dict[Key, tuple[str, NoticeRecord]]] = {"eforms": {}, "ocds": {}}
        for member in parsed:
            if member.problem:
                self.problems.append(member.problem)
                continue
            from_stem = stem_key(member.name)
            for record in member.records:
                own = (record.source_notice_id.lower(), record.version)
                if from_stem is not None and from_stem[0] == own[0]:
                    key = from_stem
                    if record.version != key[1]:
                        record = record.replace(version=key[1])  # DÖE's noticeVersion in the name wins
                    if stem is not None and key == stem:
                        self._keep(local[member.kind], member.kind, key, member.label, record)
                        continue
                else:
                    key = own
                self._keep_astray(member.kind, key, member.label, record)
        return self._join(local)

    def skipped(self, stem: Key, labels: list[str]) -> None:
        """A group not parsed (its bytes are the stored version's) counts as written, for later duplicates."""
        for label in labels:  # a label ends with its file's name
            if kind := member_kind(label):
                self._written[kind].setdefault(stem, label)

    def take_joined(self, stem: Key, joined: Joined) -> list[NoticeRecord] | None:
        """The record a worker joined for ``stem``, unless the key was written or is held astray (then None).

        Those two are the only ways another group bears on this one (see ``reading.joined_group``);
        the caller then joins the group here from its files, with every rule of :meth:`group`.
        """
        if any(stem in self._written[kind] or stem in self._astray[kind] for kind, _ in joined.labels):
            return None
        for kind, label in joined.labels:
            self._written[kind][stem] = label
        return [joined.record]

    def finish(self) -> list[NoticeRecord]:
        local: dict[str, dict[Key, tuple[str, NoticeRecord]]] = {"eforms": {}, "ocds": {}}
        return self._join(local, take_all_astray=True)

    def _keep(self, target: dict, kind: str, key: Key, label: str, record: NoticeRecord) -> None:
        earlier = target.get(key, (None,))[0] or self._written[kind].get(key)
        if earlier:
            self._duplicate(label, record, key, earlier)
            return
        target[key] = (label, record)

    def _keep_astray(self, kind: str, key: Key, label: str, record: NoticeRecord) -> None:
        earlier = self._written[kind].get(key) or (self._astray[kind][key].label if key in self._astray[kind] else None)
        if earlier:
            self._duplicate(label, record, key, earlier)
            return
        self._astray[kind][key] = ParsedMember(label=label, name="", kind=kind)
        self._astray_records[(kind, key)] = record

    def _duplicate(self, label: str, record: NoticeRecord, key: Key, earlier: str) -> None:
        self.problems.append(
            f"{label}: notice {record.source_notice_id} version {key[1]} also in {earlier}; the first one is kept"
        )

    def _join(self, local: dict[str, dict[Key, tuple[str, NoticeRecord]]], *, take_all_astray=False) -> list:
        keys = set(local["eforms"]) | set(local["ocds"])
        if take_all_astray:
            keys |= set(self._astray["eforms"]) | set(self._astray["ocds"])
        records = []
        for key in sorted(keys):
            halves = {}
            for kind in ("eforms", "ocds"):
                if key in local[kind]:
                    label, record = local[kind][key]
                    if key in self._astray[kind]:  # the misnamed file came first in member order of its kind
                        self._duplicate(label, record, key, self._astray[kind][key].label)
                        label, record = self._astray[kind].pop(key).label, self._astray_records.pop((kind, key))
                    halves[kind] = record
                    self._written[kind][key] = label
                elif key in self._astray[kind]:
                    halves[kind] = self._astray_records.pop((kind, key))
                    self._written[kind][key] = self._astray[kind].pop(key).label
            records.append(join_doe_records(halves.get("ocds"), halves.get("eforms")))
        return records
