"""@mentions in card comments: which handles a text names, and which of the tenant's people they are.

A handle is "@vorname.nachname" or the local part of a person's e-mail address ("@m.meier" for
m.meier@firma.de), compared without case. Only active people of this tenant can be mentioned; a handle that
names nobody, or more than one person, mentions nobody. Pure: the caller passes the people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_MENTIONS = 20
# After a start, a space or an opening bracket, so "a@b.de" in a text is an address, not a mention.
_HANDLE = re.compile(r"(?:^|(?<=[\s(\[,;:]))@([A-Za-zÄÖÜäöüß0-9][\w.+-]{0,63})", re.UNICODE)


@dataclass(frozen=True)
class Person:
    id: int
    email: str
    first_name: str = ""
    last_name: str = ""


def mention_handles(text: str) -> list[str]:
    """The handles a text names, lower-cased, first occurrence first, at most ``MAX_MENTIONS``."""
    handles: dict[str, None] = {}
    for match in _HANDLE.finditer(text or ""):
        handle = match.group(1).rstrip(".-+").lower()
        if handle:
            handles[handle] = None
        if len(handles) >= MAX_MENTIONS:
            break
    return list(handles)


def _names(person: Person) -> set[str]:
    names = set()
    local = person.email.split("@", 1)[0].lower() if person.email else ""
    if local:
        names.add(local)
    first, last = person.first_name.strip().lower(), person.last_name.strip().lower()
    if first and last:
        names.add(f"{'-'.join(first.split())}.{'-'.join(last.split())}")
    return names


def mentioned_people(text: str, people: Iterable[Person]) -> list[Person]:
    """The people a text mentions, in the order first named; ambiguous handles name nobody."""
    by_name: dict[str, list[Person]] = {}
    for person in people:
        for name in _names(person):
            by_name.setdefault(name, []).append(person)
    found: dict[int, Person] = {}
    for handle in mention_handles(text):
        candidates = by_name.get(handle, [])
        if len(candidates) == 1:
            found.setdefault(candidates[0].id, candidates[0])
    return list(found.values())
