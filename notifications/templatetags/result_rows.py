"""Pieces the result list repeats on every row, written in Python: through the template engine they
were most of the search page's template time (highlights ~60 includes a page, a triage form, its
options and two addresses per row).

Each was a template include, loop or tag (``portal/_segments.html``, ``portal/_reasons.html``,
``portal/_triage_compact.html`` now call these); the HTML is the same, every text escaped as
``format_html`` escapes it. On these paths Django's escaping helpers and ``reverse`` are most of
the cost, so text is escaped with the standard library (``_escaped``, the same result) and a row's
address is the page's one reversed address with the row's id in it (``row_url``).
"""

from __future__ import annotations

import functools
import html
from collections.abc import Iterable
from urllib.parse import quote

from django import template
from django.template.defaultfilters import join, truncatechars
from django.template.defaulttags import CsrfTokenNode
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from notifications.models import TriageStatus
from notifications.portal.formatting import deadline_distance
from notifications.templatetags.portal_format import date_text, money, when
from tenders.models import TENDER_STATUS_LABELS

register = template.Library()

# An id no row has, reversed once per rendering; each row's address is that one with its own id.
_ID_PLACEHOLDER = 9_876_543_210


def _escaped(value) -> str:
    """What ``conditional_escape`` makes of ``value`` (safe text stays, the rest is escaped), as a plain str."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return html.escape(str(value))


def _per_rendering(context, key, make):
    # The root of the render context lives as long as this rendering, as the include tag's template cache does.
    shared = context.render_context.dicts[0]
    if key not in shared:
        shared[key] = make()
    return shared[key]


@register.simple_tag(takes_context=True)
def row_url(context, name: str, pk) -> str:
    """``{% url name pk %}`` for a row: ``reverse`` once per rendering, the row's id put in its place."""
    if not isinstance(pk, int) or pk < 0:
        return reverse(name, args=[pk])
    parts = _per_rendering(
        context, (row_url, name), lambda: reverse(name, args=[_ID_PLACEHOLDER]).split(str(_ID_PLACEHOLDER))
    )
    if len(parts) != 2:
        return reverse(name, args=[pk])
    return f"{parts[0]}{pk}{parts[1]}"


@register.filter
def marked(segments: Iterable[tuple[str, bool]]) -> SafeString:
    """Highlight segments (``tenders.highlighting``) as HTML: each hit in ``<mark>``, every text escaped."""
    return SafeString("".join(f"<mark>{_escaped(text)}</mark>" if hit else _escaped(text) for text, hit in segments))


@register.filter
def status_label(status) -> str:
    """A tender status as the page names it (``get_status_display`` without rebuilding its choices per row)."""
    return _status_label(get_language(), status)


@functools.lru_cache(maxsize=64)
def _status_label(language: str | None, status) -> str:
    return str(TENDER_STATUS_LABELS.get(status, status))


@register.filter
def reasons_shown(reasons) -> SafeString | str:
    """The "Warum gefunden" line of a row (``notifications.portal.reasons.ReasonsView``); "" without reasons."""
    if not reasons:
        return ""
    heading, weak = _reason_words(get_language())
    lines = " · ".join(
        f'<span class="reason reason-{_escaped(line.kind)}">{_escaped(line.label)}: {_escaped(line.text)}</span>'
        for line in reasons.lines
    )
    note = (
        f' <strong class="weak-reason" data-testid="only-cpv-label">{weak}</strong>' if reasons.only_cpv_label else ""
    )
    return SafeString(
        f'<p class="reasons" data-testid="reasons"><span class="muted">{heading}:</span> {lines}{note}</p>'
    )


@functools.lru_cache(maxsize=16)
def _reason_words(language: str | None) -> tuple[str, str]:
    return (
        _escaped(_("Warum gefunden")),
        _escaped(_("nur über eine CPV-Bezeichnung – Titel und Beschreibung enthalten die Suchbegriffe nicht")),
    )


_TRIAGE_COMPACT = """<form class="triage compact" method="post" action="{action}"
      hx-post="{action}" hx-trigger="change" hx-swap="outerHTML" hx-target="this">
  {csrf}<input type="hidden" name="compact" value="1"><input type="hidden" name="next" value="{next}">
  <label class="sr-only" for="triage-{tender_id}">{label}</label>
  <select name="status" id="triage-{tender_id}" class="triage-{status}" data-testid="triage-select">
    {options}
  </select>
  <noscript><button type="submit" class="link">{save}</button></noscript>
  {saved}
</form>"""


@register.simple_tag(takes_context=True)
def triage_compact(context, tender_id: int, status: str) -> SafeString:
    """The one-select triage form of a result or pipeline row; sent on change (htmx), a button without script."""
    csrf, next_path = _per_rendering(context, triage_compact, lambda: _page_parts(context))
    label, save, options = _triage_words(_per_rendering(context, get_language, get_language), status)
    return SafeString(
        _TRIAGE_COMPACT.format(
            action=_escaped(row_url(context, "portal:triage", tender_id)),
            csrf=csrf,
            next=next_path,
            tender_id=_escaped(tender_id),
            status=_escaped(status),
            label=label,
            options=options,
            save=save,
            saved='<span class="saved" role="status">✓</span>' if context.get("saved") else "",
        )
    )


