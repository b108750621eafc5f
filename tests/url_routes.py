"""Every route a URLconf serves, as fillable templates: tests walk them so later routes are covered too."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

_KWARG = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
_REGEX_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>[^)]*\)")


@dataclass(frozen=True)
class Route:
    name: str  # "namespace:name"
    template: str  # "suchprofile/<int:pk>/"; regex groups rewritten to <regex:name>
    buildable: bool  # False for regex routes that are not a literal path

    @property
    def kwargs(self) -> dict[str, str]:
        return {m["name"]: m["converter"] or "str" for m in _KWARG.finditer(self.template)}

    @property
    def is_api(self) -> bool:
        return self.template.startswith("api/v1/")

    def url(self, values: dict[str, object]) -> str:
        return "/" + _KWARG.sub(lambda m: str(values[m["name"]]), self.template)


def _pattern_text(pattern) -> tuple[str, bool]:
    route = getattr(pattern, "_route", None)
    if route is not None:
        return route, True
    regex = pattern._regex.lstrip("^").rstrip("$").replace("\\", "")
    regex = _REGEX_GROUP.sub(lambda m: f"<regex:{m['name']}>", regex)
    return regex, not re.search(r"[\^$*+?()\[\]{}|]", _KWARG.sub("", regex))


def tenant_routes(urlconf: str = "config.urls_tenant") -> list[Route]:
    def walk(patterns, prefix: str, namespace: str, buildable: bool):
        for entry in patterns:
            text, ok = _pattern_text(entry.pattern)
            if isinstance(entry, URLResolver):
                inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                yield from walk(entry.url_patterns, prefix + text, inner, buildable and ok)
            elif isinstance(entry, URLPattern):
                yield Route(name=f"{namespace}{entry.name or text}", template=prefix + text, buildable=buildable and ok)

    return list(walk(get_resolver(urlconf).url_patterns, "", "", True))
