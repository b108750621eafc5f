"""Settings and URLs of the DTVP public list. Pure.

The settings are part of the cosinex settings (a DTVP Source is a cosinex Source: alert mails,
portal page requests and the Center search still go by its ``base_url``); this module declares
them so that the cosinex schema only inherits them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ValidationInfo, model_validator

from kernel.network import normalise_host
from kernel.urls import url_host
from sources.adapters.settings import AdapterSettings, Url, setting_problem

from . import selectors

# "auto": the public list on DTVP (base_url on www.dtvp.de), the host's own cosinex list elsewhere;
# "dtvp_public": the public list; "portal": the host's own list (the Center JSON search on /Center).
LIST_SOURCES = ("auto", "dtvp_public", "portal")


def _categories(value: Any) -> Any:
    if value in (None, [], ()):
        return []
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(c, str) and selectors.CATEGORY.fullmatch(c) for c in value
    ):
        raise setting_problem(
            "public_categories muss eine Liste von DTVP-Kategorien '<slug>-<CPV mit Prüfziffer>' sein "
            f"(z. B. {selectors.DEFAULT_CATEGORIES[0]}), nicht {value!r}."
        )
    return list(dict.fromkeys(value))


class PublicListSettings(AdapterSettings):
    """``list_source`` (auto | dtvp_public | portal), ``public_list_url`` (the root of the CPV pages,
    default https://dtvp.de/ausschreibungen/cpv on DTVP) and ``public_categories`` (the pages read).

    Paging (``max_pages`` per category), the byte budget and the detail budget (``max_details``)
    are the cosinex ones.
    """

    list_source: Literal["auto", "dtvp_public", "portal"] = "auto"
    public_list_url: Url(optional=True, base=True, example=selectors.DEFAULT_LIST_ROOT) = ""
    public_categories: Annotated[list[str], BeforeValidator(_categories)] = list(selectors.DEFAULT_CATEGORIES)

    @model_validator(mode="after")
    def _public_list_on_dtvp(self, info: ValidationInfo) -> PublicListSettings:
        base_host = normalise_host(url_host(str(getattr(self, "base_url", "") or "")))
        on_dtvp = base_host in selectors.PUBLIC_HOSTS
        if self.list_source == "portal" or self.public_list_url or not (on_dtvp or self.list_source == "dtvp_public"):
            return self
        if not on_dtvp:
            raise setting_problem(
                "list_source dtvp_public: die öffentliche DTVP-Liste gibt es nur auf DTVP; "
                "base_url auf www.dtvp.de oder public_list_url angeben."
            )
        allowed = self.allowed_hosts or (info.context or {}).get("known_hosts", ())
        host = url_host(selectors.DEFAULT_LIST_ROOT)
        if host not in allowed:
            raise setting_problem(
                f"public_list_url: die öffentliche DTVP-Liste liegt auf {host}, der nicht erlaubt ist; "
                f"{host} in allowed_hosts aufnehmen, public_list_url angeben oder list_source 'portal' wählen."
            )
        return self.model_copy(update={"public_list_url": selectors.DEFAULT_LIST_ROOT})


def public_list_active(settings: dict[str, Any]) -> bool:
    """True when a run reads the public CPV pages (validated settings)."""
    return settings.get("list_source", "auto") != "portal" and bool(settings.get("public_list_url"))


def category_url(root: str, category: str, page: int = 1) -> str:
    if page <= 1:
        return selectors.CATEGORY_PATH.format(root=root, category=category)
    return selectors.PAGE_PATH.format(root=root, category=category, page=page)


def category_cpv(category: str) -> str:
    """ "72000000-5" of "it-dienste-…-72000000-5"."""
    match = selectors.CATEGORY.fullmatch(category)
    return match.group(1) if match else ""
