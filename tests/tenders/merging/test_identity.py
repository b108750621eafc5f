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


def test_long_texts_are_normalised_alike_but_not_remembered():
    from tenders.merging import identity

    short = "Unterhaltsreinigung der Schulen – Los 1; "
    title = short * 20  # a description pasted as title
    expected = " ".join([identity.normalise_name(short)] * 20)
    before = identity._normalised.cache_info().currsize
    assert identity.normalise_name(title) == expected
    assert identity._normalised.cache_info().currsize == before
    fingerprints_before = identity._fingerprint.cache_info().currsize
    assert identity.fingerprint(buyer_name="Stadt Köln", title=title) == identity._fingerprint("Stadt Köln", title)
    assert identity._fingerprint.cache_info().currsize == fingerprints_before
    assert identity.fingerprint(buyer_name="Stadt Köln", title=short) is not None
    assert identity._fingerprint.cache_info().currsize == fingerprints_before + 1
