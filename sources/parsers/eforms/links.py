"""Links in an eForms document: every text is scanned (URI elements, EndpointIDs, pasted links)."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from kernel.links import portal_references_from_urls, urls_in_text

__all__ = ["document_urls", "portal_references_from_urls"]

# Every text node in document order as plain strings, in one call: walking the elements in Python
# cost twice as much. Text after a child element (mixed content) is scanned too: a link there is
# as much a link of the notice.
_TEXTS = etree.XPath("//text()", smart_strings=False)


def document_urls(root: etree._Element) -> Iterator[str]:
    """Every URL in any text of the document: URI elements, EndpointIDs and links pasted into free text."""
    for text in _TEXTS(root):
        # A notice has hundreds of texts and a handful of links: the substring tests spare the
        # pattern (which starts with "http(s)://" or "www." in any case) nearly every text. No
        # character but "." lowercases to ".", so a text without one needs no lowercased copy.
        if "://" in text or ("." in text and "www." in text.lower()):
            yield from urls_in_text(text)
