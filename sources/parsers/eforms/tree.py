"""Hardened parsing and prefix-independent lookups for eForms UBL documents.

Every lookup goes through the fixed prefix map ``NS`` (namespace URI -> our
prefix), so the document's own prefixes never matter. All helpers accept
``None`` and then find nothing: hostile or incomplete notices never raise
``AttributeError``/``IndexError`` here.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from lxml import etree

from kernel.normalise import clean_text

NS = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    "efext": "http://data.europa.eu/p27/eforms-ubl-extensions/1",
    "efac": "http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1",
    "efbc": "http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1",
}
ROOT_NAMES = ("ContractNotice", "ContractAwardNotice", "PriorInformationNotice")
_DOCUMENT_NS = "urn:oasis:names:specification:ubl:schema:xsd:{}-2"
_EXTENSION = "ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent/efext:EformsExtension"
_GERMAN = {"DEU", "DE", "GER"}

Element = etree._Element
_local = threading.local()


class EformsParseError(ValueError):
    """The bytes are not a usable eForms notice (not XML, not an eForms root, no notice id)."""


def parse_root(data: bytes) -> Element:
    """The root element of an eForms notice; refuses DTDs, entities, network access and huge trees."""
    if isinstance(data, str):
        raise TypeError("parse_eforms() takes bytes; lxml decodes them according to the XML prolog")
    raw = bytes(data)
    if not raw.strip():
        raise EformsParseError("empty input is not an eForms notice")
    try:
        root = etree.fromstring(raw, _parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise EformsParseError(f"not well-formed XML: {exc}") from exc
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        raise EformsParseError("XML with a DOCTYPE declaration is refused (eForms notices never have one)")
    name = etree.QName(root)
    if name.localname not in ROOT_NAMES or name.namespace != _DOCUMENT_NS.format(name.localname):
        raise EformsParseError(f"unknown root element {root.tag!r}: not an eForms notice")
    return root


def _parser() -> etree.XMLParser:
    """One hardened parser per thread (lxml parsers are reusable but not thread-safe)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        # collect_ids/remove_blank_text: no xml:id index and no whitespace-only nodes between
        # elements (a leaf's own text is kept); every lookup ignores both, and the tree builds faster.
        parser = _local.parser = etree.XMLParser(
            resolve_entities=False,
            no_network=True,
            huge_tree=False,
            load_dtd=False,
            collect_ids=False,
            remove_blank_text=True,
        )
    return parser


def extension(root: Element) -> Element:
    """The root's ``efext:EformsExtension``, or an empty stand-in on which every lookup finds nothing."""
    ext = find(root, _EXTENSION)
    return ext if ext is not None else etree.Element("no-eforms-extension")


@lru_cache(maxsize=512)
def _compiled(path: str) -> etree.XPath:
    # A compiled XPath per lookup path: lxml's find/findall re-translate the path and the prefix map
    # on every call, which was the largest single cost of parsing a notice.
    # Only the prefixes the path uses: lxml registers every prefix of the map on each call.
    used = {prefix: uri for prefix, uri in NS.items() if f"{prefix}:" in path}
    return etree.XPath(path, namespaces=used, smart_strings=False)


def find(el: Element | None, path: str) -> Element | None:
    if el is None:
        return None
    found = _compiled(path)(el)
    return found[0] if found else None


def findall(el: Element | None, path: str) -> list[Element]:
    return [] if el is None else _compiled(path)(el)


def text(el: Element | None) -> str:
    return clean_text(el.text) if el is not None and el.text else ""


# first/texts/localised run about ninety times per notice: plain loops, no generator chains.
def first(el: Element | None, path: str) -> str:
    """Text of the first non-empty match of ``path`` under ``el`` ("" if none)."""
    return "" if el is None else first_text(_compiled(path)(el))


def first_text(elements: list[Element]) -> str:
    """Text of the first of ``elements`` that has one ("" if none): ``first`` on matches already found."""
    for found in elements:
        raw = found.text
        if raw and (cleaned := clean_text(raw)):
            return cleaned
    return ""


def texts(el: Element | None, path: str) -> list[str]:
    """Non-empty texts of all matches, in document order."""
    if el is None:
        return []
    return [cleaned for found in _compiled(path)(el) if (raw := found.text) and (cleaned := clean_text(raw))]


def localised(el: Element | None, path: str) -> str:
    """German text of a multilingual element (``languageID="DEU"``) if present, else the first non-empty one."""
    if el is None:
        return ""
    fallback = ""
    for found in _compiled(path)(el):
        raw = found.text
        if not raw or not (value := clean_text(raw)):
            continue
        if found.get("languageID", "").strip().upper() in _GERMAN:
            return value
        fallback = fallback or value
    return fallback


def attribute(el: Element | None, name: str) -> str:
    return (el.get(name) or "").strip() if el is not None else ""
