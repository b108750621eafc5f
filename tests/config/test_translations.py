"""German first, English too: every UI string has an English translation, and the compiled catalogue is current."""

from __future__ import annotations

import gettext
import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

PO = Path(settings.BASE_DIR) / "locale" / "en" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
_ENTRY = re.compile(r'^msgid ((?:".*"\n)+)msgstr ((?:".*"\n)+)', re.MULTILINE)


def _entries(po_text: str) -> list[tuple[str, str, bool]]:
    """(msgid, msgstr, fuzzy) of every singular entry except the header."""
    entries = []
    for block in po_text.split("\n\n"):
        match = _ENTRY.search(block + "\n")
        if not match or "msgid_plural" in block:
            continue
        msgid = "".join(re.findall(r'"(.*)"', match.group(1)))
        msgstr = "".join(re.findall(r'"(.*)"', match.group(2)))
        if msgid:
            entries.append((_unescape(msgid), _unescape(msgstr), "#, fuzzy" in block))
    return entries


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def test_every_catalogue_entry_is_translated_and_none_is_a_guess():
    problems = [msgid for msgid, msgstr, fuzzy in _entries(PO.read_text(encoding="utf-8")) if fuzzy or not msgstr]
    assert problems == []


def test_compiled_catalogue_matches_the_source():
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = [
        msgid for msgid, msgstr, _ in _entries(PO.read_text(encoding="utf-8")) if compiled.gettext(msgid) != msgstr
    ]
    assert stale == [], "run: msgfmt -o locale/en/LC_MESSAGES/django.mo locale/en/LC_MESSAGES/django.po"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext (xgettext) is not installed")
def test_no_string_in_code_or_templates_is_missing_from_the_catalogue(tmp_path):
    # makemessages writes into the catalogue next to the sources it scans, so it runs on a copy
    # of them: a test run never rewrites the real catalogue.
    base = Path(settings.BASE_DIR)
    for name in ("kernel", "accounts", "config", "notifications", "sources", "tenders", "templates", "locale"):
        shutil.copytree(base / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        with override_settings(LOCALE_PATHS=[tmp_path / "locale"]):
            call_command("makemessages", locale=["en"], verbosity=0)
    finally:
        os.chdir(cwd)
    copy = tmp_path / "locale" / "en" / "LC_MESSAGES" / "django.po"
    missing = [msgid for msgid, msgstr, fuzzy in _entries(copy.read_text(encoding="utf-8")) if fuzzy or not msgstr]
    assert missing == [], "new German strings need English translations in locale/en/LC_MESSAGES/django.po"
