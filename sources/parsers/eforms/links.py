"""Links in an eForms document: every element text is scanned (URI elements, EndpointIDs, pasted links)."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from sources.links import portal_references_from_urls, urls_in_text

__all__ = ["document_urls", "portal_references_from_urls"]


def document_urls(root: etree._Element) -> Iterator[str]:
    """Every URL in any element text: URI elements, EndpointIDs and links pasted into free text."""
    for el in root.iter(etree.Element):
        if el.text and len(el.text) > 4:
            yield from urls_in_text(el.text)
