"""Dashboard (Übersicht), Meine Pipeline, the secret calendar feed and the language switch."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import set_language

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.selectors import instant_alerts_without_mail_route
from notifications.bid_dates import calendar_cards, clean_reminder_days, tender_dated_items
from notifications.demo.selectors import demo_data_note
from notifications.models import TriageStatus
from notifications.portal.formatting import daily_chart
from notifications.portal.forms import LanguageForm
from notifications.portal.ical import CalendarEvent, calendar_text, card_item_uid, event_uid
from notifications.portal.selectors import (
    calendar_owner,
    calendar_since,
    calendar_triage,
    dashboard_deadlines,
    dashboard_new_matches,
    tender_daily_counts,
    triage_pipeline,
    user_has_saved_searches,
)
from notifications.preferences.services import (
    user_preference_calendar_token_rotate,
    user_preference_ensure,
    user_preference_update,
)

CHART_DAYS = 30


@login_required
@require_GET
def dashboard(request):
    now = timezone.now()
    today = now.astimezone(BERLIN).date()
    since = datetime.combine(today - timedelta(days=CHART_DAYS - 1), time.min, tzinfo=BERLIN)
    chart = daily_chart(tender_daily_counts(since=since, until=now), end=today, days=CHART_DAYS)
    context = {
        "matches": list(dashboard_new_matches(user=request.user, now=now)),
        "deadlines": list(dashboard_deadlines(user=request.user, now=now)),
        "chart": chart,
        "has_profiles": user_has_saved_searches(user=request.user),
        "demo": demo_data_note(),
        "mail_route_missing": instant_alerts_without_mail_route(),
    }
    return render(request, "portal/dashboard.html", context)


def _pipeline_page(request, *, new_token: str | None = None):
    preference = user_preference_ensure(user=request.user)
    columns = triage_pipeline(user=request.user)
    context = {
        "columns": columns,
        "total": sum(len(rows) for _status, _label, rows in columns),
        "has_calendar_link": bool(preference.calendar_token_hash),
    }
    if new_token:
        calendar_url = request.build_absolute_uri(reverse("portal:calendar", args=[new_token]))
        context |= {"calendar_url": calendar_url, "webcal_url": "webcal://" + calendar_url.split("://", 1)[1]}
    response = render(request, "portal/pipeline.html", context)
    add_never_cache_headers(response)
    return response


@login_required
@require_GET
def pipeline(request):
    return _pipeline_page(request)


@login_required
@require_POST
def calendar_rotate(request):
    """A new calendar link, shown in this one answer only (rendered, not redirected: it is never stored)."""
    token = user_preference_calendar_token_rotate(user=request.user)
    messages.success(request, _("Neuer Kalender-Link erzeugt; ein älterer Link funktioniert nicht mehr."))
    return _pipeline_page(request, new_token=token)


def _primary_host(request) -> str:
    tenant = getattr(request, "tenant", None)
    domain = tenant.get_primary_domain() if tenant is not None else None
    return domain.domain if domain else request.get_host().split(":")[0]


@require_GET
def calendar_feed(request, token: str):
    """Deadlines of the tenders the token's owner marked interessant / in Prüfung / beworben (no sign-in)."""
    preference = calendar_owner(token=token)
    if preference is None:
        raise Http404
    now = timezone.now()
    host = _primary_host(request)
    # The person's reminder days are their alarms, on every event of the feed.
    alarms = tuple(timedelta(days=d) for d in clean_reminder_days(preference.reminder_days))
    with translation.override(preference.language):
        statuses = dict(TriageStatus.choices)
        events = []
        for triage in calendar_triage(user=preference.user, now=now):
            tender = triage.tender
            link = request.build_absolute_uri(reverse("portal:tender", args=[tender.pk]))
            lines = [tender.buyer_name, _("Bewertung: %(status)s") % {"status": statuses[triage.status]}, link]
            events.append(
                CalendarEvent(
                    uid=event_uid(tender.pk, host),
                    start=tender.submission_deadline,
                    summary=_("Frist: %(title)s") % {"title": tender.title},
                    description="\n".join(line for line in lines if line),
                    url=link,
                    location=" ".join(part for part in (tender.postal_code, tender.town) if part),
                    last_modified=tender.changed_at,
                    alarms=alarms,
                )
            )
        since = calendar_since(now=now)
        events += _card_item_events(request, preference=preference, host=host, since=since, alarms=alarms)
        body = calendar_text(name=_("Tender Radar – Fristen"), events=events, now=now)
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="fristen.ics"'
    response["Cache-Control"] = "private, max-age=300"
    response["X-Robots-Tag"] = "noindex"
    return response


def _card_item_events(request, *, preference, host: str, since, alarms) -> list[CalendarEvent]:
    """Every dated item (Teilnahmefrist, Bieterfragen, Angebotsfrist, …) of the cards the person owns or watches."""
    events = []
    for card in calendar_cards(user=preference.user):
        tender = card.tender
        link = request.build_absolute_uri(reverse("bids:card", args=[card.pk]))
        for item in tender_dated_items(tender):
            if item.at < since:  # the same horizon as the triaged deadlines: an event gone from a feed is deleted
                continue
            label = f"{item.label} ({item.lot_id})" if item.lot_id else item.label
            events.append(
                CalendarEvent(
                    uid=card_item_uid(card.pk, item.key, host),
                    start=item.at,
                    summary=f"{label}: {tender.title}",
                    description="\n".join(line for line in (tender.buyer_name, link) if line),
                    url=link,
                    location=" ".join(part for part in (tender.postal_code, tender.town) if part),
                    last_modified=tender.changed_at,
                    alarms=alarms,
                )
            )
    return events


@require_POST
def language_switch(request):
    """Store a signed-in user's language, then let Django's set_language set the cookie and redirect."""
    form = LanguageForm(request.POST)
    if form.is_valid() and request.user.is_authenticated:
        user_preference_update(user=request.user, language=form.cleaned_data["language"])
    return set_language(request)
