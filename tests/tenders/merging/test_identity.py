"""Exact portal references a record names (pure, no database)."""

from __future__ import annotations

from tenders.merging import own_portal_references
from tests.factories.records import NoticeRecordFactory


def test_portal_references_found_in_links_only_where_a_portal_is_named():
    plain = NoticeRecordFactory(url="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=1", documents_url="")
    assert own_portal_references(plain) == ()
    netserver = plain.replace(
        documents_url="https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-18f2c0a1b2c"
    )
    assert own_portal_references(netserver) == ("netserver:54321-Tender-18f2c0a1b2c",)
    encoded = plain.replace(documents_url="https://www.tender24.de/NetServer/Details?Tender%4FID=54321-Tender-1a")
    assert own_portal_references(encoded) == ("netserver:54321-Tender-1a",)
    cosinex = plain.replace(documents_url="https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents")
    assert own_portal_references(cosinex) == ("cosinex:CXP4Y9PRGS5",)
