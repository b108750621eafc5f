"""Mail-derived records fill gaps only: they never override what a platform source published (pure)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from kernel.records import NoticeKind
from kernel.vocabulary.provenance import MAIL_VERSION
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.merging import compile_tender
from tenders.merging.compiling import mail_fills_gaps_only
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def _platform():
    return NoticeRecordFactory(
        source="doe",
        source_notice_id="n-1",
        title="Sanierung Dach Grundschule",
        buyer_name="Stadt Musterstadt",
        submission_deadline=datetime(2026, 10, 1, 10, 0, tzinfo=BERLIN),
        published_at=datetime(2026, 9, 1, 9, 0, tzinfo=BERLIN),
        estimated_value=Decimal("0"),  # stated, although falsy
        cpv_codes=("45261210",),
        town="",
        documents_url="",
    )


def _mail(**values):
    defaults = {
        "source": "tender24",
        "source_notice_id": "54321-Tender-x",
        "version": MAIL_VERSION,
        "kind": NoticeKind.CHANGE,  # a later, "changing" notice by rank
        "status": TenderStatus.ACTIVE,
        "title": "Angeblich neuer Titel",
        "buyer_name": "Jemand anderes",
        "submission_deadline": datetime(2026, 9, 21, 10, 0, tzinfo=BERLIN),
        "published_at": datetime(2026, 9, 15, 6, 0, tzinfo=BERLIN),  # later than the platform's
        "estimated_value": Decimal("999999"),
        "cpv_codes": ("72000000",),
        "town": "Musterstadt",
        "documents_url": "https://www.tender24.de/NetServer/docs",
    }
    return NoticeRecordFactory(**{**defaults, **values})


def test_a_mail_never_overrides_fields_a_platform_record_states_but_fills_its_gaps():
    platform = _platform()
    state = compile_tender([platform, _mail()], now=NOW)
    assert state.title == platform.title and state.buyer_name == platform.buyer_name
    assert state.submission_deadline == platform.submission_deadline
    assert state.published_at == platform.published_at
    assert state.estimated_value == Decimal("0")
    assert state.cpv_codes == ("45261210",)
    assert (state.town, state.documents_url) == ("Musterstadt", "https://www.tender24.de/NetServer/docs")


def test_the_result_does_not_depend_on_the_order():
    platform, mail = _platform(), _mail()
    assert compile_tender([mail, platform], now=NOW) == compile_tender([platform, mail], now=NOW)


def test_a_mail_cannot_award_or_cancel_a_tender_a_platform_shows_open():
    platform = _platform()
    for kind, status in ((NoticeKind.AWARD, TenderStatus.AWARDED), (NoticeKind.CANCELLATION, TenderStatus.CANCELLED)):
        state = compile_tender([platform, _mail(kind=kind, status=status)], now=NOW)
        assert state.status == TenderStatus.ACTIVE


def test_without_a_platform_record_mail_records_compile_as_they_are():
    mail = _mail(kind=NoticeKind.CONTRACT_NOTICE)
    assert mail_fills_gaps_only([mail]) == [mail]
    state = compile_tender([mail], now=NOW)
    assert (state.title, state.submission_deadline) == (mail.title, mail.submission_deadline)
