"""Digits that are digits to str.isdigit() but not to int() ("²", "١٢") in untrusted text never crash a reader.

Found with the partner API's page_size (issue 27, F7); the same check-then-int stood in the places below,
each reading text a stranger controls: a remote server's Content-Length, a webhook signature header, a
portal's paging links, an operator's search term and notice fields.
"""

from __future__ import annotations

import pytest

from notifications.webhooks.signing import parse_signature_header
from sources.adapters.cosinex.crawl import _page_number
from sources.adapters.netserver.crawl import _start_of
from tenders.models import Tender
from tenders.selectors import tender_admin_search

SUPERSCRIPT, ARABIC_INDIC = "²", "١٢"


@pytest.mark.parametrize("digits", [SUPERSCRIPT, ARABIC_INDIC])
def test_a_signature_header_with_unicode_digits_has_no_timestamp(digits):
    assert parse_signature_header(f"t={digits},v1=abc") == (None, ["abc"])


@pytest.mark.parametrize("digits", [SUPERSCRIPT, ARABIC_INDIC])
def test_portal_paging_links_with_unicode_digits_read_as_the_first_page(digits):
    assert _start_of(f"https://www.tender24.de/NetServer/PublicationSearchControllerServlet?Start={digits}") == 0
    assert _page_number(f"https://www.dtvp.de/Satellite/public/search?selectedTablePagePROJECT_RESULT={digits}") == 1


@pytest.mark.django_db
@pytest.mark.parametrize("term", [f"#{SUPERSCRIPT}", ARABIC_INDIC])
def test_the_console_tender_search_takes_unicode_digits_as_words(term):
    assert list(tender_admin_search(queryset=Tender.objects.all(), term=term)) == []
