"""The row pieces written in Python (notifications.templatetags.result_rows) give the HTML their templates gave.

Each reference below is the template the piece replaced, rendered by Django's engine with the same values:
hostile text, every triage status, reasons with and without the weak-reason note, German and English.
The whole row's reference is ``reference/tender_row.html``, the row template ``result_row`` replaced.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template import RequestContext, engines
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation
from django_tenants.utils import schema_context

from notifications.models import TriageStatus
from notifications.portal.reasons import ReasonLine, ReasonsView
from notifications.portal.services import triage_set
from notifications.templatetags.result_rows import marked, status_label
from tenders.filters import STATUSES
from tenders.models import TENDER_STATUS_CHOICES, Tender
from tests.notifications.portal.conftest import user_of

HOSTILE = "<script>alert(\"x\")</script> & 'q'"

OLD_SEGMENTS = (
    "{% for text, hit in segments %}{% if hit %}<mark>{{ text }}</mark>{% else %}{{ text }}{% endif %}{% endfor %}"
)
OLD_REASONS = (
    '{% load i18n %}{% if reasons %}<p class="reasons" data-testid="reasons"><span class="muted">'
    '{% translate "Warum gefunden" %}:</span> {% for line in reasons.lines %}<span class="reason reason-{{ line.kind }}">'
    "{{ line.label }}: {{ line.text }}</span>{% if not forloop.last %} · {% endif %}{% endfor %}"
    '{% if reasons.only_cpv_label %} <strong class="weak-reason" data-testid="only-cpv-label">{% translate '
    '"nur über eine CPV-Bezeichnung – Titel und Beschreibung enthalten die Suchbegriffe nicht" %}</strong>'
    "{% endif %}</p>{% endif %}\n"
)
OLD_TRIAGE = """{% load i18n %}<form class="triage compact" method="post" action="{% url 'portal:triage' tender_id %}"
      hx-post="{% url 'portal:triage' tender_id %}" hx-trigger="change" hx-swap="outerHTML" hx-target="this">
  {% csrf_token %}<input type="hidden" name="compact" value="1"><input type="hidden" name="next" value="{{ request.get_full_path }}">
  <label class="sr-only" for="triage-{{ tender_id }}">{% translate "Meine Bewertung" %}</label>
  <select name="status" id="triage-{{ tender_id }}" class="triage-{{ triage_status }}" data-testid="triage-select">
    {% for value, label in choices %}<option value="{{ value }}"{% if value == triage_status %} selected{% endif %}>{{ label }}</option>{% endfor %}
  </select>
  <noscript><button type="submit" class="link">{% translate "speichern" %}</button></noscript>
  {% if saved %}<span class="saved" role="status">✓</span>{% endif %}