def _page_parts(context) -> tuple[str, str]:
    """The CSRF field and the page's own address (escaped): the same on every row of one page."""
    request = context.get("request")
    return _escaped(CsrfTokenNode().render(context)), _escaped(request.get_full_path() if request is not None else "")


# The same five options on every row: per language and choice, nothing of a tenant in them.
@functools.lru_cache(maxsize=64)
def _triage_words(language: str | None, selected: str) -> tuple[str, str, str]:
    options = "".join(
        f'<option value="{_escaped(value)}"{" selected" if value == selected else ""}>{_escaped(label)}</option>'
        for value, label in TriageStatus.choices
    )
    return _escaped(_("Meine Bewertung")), _escaped(_("speichern")), options


_ROW = """
<li class="tender card" data-testid="tender-row">
  <div class="tender-main">
    <h2 class="tender-title"><a href="{href}">{title}</a></h2>
    {snippet}
    {reasons}
    <p class="meta">
      {buyer}
      {place}
      {bundesland}
    </p>
    <p class="meta">
      <span class="badge status-{status}">{status_label}</span>
      {value}
      {published}
      {cpv}
    </p>
  </div>
  <div class="tender-side">
    {deadline}
    {triage}
  </div>
</li>
"""


@register.simple_tag(takes_context=True)
def result_row(context, tender) -> SafeString:
    """One tender of the result list: title (marked), snippet, reasons, place, status, value, dates, CPV, triage.

    A row through the template engine cost ~2 ms (each of its ~40 variables, tags and filters a few
    hundred microseconds of Django's machinery); a page has 25. ``tests/notifications/portal/
    test_result_rows.py`` holds the template it replaced and compares the two.
    """
    highlight = getattr(tender, "highlight", None)
    words = _row_words(_per_rendering(context, get_language, get_language))
    query = _per_rendering(context, result_row, lambda: f"?q={quote(context['q'])}" if context.get("q") else "")
    snippet = highlight.snippet if highlight else ()
    return SafeString(
        _ROW.format(
            href=_escaped(row_url(context, "portal:tender", tender.pk)) + query,
            title=marked(highlight.title) if highlight else _escaped(tender.title),
            snippet=f'<p class="snippet" data-testid="snippet">{marked(snippet)}</p>' if snippet else "",
            reasons=reasons_shown(getattr(tender, "reasons", None)),
            buyer=f"<span>{_escaped(tender.buyer_name)}</span>" if tender.buyer_name else "",
            place=(
                f"<span>{_escaped(tender.postal_code)} {_escaped(tender.town)}</span>"
                if tender.town or tender.postal_code
                else ""
            ),
            bundesland=f"<span>{_escaped(tender.bundesland)}</span>" if tender.bundesland else "",
            status=_escaped(tender.status),
            status_label=_escaped(status_label(tender.status)),
            value=(
                f"<span>{words['value']}: {_escaped(money(tender.estimated_value, tender.currency))}</span>"
                if tender.estimated_value is not None
                else ""
            ),
            published=(
                f"<span>{words['published']} "
                f"{_escaped(date_text(timezone.template_localtime(tender.published_at), 'SHORT_DATE_FORMAT'))}</span>"
                if tender.published_at
                else ""
            ),
            cpv=_cpv_shown(tender, highlight),
            deadline=_deadline_shown(tender.submission_deadline, words),
            triage=triage_compact(context, tender.pk, getattr(tender, "my_triage", None) or "neu"),
        )
    )


@functools.lru_cache(maxsize=16)
def _row_words(language: str | None) -> dict[str, str]:
    return {
        "value": _escaped(_("Wert")),
        "published": _escaped(_("veröffentlicht")),
        "no_deadline": _escaped(_("keine Frist angegeben")),
    }


def _cpv_shown(tender, highlight) -> str:
    codes = tender.cpv_codes or ()
    if highlight and highlight.cpv:
        shown = "".join(
            f'<span class="cpv-code">CPV {_escaped(hit.code)} {marked(hit.label)}'
            + (
                f' <span class="muted">({_("übergeordnet zu %(code)s") % {"code": _escaped(hit.parent_of)}})</span>'
                if hit.parent_of
                else ""
            )
            + "</span>"
            for counter, hit in enumerate(highlight.cpv, start=1)
            if counter <= 2 or hit.hit
        )
        more = f' <span class="muted">({len(codes)} CPV)</span>' if len(codes) > 2 else ""
        return f'<span class="cpv" data-testid="cpv">{shown}{more}</span>'
    if codes:
        # join escapes each code; truncatechars keeps the result safe (as the template's filters did).
        return f'<span class="cpv">CPV {truncatechars(join(codes, ", ", autoescape=True), 40)}</span>'
    return ""


def _deadline_shown(deadline, words: dict[str, str]) -> str:
    if not deadline:
        return f'\n      <p class="deadline muted">{words["no_deadline"]}</p>\n    '
    distance = deadline_distance(deadline, now=timezone.now())
    return (
        f'\n      <p class="deadline {_escaped(distance.urgency)}"><strong>{_escaped(when(deadline))}</strong>'
        f"<br><span>{_escaped(distance.text)}</span></p>\n    "
    )
