"""Profile names on pages that show other people's things (delivery log, webhooks): private ones stay hidden."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from notifications.visibility import saved_search_name_visible

register = template.Library()


@register.filter
def profile_visible_to(saved_search, viewer) -> bool:
    """Whether ``viewer`` may read this profile's name (and what carries it, such as an alert's subject)."""
    return saved_search is None or saved_search_name_visible(saved_search=saved_search, viewer=viewer)


@register.filter
def profile_name_for(saved_search, viewer) -> str:
    """The profile's name, or "privates Suchprofil" for someone else's private one."""
    if saved_search is None:
        return ""
    if saved_search_name_visible(saved_search=saved_search, viewer=viewer):
        return saved_search.name
    return _("privates Suchprofil")
