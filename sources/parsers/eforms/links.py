"""Links in an eForms document: every element text is scanned (URI elements, EndpointIDs, pasted links)."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from sources.links import portal_references_from_urls, urls_in_text

__all__ = ["document_urls", "portal_references_from_urls"]


def document_urls(root: etree._Element) -> Iterator[str]:
    """Every URL in any element text: URI elements, EndpointIDs and links pasted into free text."""
    for el in root.iter(etree.Element):
        text = el.text
        # A notice has hundreds of texts and a handful of links: the substring tests spare the
        # pattern (which starts with "http(s)://" or "www." in any case) nearly every text.
        if text and ("://" in text or "www." in text.lower()):
            yield from urls_in_text(text)
