"""Who is signed in, as every page needs them: the user with their stored language and tenant-admin role.

Every signed-in request reads this, so its statement is compiled once per process (``_statement``) and
run as raw SQL: building and compiling the ORM query each time was most of the read's cost (about
1.3 of 1.6 ms). The statement names no schema (tables are found through the connection's search path,
the tenant's schema first), and the user's id is a parameter, so one text serves every tenant and user.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery

from accounts.roles import LOADED_ADMIN_FLAG, tenant_admin_flag
from notifications.models import UserPreference

# Compiled in the statement's place of the id and replaced by the real one (no user has a negative id).
_ID_PLACEHOLDER = -7_654_321


def language_of(*, user_id: int) -> str | None:
    return UserPreference.objects.filter(user_id=user_id).values_list("language", flat=True).first()


def user_signed_in(*, user_id) -> AbstractBaseUser | None:
    """The signed-in person with their stored language (``preferred_language``, None: none stored) and
    tenant-admin role (``accounts.roles.LOADED_ADMIN_FLAG``), in one statement; None for no such user."""
    user_model = get_user_model()
    try:
        pk = user_model._meta.pk.to_python(user_id)
    except ValidationError:
        return None
    if not isinstance(pk, int) or pk < 0:
        return None
    sql, params, id_index = _statement()
    params = list(params)
    params[id_index] = pk
    return next(iter(user_model._default_manager.raw(sql, params)), None)


@cache
def _statement() -> tuple[str, tuple, int]:
    """The ORM query of ``user_signed_in`` as SQL, its parameters and where the id goes among them."""
    language = UserPreference.objects.filter(user_id=OuterRef("pk")).order_by("id").values("language")[:1]
    users = get_user_model()._default_manager.annotate(
        preferred_language=Subquery(language), **{LOADED_ADMIN_FLAG: tenant_admin_flag()}
    )
    sql, params = users.filter(pk=_ID_PLACEHOLDER).query.sql_with_params()
    (id_index,) = [index for index, value in enumerate(params) if value == _ID_PLACEHOLDER]
    return sql, tuple(params), id_index
