"""``/favicon.ico``: browsers ask every host for it (JSON pages, the API root, downloads); pages name the SVG."""

from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.views.decorators.http import require_safe


@require_safe
def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))