</form>
"""  # noqa: E501


def _render(source: str, context: dict, request=None) -> str:
    return engines["django"].from_string(source).render(context, request)


SEGMENTS = [
    (),
    (("Reinigung", True),),
    (("Gebäude", False), ("reinigung", True), (f" {HOSTILE} ", False), ("<b>&amp;", True)),
]


@pytest.mark.parametrize("segments", SEGMENTS)
def test_marked_segments_are_the_old_include(segments):
    assert _render("{% load result_rows %}{{ segments|marked }}", {"segments": segments}) == _render(
        OLD_SEGMENTS, {"segments": segments}
    )
    assert _render('{% include "portal/_segments.html" %}', {"segments": segments}) == _render(
        OLD_SEGMENTS, {"segments": segments}
    )


def test_marked_escapes_every_text():
    html = marked([(HOSTILE, True), (HOSTILE, False)])
    assert "<script>" not in html
    assert html.startswith("<mark>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27;</mark>")


REASONS = [
    ReasonsView((), False),
    ReasonsView((ReasonLine("Titel", "Reinigung, Gebäudereinigung", "words"),), False),
    ReasonsView(
        (
            ReasonLine("CPV-Bezeichnung", HOSTILE, "words"),
            ReasonLine("CPV", "9091 → 90911200 Reinigung von Gebäuden", "cpv"),
            ReasonLine(HOSTILE, "Bayern", f'filter" onclick="{HOSTILE}'),
        ),
        True,
    ),
]


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("reasons", REASONS)
def test_reasons_are_the_old_include(reasons, language):
    with translation.override(language):
        old = _render(OLD_REASONS, {"reasons": reasons})
        assert _render('{% include "portal/_reasons.html" %}', {"reasons": reasons}) == old
        assert _render("{% load result_rows %}{{ reasons|reasons_shown }}\n", {"reasons": reasons}) == old
    assert ("<script>" in old) is False


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("saved", [False, True])
@pytest.mark.parametrize("status", [*TriageStatus.values, HOSTILE])
def test_the_compact_triage_form_is_the_old_include(status, saved, language):
    request = RequestFactory().get("/suche/", {"q": HOSTILE, "order": "deadline"})
    context = {"tender_id": 4711, "triage_status": status, "saved": saved, "choices": TriageStatus.choices}
    with translation.override(language):
        new = _render('{% include "portal/_triage_compact.html" %}', context, request)
        old = _render(OLD_TRIAGE, context, request)
    token = request.META["CSRF_COOKIE"]  # both renderings hold a masked form of the request's one secret
    assert _unmasked(new) == _unmasked(old) and token
    assert "<script>" not in new


def test_every_row_of_one_page_shares_one_csrf_token():
    request = RequestFactory().get("/suche/")
    rows = "{% load result_rows %}{% for id in ids %}{% triage_compact id 'neu' %}{% endfor %}"
    html = _render(rows, {"ids": [1, 2, 3]}, request)
    tokens = {part.split('"', 1)[0] for part in html.split('name="csrfmiddlewaretoken" value="')[1:]}
    assert len(tokens) == 1 and html.count("csrfmiddlewaretoken") == 3
    assert 'action="/ausschreibung/3/bewertung/"' in html


def _unmasked(html: str) -> str:
    """The form with its CSRF value blanked: a masked token differs per rendering, by design."""
    start = html.index('name="csrfmiddlewaretoken" value="') + len('name="csrfmiddlewaretoken" value="')
    return html[:start] + html[html.index('"', start) :]


def test_row_addresses_are_those_reverse_gives():
    request = RequestFactory().get("/suche/")
    html = _render(
        "{% load result_rows %}{% for id in ids %}{% row_url 'portal:tender' id %}|{% endfor %}",
        {"ids": [1, 90, 9_876_543_210, 123456789012]},
        request,
    )
    assert html.split("|")[:-1] == [reverse("portal:tender", args=[pk]) for pk in (1, 90, 9_876_543_210, 123456789012)]


def test_status_labels_are_the_models_display():
    for value, _label in TENDER_STATUS_CHOICES:
        assert status_label(value) == Tender(status=value).get_status_display()
    assert status_label("unbekannt") == Tender(status="unbekannt").get_status_display()


REFERENCE_ROW = (Path(__file__).parent / "reference" / "tender_row.html").read_text(encoding="utf-8")
SEARCHES = [
    {"status": list(STATUSES)},
    {"q": "Straßenbau", "status": list(STATUSES)},
    {"q": "Reinigung", "order": "deadline", "status": list(STATUSES)},
    {"q": "Muell", "status": list(STATUSES)},
    {"bundesland": "Bayern", "status": list(STATUSES)},
]


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("params", SEARCHES)
def test_every_result_row_is_the_template_it_replaced(alpha_client, alpha, corpus, params, language):
    with schema_context(alpha.schema_name):
        triage_set(
            user=user_of(alpha, alpha.member_email),
            tender_id=min(corpus.values()),
            status=TriageStatus.values[-1],
            note=None,
        )
    response = alpha_client.get("/suche/", params, HTTP_ACCEPT_LANGUAGE=language)
    rows = list(response.context["page"].object_list)
    assert rows
    context = RequestContext(response.wsgi_request, {key: response.context.get(key) for key in ("q", "query")})
    row = engines["django"].engine.from_string("{% load result_rows %}{% result_row tender %}")
    reference = engines["django"].engine.from_string(REFERENCE_ROW)
    with translation.override(language):
        for tender in rows:
            with context.push(tender=tender):
                assert _unmasked(row.render(context)) == _unmasked(reference.render(context)), tender.title
