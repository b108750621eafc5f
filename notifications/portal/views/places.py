"""The Kreis picker: Landkreise and kreisfreie Städte suggested by name, key or NUTS-3 code (an htmx fragment).

The Kreise are public vocabulary shipped with the code (``kernel.vocabulary.places``): nothing of a
tenant is read, the sign-in only keeps the endpoint to the portal's users.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from kernel.vocabulary.places import kreis_suggestions

MAX_HITS = 10
MAX_TERM_LENGTH = 100


@login_required
@require_GET
def kreis_picker(request):
    """``?term=`` suggests Kreise: "Münch", "09162", "DE21"."""
    term = request.GET.get("term", "").strip()[:MAX_TERM_LENGTH]
    hits = kreis_suggestions(term, limit=MAX_HITS + 1) if term else []
    context = {"term": term, "hits": hits[:MAX_HITS], "more": len(hits) > MAX_HITS}
    return render(request, "portal/_kreis_results.html", context)
