"""The CPV picker: codes found by label or number, with their place in the hierarchy (an htmx fragment)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from kernel.vocabulary.cpv import cpv_children, cpv_entry, cpv_hierarchy, cpv_search

# A search shows its best hits in full (label and path, no scroll box); a narrower word finds the rest.
MAX_HITS = 12
# Browsing shows every code one level down (45 divisions is the most under one parent).
MAX_CHILDREN = 100
MAX_TERM_LENGTH = 100


def _hit(entry, language: str) -> dict:
    return {
        "code": entry.code,
        "label": entry.label_in(language),
        "level": entry.level,
        "path": [{"code": p.code, "label": p.label_in(language)} for p in cpv_hierarchy(entry.code)[:-1]],
        "has_children": len(entry.significant) < 8 and bool(cpv_children(entry.code)),
    }


@login_required
@require_GET
def cpv_picker(request):
    """``?term=`` searches labels and numbers; ``?code=`` lists a code's children (``code=`` alone: the divisions)."""
    language = get_language() or "de"
    term = request.GET.get("term", "").strip()[:MAX_TERM_LENGTH]
    parent = None
    limit = MAX_HITS
    if "code" in request.GET:
        code = request.GET["code"].strip()[:MAX_TERM_LENGTH]
        parent = cpv_entry(code)
        entries = cpv_children(code if parent else "")
        limit = MAX_CHILDREN
    elif term:
        entries = cpv_search(term, limit=MAX_HITS + 1)
    else:
        entries = []
    context = {
        "term": term,
        "parent": _hit(parent, language) if parent else None,
        "hits": [_hit(entry, language) for entry in entries[:limit]],
        "more": len(entries) > limit,
        "searched": bool(term) or "code" in request.GET,
    }
    return render(request, "portal/_cpv_results.html", context)
