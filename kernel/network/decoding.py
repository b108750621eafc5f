"""Turn fetched bytes into text the way a browser would.

Why: German procurement portals still serve windows-1252/ISO-8859-1 pages,
sometimes declare one charset in the header and another in ``<meta>``, and
saved fixtures carry no header at all. Guessing wrong turns "Straßenbau" into
"StraÃŸenbau" silently, so the order is fixed and the outcome is recorded
(``declared_by``, ``garbled``) for the FetchRun log.

Order (WHATWG "encoding sniffing", simplified):
BOM > Content-Type charset > XML declaration / ``<meta>`` in the first 4 KB >
strict UTF-8 > windows-1252 fallback.

Limits: the ``<meta>`` prescan is a regex over the first 4 KB with comments
removed, not the full WHATWG tokenizer; only the common WHATWG labels are
mapped (unknown labels are ignored, i.e. fall through to the next rule); no
statistical charset detection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Decoded", "decode_bytes", "lookup_label"]

PRESCAN_BYTES = 4096
REPLACEMENT_CHAR = "\ufffd"


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # WHATWG canonical name, e.g. "utf-8", "windows-1252"
    declared_by: str  # "bom"|"content-type"|"meta"|"xml-declaration"|"utf-8"|"fallback"
    garbled: bool  # decoding needed replacement characters (or the text already had U+FFFD)


# WHATWG canonical name -> Python codec. windows-1252 is special-cased (see _decode_windows_1252).
_CODECS: dict[str, str] = {
    "utf-8": "utf-8",
    "utf-16le": "utf-16-le",
    "utf-16be": "utf-16-be",
    "windows-1252": "cp1252",
    "iso-8859-2": "iso8859_2",
    "iso-8859-15": "iso8859_15",
    "windows-1250": "cp1250",
    "windows-1251": "cp1251",
    "windows-1254": "cp1254",
    "koi8-r": "koi8_r",
    "gbk": "gbk",
    "gb18030": "gb18030",
    "big5": "big5hkscs",
    "shift_jis": "shift_jis",
    "euc-jp": "euc_jp",
    "euc-kr": "cp949",
}

# Subset of https://encoding.spec.whatwg.org/#names-and-labels (labels are matched lower-cased).
_LABEL_SOURCE: dict[str, str] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "utf-16le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    "utf-16be": "unicodefffe utf-16be",
    "windows-1252": (
        "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 "
        "iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 latin-1 us-ascii windows-1252 x-cp1252"
    ),
    "iso-8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    "iso-8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "windows-1250": "cp1250 windows-1250 x-cp1250",
    "windows-1251": "cp1251 windows-1251 x-cp1251",
    "windows-1254": (
        "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 "
        "l5 latin5 windows-1254 x-cp1254"
    ),
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "gbk": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
    "gb18030": "gb18030",
    "big5": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "shift_jis": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "euc-jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "euc-kr": (
        "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 windows-949"
    ),
}
_LABELS: dict[str, str] = {label: name for name, labels in _LABEL_SOURCE.items() for label in labels.split()}


# WHATWG windows-1252 maps the five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D)
# to the C1 control with the same value; Python's strict cp1252 would raise on them.
def _win1252_char(byte: int) -> str:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return chr(byte)


_WIN1252_TABLE: dict[int, str] = {byte: _win1252_char(byte) for byte in range(0x80, 0xA0)}

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16le"),
    (b"\xfe\xff", "utf-16be"),
)
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([^"'\s;,>/]+)""", re.IGNORECASE)
_META_TAG = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_XML_DECL = re.compile(r"""^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']""")


def lookup_label(label: str | None) -> str | None:
    """WHATWG canonical encoding name for a label, or None if unknown/unsupported."""
    if not label:
        return None
    return _LABELS.get(label.strip().strip("\"'").lower())


def _decode_windows_1252(data: bytes) -> str:
    # latin-1 maps every byte to the code point of the same value; translate fixes 0x80-0x9F.
    return data.decode("latin-1").translate(_WIN1252_TABLE)


def _decode(data: bytes, encoding: str) -> tuple[str, bool]:
    """Decode strictly; on failure decode with replacement and report garbled=True."""
    if encoding == "windows-1252":
        return _decode_windows_1252(data), False
    codec = _CODECS[encoding]
    try:
        return data.decode(codec), False
    except UnicodeDecodeError:
        return data.decode(codec, errors="replace"), True


def _charset_from_content_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    match = _CHARSET_PARAM.search(content_type)
    return lookup_label(match.group(1)) if match else None


def _sniff_document(head: bytes) -> tuple[str, str] | None:
    """Look for an XML declaration or ``<meta>`` charset in an ASCII-compatible prefix."""
    text = head.decode("latin-1")
    xml = _XML_DECL.match(text)
    if xml and (encoding := lookup_label(xml.group(1))):
        return _ascii_compatible(encoding), "xml-declaration"
    for tag in _META_TAG.findall(_HTML_COMMENT.sub("", text)):
        match = _CHARSET_PARAM.search(tag)
        if match and (encoding := lookup_label(match.group(1))):
            return _ascii_compatible(encoding), "meta"
    return None


def _ascii_compatible(encoding: str) -> str:
    # A UTF-16 label found by an ASCII prescan is a lie (we could read it, so it isn't UTF-16);
    # WHATWG says to use UTF-8 in that case.
    return "utf-8" if encoding in ("utf-16le", "utf-16be") else encoding


def decode_bytes(data: bytes, *, content_type: str | None = None) -> Decoded:
    """Decode ``data`` following the browser precedence documented in the module docstring."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text, garbled = _decode(data[len(bom) :], encoding)
            return _result(text, encoding, "bom", garbled)

    encoding = _charset_from_content_type(content_type)
    if encoding:
        text, garbled = _decode(data, encoding)
        return _result(text, encoding, "content-type", garbled)

    sniffed = _sniff_document(data[:PRESCAN_BYTES])
    if sniffed:
        encoding, declared_by = sniffed
        text, garbled = _decode(data, encoding)
        return _result(text, encoding, declared_by, garbled)

    try:
        return _result(data.decode("utf-8"), "utf-8", "utf-8", False)
    except UnicodeDecodeError:
        return _result(_decode_windows_1252(data), "windows-1252", "fallback", False)


def _result(text: str, encoding: str, declared_by: str, garbled: bool) -> Decoded:
    return Decoded(
        text=text,
        encoding=encoding,
        declared_by=declared_by,
        garbled=garbled or REPLACEMENT_CHAR in text,
    )
