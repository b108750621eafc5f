"""Who sees which saved search: its owner, and everyone in the company once it is shared.

The one rule for the portal, the API, the settings pages and the webhooks alike.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from notifications.models import SavedSearch


def saved_search_visible(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    """The user's own profiles and those shared with the whole company; nobody else's private ones."""
    return SavedSearch.objects.filter(Q(owner=user) | Q(is_shared=True)).select_related("owner")


def saved_search_name_visible(*, saved_search: SavedSearch, viewer: AbstractBaseUser) -> bool:
    """``saved_search_visible`` for one loaded row: own or shared. Admins are no exception (a private
    profile's name can say what a colleague is looking into); pages that list other people's deliveries or
    webhooks show "privates Suchprofil" instead."""
    return saved_search.owner_id == viewer.pk or saved_search.is_shared
