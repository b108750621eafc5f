"""Pieces the result list repeats on every row, written in Python: through the template engine they
were a third of the search page's template time (highlights ~60 includes a page, a triage form per row).

Each was a template include or loop (``portal/_segments.html``, ``portal/_reasons.html``,
``portal/_triage_compact.html``, which now call these); the HTML is the same, every text escaped.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from html import escape

from django import template
from django.template.defaulttags import CsrfTokenNode
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from notifications.models import TriageStatus

register = template.Library()


@register.filter
def marked(segments: Iterable[tuple[str, bool]]) -> SafeString:
    """Highlight segments (``tenders.highlighting``) as HTML: each hit in ``<mark>``, every text escaped.

    Joined here rather than by ``format_html`` per segment: a page has ~60 of these, and Django's
    escaping helpers cost three times as much as the standard library's (same output).
    """
    return SafeString("".join(f"<mark>{escape(text)}</mark>" if hit else escape(text) for text, hit in segments))


@register.filter
def reasons_shown(reasons) -> str:
    """The "Warum gefunden" line of a row (``notifications.portal.reasons.ReasonsView``); "" without reasons."""
    if not reasons:
        return ""
    lines = format_html_join(
        " · ",
        '<span class="reason reason-{}">{}: {}</span>',
        ((line.kind, line.label, line.text) for line in reasons.lines),
    )
    weak = (
        format_html(
            ' <strong class="weak-reason" data-testid="only-cpv-label">{}</strong>',
            _("nur über eine CPV-Bezeichnung – Titel und Beschreibung enthalten die Suchbegriffe nicht"),
        )
        if reasons.only_cpv_label
        else ""
    )
    return format_html(
        '<p class="reasons" data-testid="reasons"><span class="muted">{}:</span> {}{}</p>',
        _("Warum gefunden"),
        lines,
        weak,
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
def triage_compact(context, tender_id: int, status: str) -> str:
    """The one-select triage form of a result or pipeline row; sent on change (htmx), a button without script."""
    page = _page_constants(context)
    return format_html(
        _TRIAGE_COMPACT,
        action=reverse("portal:triage", args=[tender_id]),
        csrf=page["csrf"],
        next=page["next"],
        tender_id=tender_id,
        status=status,
        label=page["label"],
        options=_triage_options(get_language(), status),
        save=page["save"],
        saved=format_html('<span class="saved" role="status">{}</span>', "✓") if context.get("saved") else "",
    )


def _page_constants(context) -> dict[str, str]:
    """What every row of one rendering shares (one CSRF token, the page's address, the labels), made once."""
    # The root of the render context lives as long as this rendering, as the include tag's template cache does.
    shared = context.render_context.dicts[0]
    constants = shared.get(_page_constants)
    if constants is None:
        request = context.get("request")
        constants = shared[_page_constants] = {
            "csrf": CsrfTokenNode().render(context),
            "next": request.get_full_path() if request is not None else "",
            "label": _("Meine Bewertung"),
            "save": _("speichern"),
        }
    return constants


# The same five options on every row: per language and choice, nothing of a tenant in them.
@functools.lru_cache(maxsize=64)
def _triage_options(language: str | None, selected: str) -> str:
    return format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((value, " selected" if value == selected else "", label) for value, label in TriageStatus.choices),
    )
