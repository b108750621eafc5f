"""Saved searches (Suchprofile): list, create from a search with a preview, edit, delete, read-only view.

Every lookup goes through ``saved_search_visible``: another user's private
profile does not exist for this user (404); a shared one can be read by all
and changed only by its owner or a tenant admin (403).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from accounts.roles import user_is_tenant_admin
from kernel.errors import ApplicationError
from notifications.alerts.selectors import instant_alerts_without_mail_route
from notifications.models import SavedSearch
from notifications.portal.formatting import filters_summary
from notifications.portal.forms import (
    FilterForm,
    SavedSearchForm,
    bound_form,
    filter_error_messages,
    filters_as_params,
)
from notifications.portal.selectors import (
    PREVIEW_DAYS,
    saved_search_can_edit,
    saved_search_filters,
    saved_search_list,
    saved_search_new_match_count,
    saved_search_new_matches,
    saved_search_preview,
    saved_search_recent_matches,
    saved_search_visible,
    source_choices,
)
from notifications.portal.services import saved_search_create, saved_search_delete, saved_search_update
from tenders.filters import FilterError, TenderFilters, parse_filters


def _visible_or_404(request, pk: int) -> SavedSearch:
    return get_object_or_404(saved_search_visible(user=request.user), pk=pk)


def _editable_or_403(request, pk: int) -> SavedSearch:
    saved_search = _visible_or_404(request, pk)
    if not saved_search_can_edit(user=request.user, saved_search=saved_search):
        raise PermissionDenied(_("Dieses Suchprofil ist geteilt und kann hier nur gelesen werden."))
    return saved_search


def _parse(params) -> tuple[TenderFilters, dict[str, str]]:
    try:
        return parse_filters(params), {}
    except FilterError as exc:
        return TenderFilters(), dict(exc.errors)


@login_required
@require_GET
def profile_list(request):
    is_admin = user_is_tenant_admin(request.user)
    rows = [
        {
            "profile": profile,
            "can_edit": saved_search_can_edit(user=request.user, saved_search=profile, is_admin=is_admin),
            "search_query": urlencode(saved_search_filters(profile).to_params()),
        }
        for profile in saved_search_list(user=request.user, now=timezone.now())
    ]
    mine = [row for row in rows if row["profile"].owner_id == request.user.pk]
    shared = [row for row in rows if row["profile"].owner_id != request.user.pk]
    context = {"mine": mine, "shared": shared, "mail_route_missing": instant_alerts_without_mail_route()}
    return render(request, "portal/profiles.html", context)


@login_required
@require_GET
def profile_detail(request, pk: int):
    profile = _visible_or_404(request, pk)
    filters = saved_search_filters(profile)
    only_new = request.GET.get("neu") == "1"
    context = {
        "profile": profile,
        "summary": filters_summary(filters),
        "search_query": urlencode(filters.to_params()),
        "can_edit": saved_search_can_edit(user=request.user, saved_search=profile),
        "only_new": only_new,
        "new_count": saved_search_new_match_count(saved_search=profile),
        "matches": (
            saved_search_new_matches(saved_search=profile)
            if only_new
            else saved_search_recent_matches(saved_search=profile)
        ),
    }
    return render(request, "portal/profile_detail.html", context)


def _render_form(request, *, settings_form, filters, errors, params, profile=None, status=200):
    filter_form = bound_form(FilterForm, params, portals=source_choices(), errors=errors)
    preview = None
    if not errors and not filters.is_empty:
        preview = saved_search_preview(filters=filters, now=timezone.now())
    context = {
        "settings_form": settings_form,
        "filter_form": filter_form,
        "preview": preview,
        "preview_days": PREVIEW_DAYS,
        "profile": profile,
        "filters_empty": filters.is_empty,
    }
    return render(request, "portal/profile_form.html", context, status=status)


def _save_errors(settings_form, exc: ApplicationError) -> dict[str, str]:
    """The service's refusal on the page: settings on their form, filter problems beside the filters.

    Refusals that are not about the input (403, 404) are left to ``config.middleware``.
    """
    if exc.status != 400:
        raise exc
    filter_errors = {}
    if str(exc.message):
        settings_form.add_error(None, str(exc.message))
    for field, message in exc.fields.items():
        if field in settings_form.fields:
            settings_form.add_error(field, str(message))
        elif field == "filters":
            filter_errors["__all__"] = str(message)
        elif field.startswith("filters."):
            filter_errors[field.removeprefix("filters.")] = str(message)
        else:
            settings_form.add_error(None, str(message))
    return filter_errors


@login_required
@require_http_methods(["GET", "POST"])
def profile_create(request):
    if request.method == "GET":
        filters, errors = _parse(request.GET)
        settings_form = SavedSearchForm(initial={"name": filters.q[:200]})
        return _render_form(request, settings_form=settings_form, filters=filters, errors=errors, params=request.GET)
    settings_form = SavedSearchForm(request.POST)
    filters, errors = _parse(request.POST)
    if "preview" in request.POST or errors or not settings_form.is_valid():
        status = 200 if "preview" in request.POST and not errors else 400
        return _render_form(
            request, settings_form=settings_form, filters=filters, errors=errors, params=request.POST, status=status
        )
    data = settings_form.cleaned_data
    try:
        profile = saved_search_create(
            owner=request.user,
            name=data["name"],
            filters=filters,
            is_shared=data["is_shared"],
            instant_alert=data["instant_alert"],
            email_enabled=data["email_enabled"],
        )
    except ApplicationError as exc:
        errors = _save_errors(settings_form, exc)
        return _render_form(
            request, settings_form=settings_form, filters=filters, errors=errors, params=request.POST, status=400
        )
    messages.success(request, _("Suchprofil „%(name)s“ gespeichert.") % {"name": profile.name})
    return redirect("portal:profile", pk=profile.pk)


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request, pk: int):
    profile = _editable_or_403(request, pk)
    if request.method == "GET":
        filters = saved_search_filters(profile)
        settings_form = SavedSearchForm(
            initial={
                "name": profile.name,
                "is_shared": profile.is_shared,
                "instant_alert": profile.instant_alert,
                "email_enabled": profile.email_enabled,
                "is_active": profile.is_active,
            }
        )
        params = filters_as_params(filters)
        return _render_form(
            request, settings_form=settings_form, filters=filters, errors={}, params=params, profile=profile
        )
    settings_form = SavedSearchForm(request.POST)
    filters, errors = _parse(request.POST)
    if "preview" in request.POST or errors or not settings_form.is_valid():
        status = 200 if "preview" in request.POST and not errors else 400
        return _render_form(
            request,
            settings_form=settings_form,
            filters=filters,
            errors=errors,
            params=request.POST,
            profile=profile,
            status=status,
        )
    data = settings_form.cleaned_data
    try:
        saved_search_update(
            saved_search=profile,
            actor=request.user,
            name=data["name"],
            filters=filters,
            is_shared=data["is_shared"],
            instant_alert=data["instant_alert"],
            email_enabled=data["email_enabled"],
            is_active=data["is_active"],
        )
    except ApplicationError as exc:
        errors = _save_errors(settings_form, exc)
        return _render_form(
            request,
            settings_form=settings_form,
            filters=filters,
            errors=errors,
            params=request.POST,
            profile=profile,
            status=400,
        )
    messages.success(request, _("Suchprofil gespeichert."))
    return redirect("portal:profile", pk=profile.pk)


@login_required
@require_GET
def profile_preview(request):
    """The preview block alone (htmx, while filters are edited)."""
    filters, errors = _parse(request.GET)
    preview = None if errors or filters.is_empty else saved_search_preview(filters=filters, now=timezone.now())
    context = {
        "preview": preview,
        "preview_days": PREVIEW_DAYS,
        "filters_empty": filters.is_empty,
        "errors": filter_error_messages(errors),
    }
    return render(request, "portal/_preview.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def profile_delete(request, pk: int):
    profile = _editable_or_403(request, pk)
    if request.method == "GET":
        return render(request, "portal/profile_delete.html", {"profile": profile})
    name = profile.name
    saved_search_delete(saved_search=profile, actor=request.user)
    messages.success(request, _("Suchprofil „%(name)s“ gelöscht.") % {"name": name})
    return redirect("portal:profiles")
