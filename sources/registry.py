"""The registry of adapters by type. Registering a denied portal fails at import time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError

from sources.adapters.base import Adapter
from sources.denylist import ensure_not_denied

_ADAPTERS: dict[str, type[Adapter]] = {}


def register(adapter_class: type[Adapter]) -> type[Adapter]:
    ensure_not_denied(
        what=f"Adapter {adapter_class.type!r}",
        key=f"{adapter_class.type} {adapter_class.label}",
        hosts=adapter_class.known_hosts,
    )
    if adapter_class.type in _ADAPTERS and _ADAPTERS[adapter_class.type] is not adapter_class:
        raise ValueError(f"Adapter type {adapter_class.type!r} is registered twice")
    _ADAPTERS[adapter_class.type] = adapter_class
    return adapter_class


def _load_builtin_adapters() -> None:
    # Importing the modules registers them (decorator); kept here so the registry is complete on first use.
    import importlib

    # DÖE's package imports its adapter on first use (its parse workers import only its reading).
    for module in ("doe.adapter", "ted", "netserver", "cosinex", "rss", "mail"):
        try:
            importlib.import_module(f"sources.adapters.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sources.adapters.{module}":
                raise


def adapter_types() -> list[str]:
    _load_builtin_adapters()
    return sorted(_ADAPTERS)


def get_adapter(adapter_type: str) -> type[Adapter]:
    _load_builtin_adapters()
    try:
        return _ADAPTERS[adapter_type]
    except KeyError:
        raise ValidationError(f"Unknown adapter type {adapter_type!r}; known: {', '.join(sorted(_ADAPTERS))}") from None


def validate_source_settings(*, adapter: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    return get_adapter(adapter).validate_settings(settings or {})
