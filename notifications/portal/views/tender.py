"""A tender's detail page and the user's triage of it (htmx-updated on detail page, list and pipeline)."""

from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.edges import form_refusal
from kernel.errors import ApplicationError, NotFound
from notifications.portal.formatting import (
    change_lines,
    contract_nature_text,
    deadline_text,
    duration_text,
    external_url,
    legal_basis_text,
    notice_kind_label,
    notice_text,
    portal_references_shown,
    procedure_type_text,
)
from notifications.portal.forms import TriageForm
from notifications.portal.provenance import provenance_of
from notifications.portal.reasons import reasons_view
from notifications.portal.selectors import triage_for
from notifications.portal.services import triage_set
from notifications.portal.tender_page import country_shown, publication_numbers, single_lot
from notifications.portal.tender_selectors import tender_view
from tenders.filter_fields import FILTER_FIELDS
from tenders.filters import FilterError
from tenders.highlighting import Highlighter, cpv_hits, cpv_label_texts, description_beyond_title, keywords_check
from tenders.market import awards_shown, similar_awarded
from tenders.models import Tender

_KEYWORDS_HINT = next(field.hint for field in FILTER_FIELDS if field.name == "q")


@login_required
@require_GET
def tender_page(request, tender_id: int):
    q = request.GET.get("q", "")
    try:
        # The result list links here with its keywords; typed or forged ones the search refuses
        # (a NUL, an over-long text) are refused here too, with the search box's hint (400).
        keywords_check(q)
    except FilterError as exc:
        raise ApplicationError(_KEYWORDS_HINT, code=exc.code, fields=exc.fields) from exc
    try:
        view = tender_view(user=request.user, tender_id=tender_id)
    except Tender.DoesNotExist as exc:
        raise Http404(_("Diese Ausschreibung gibt es nicht.")) from exc
    highlighter = Highlighter(q, version=view.keywords_version)
    tender = view.tender
    language = get_language() or "de"
    # A description that only repeats the title is not shown twice.
    description = tender.description if description_beyond_title(tender.title, tender.description) else ""
    highlighter.prepare([tender.title, description, *cpv_label_texts(tender.cpv_codes, language)])
    versions = list(tender.versions.all())
    # Notices are named by publication number where they have one, never by an eForms UUID.
    numbers, newest_number = publication_numbers(versions)
    sources = [
        {
            "source": source,
            "url": external_url(source.url),
            "notice": notice_text(source.source_notice_id, newest_number.get(source.pk, "")),
        }
        for source in tender.sources.all()
    ]
    history = [
        {
            "version": version,
            "kind": notice_kind_label(version.kind),
            "notice": notice_text(version.source_notice_id, numbers[version.pk]),
            "changes": change_lines(version.changes),
        }
        for version in reversed(versions)
    ]
    one_lot = single_lot(lots=tender.lots, awards=tender.awards, deadlines=tender.deadlines)
    awards, unawarded_lots = awards_shown(tender.awards)
    context = {
        "tender": tender,
        "q": q,
        "title_segments": highlighter.segments(tender.title),
        "description": description,
        "description_segments": highlighter.segments(description),
        "cpv": cpv_hits(highlighter, list(tender.cpv_codes), language),
        "sources": sources,
        "history": history,
        "profiles": [
            {"profile": profile, "reasons": reasons_view(view.reasons.get(profile.pk))}
            for profile in view.matched_profiles
        ],
        "procedure_type": procedure_type_text(tender.procedure_type),
        "awards": awards,
        "unawarded_lots": unawarded_lots,
        "similar": similar_awarded(tender=tender),
        "legal_basis": legal_basis_text(tender.legal_basis),
        "contract_nature": contract_nature_text(tender.contract_nature),
        "contract_duration": duration_text(tender.contract_duration),
        "country": country_shown(tender.country, language),
        "portal_references": portal_references_shown(tender.portal_references),
        "single_lot": one_lot,
        "deadlines": [
            {
                "label": deadline_text(d["kind"]),
                "at": datetime.fromisoformat(d["at"]),
                "lot": "" if one_lot else d.get("lot_id") or "",
            }
            for d in tender.deadlines
        ],
        "documents_url": external_url(tender.documents_url),
        "provenance": provenance_of(field_sources=tender.field_sources, conflicts=tender.conflicts),
        "triage": view.triage,
        "triage_form": TriageForm(
            initial={
                "status": view.triage.status if view.triage else "neu",
                "note": view.triage.note if view.triage else "",
            }
        ),
    }
    return render(request, "portal/tender.html", context)


def _back(request, tender_id: int) -> str:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return reverse("portal:tender", args=[tender_id])


@login_required
@require_POST
def tender_triage(request, tender_id: int):
    form = TriageForm(request.POST)
    compact = request.POST.get("compact") == "1"
    saved = False
    if form.is_valid():
        # The compact widget (list, pipeline) has no note field: its note stays untouched.
        note = form.cleaned_data["note"] if "note" in request.POST else None
        try:
            triage_set(user=request.user, tender_id=tender_id, status=form.cleaned_data["status"], note=note)
        except NotFound as exc:
            raise Http404(exc.text) from exc
        except ApplicationError as exc:
            form_refusal(form, exc)
        else:
            saved = True
    if not request.htmx:
        if saved:
            messages.success(request, _("Bewertung gespeichert."))
        else:
            messages.error(request, _("Bewertung nicht gespeichert: %(errors)s") % {"errors": form.errors.as_text()})
        return redirect(_back(request, tender_id))
    triage = triage_for(user=request.user, tender_id=tender_id)
    context = {
        "tender_id": tender_id,
        "triage": triage,
        "triage_form": form if not saved else TriageForm(initial={"status": triage.status, "note": triage.note}),
        "compact": compact,
        "saved": saved,
    }
    return render(request, "portal/_triage.html", context, status=200)
