"""Byte decoding follows the browser order: BOM > header > meta/XML prolog > UTF-8 > windows-1252."""

from __future__ import annotations

import pytest

from kernel.network.decoding import Decoded, decode_bytes, lookup_label

UMLAUTS = "Straßenbau Müller Öl € – Überdachung"


def test_bom_utf8_wins_over_header() -> None:
    data = b"\xef\xbb\xbf" + UMLAUTS.encode("utf-8")
    result = decode_bytes(data, content_type="text/html; charset=iso-8859-1")
    assert result == Decoded(text=UMLAUTS, encoding="utf-8", declared_by="bom", garbled=False)


@pytest.mark.parametrize(
    ("bom", "codec", "encoding"),
    [(b"\xff\xfe", "utf-16-le", "utf-16le"), (b"\xfe\xff", "utf-16-be", "utf-16be")],
)
def test_bom_utf16(bom: bytes, codec: str, encoding: str) -> None:
    result = decode_bytes(bom + "<p>Öffentliche Ausschreibung</p>".encode(codec), content_type="text/html")
    assert result.text == "<p>Öffentliche Ausschreibung</p>"
    assert (result.encoding, result.declared_by, result.garbled) == (encoding, "bom", False)


def test_header_beats_meta() -> None:
    html = '<html><head><meta charset="utf-8"></head><body>Straße €</body></html>'
    result = decode_bytes(html.encode("cp1252"), content_type='text/html; charset="ISO-8859-1"')
    assert "Straße €" in result.text
    assert (result.encoding, result.declared_by, result.garbled) == ("windows-1252", "content-type", False)


def test_meta_charset_windows_1252_with_euro_byte_0x80() -> None:
    html = f'<html><head><meta charset="windows-1252"><title>x</title></head><body>{UMLAUTS}</body></html>'
    data = html.encode("cp1252")
    assert b"\x80" in data  # the euro sign
    result = decode_bytes(data, content_type="text/html")
    assert UMLAUTS in result.text
    assert (result.encoding, result.declared_by, result.garbled) == ("windows-1252", "meta", False)


def test_meta_http_equiv_content_type() -> None:
    html = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15"><p>Preis 5 €</p>'
    result = decode_bytes(html.encode("iso8859_15"))
    assert "Preis 5 €" in result.text
    assert (result.encoding, result.declared_by) == ("iso-8859-15", "meta")


def test_meta_beyond_first_4kb_is_ignored() -> None:
    html = "<html><head>" + " " * 5000 + '<meta charset="windows-1252"></head><body>Öl</body>'
    result = decode_bytes(html.encode("utf-8"))
    assert (result.encoding, result.declared_by, result.text.endswith("Öl</body>")) == ("utf-8", "utf-8", True)


def test_meta_inside_comment_is_ignored() -> None:
    html = '<!-- <meta charset="koi8-r"> --><p>Müller</p>'
    result = decode_bytes(html.encode("utf-8"))
    assert (result.encoding, result.declared_by) == ("utf-8", "utf-8")


def test_xml_declaration_iso_8859_1_read_as_windows_1252() -> None:
    xml = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<notice><title>Straßenbau – Los 1 €</title></notice>'
    result = decode_bytes(xml.encode("cp1252"), content_type="application/xml")
    assert "Straßenbau – Los 1 €" in result.text
    assert (result.encoding, result.declared_by, result.garbled) == ("windows-1252", "xml-declaration", False)


def test_no_declaration_utf8() -> None:
    result = decode_bytes(UMLAUTS.encode("utf-8"))
    assert result == Decoded(text=UMLAUTS, encoding="utf-8", declared_by="utf-8", garbled=False)


def test_no_declaration_latin_bytes_fall_back_to_windows_1252() -> None:
    result = decode_bytes(UMLAUTS.encode("cp1252"))
    assert result == Decoded(text=UMLAUTS, encoding="windows-1252", declared_by="fallback", garbled=False)


def test_windows_1252_undefined_bytes_map_to_c1_controls_like_whatwg() -> None:
    result = decode_bytes(b"a\x81b\x9dc", content_type="text/plain; charset=windows-1252")
    assert result.text == "a\x81b\x9dc"
    assert not result.garbled


def test_declared_utf8_but_latin_bytes_is_garbled() -> None:
    result = decode_bytes("Müller".encode("cp1252"), content_type="text/html; charset=utf-8")
    assert (result.encoding, result.declared_by, result.garbled) == ("utf-8", "content-type", True)
    assert result.text == "M\ufffdller"


def test_meta_utf8_but_latin_bytes_is_garbled() -> None:
    data = '<meta charset="utf-8"><p>Müller</p>'.encode("cp1252")
    result = decode_bytes(data)
    assert (result.declared_by, result.garbled) == ("meta", True)


def test_valid_utf8_containing_replacement_char_is_flagged() -> None:
    assert decode_bytes("kaputt \ufffd".encode()).garbled is True


def test_unknown_label_in_header_falls_through_to_meta() -> None:
    data = '<meta charset="windows-1252"><p>Öl</p>'.encode("cp1252")
    result = decode_bytes(data, content_type="text/html; charset=x-nonsense")
    assert (result.encoding, result.declared_by, "Öl" in result.text) == ("windows-1252", "meta", True)


def test_meta_claiming_utf16_means_utf8() -> None:
    result = decode_bytes('<meta charset="utf-16"><p>Öl</p>'.encode())
    assert (result.encoding, result.declared_by, "Öl" in result.text) == ("utf-8", "meta", True)


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("iso-8859-1", "windows-1252"),
        ("latin1", "windows-1252"),
        ("latin-1", "windows-1252"),
        ("L1", "windows-1252"),
        ("US-ASCII", "windows-1252"),
        ("ascii", "windows-1252"),
        ("utf8", "utf-8"),
        ("unicode-1-1-utf-8", "utf-8"),
        (" UTF-8 ", "utf-8"),
        ("iso-8859-15", "iso-8859-15"),
        ("utf-16", "utf-16le"),
        ("x-nonsense", None),
        ("", None),
        (None, None),
    ],
)
def test_whatwg_labels(label: str | None, expected: str | None) -> None:
    assert lookup_label(label) == expected


def test_empty_input() -> None:
    assert decode_bytes(b"") == Decoded(text="", encoding="utf-8", declared_by="utf-8", garbled=False)
