"""The one way templates and admin displays render a link that came from outside: ``safe_href``.

Tender URLs, document links and notice links come from foreign feeds, portal pages and
mails. Autoescaping stops markup, not a ``javascript:`` or ``data:`` URL in an ``href``, so
every such ``href`` goes through ``safe_href`` (``{% load external_links %}``,
``href="{{ tender.url|safe_href }}"``), which passes only http(s) links with a host
(``kernel.links.safe_link``, the rule of the ingest boundary) and gives "" for the
rest; templates test the result and show plain text instead of a link. Python-rendered
admin columns use ``external_link_html``. A test scans the templates for other ``href`` uses.
"""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString

from kernel.links import safe_link

register = template.Library()


@register.filter
def safe_href(url: object) -> str:
    """The link when it is http(s) with a host, else ""."""
    return safe_link(url)


def external_link_html(url: object, text: str) -> SafeString:
    """``<a href=… target=_blank rel="noopener noreferrer">text</a>`` for a safe link, else the text alone."""
    href = safe_href(url)
    if not href:
        return SafeString(escape(text))
    return format_html('<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', href, text)
